#!/usr/bin/env bash
# tools/netns/tap_selftest.sh - the firmware TCP/IP stack (fw/net) against the real Linux kernel.
# Input: the fw/net sources and tools/netns/tap_host.c (built here with the host gcc); must run
#        as root (creates a network namespace). Environment: BYTES (echo size, default 102400),
#        KEEP_LOGS=1 (keep the log folder), PCAP=file (tcpdump the TAP, needs tcpdump), LOSS (per cent of
#        the frames the last run drops each way, default 5), TAP_CFLAGS (more gcc flags for the runner, e.g.
#        -DNET_TCP_SACK=0).
# Output: one line per check, then "tap_selftest: PASS" (exit 0) or "tap_selftest: FAIL ..." (exit 1).
#
# What it does, all inside a private namespace tf-test-<pid> (no traffic leaves it):
#   TAP tftap0 with 10.77.0.1/24 on the kernel side; tap_host runs the stack as 10.77.0.2 on it.
#   1. the stack resolves 10.77.0.1 by ARP;          2. a connect to closed port 9001 is refused;
#   3. 100 KB sent to a python3 echo server on 9000, echoed and compared;  4. clean close both ways;
#   5. the kernel's `ping -c 5` to 10.77.0.2 gets 5 replies (while the above runs);
#   6. the kernel holds no half-open connection afterwards and learned our MAC by ARP (its
#      neighbour table is flushed before the ping, so the stack must answer its ARP request);
#   7. a restarted runner (new random port/ISN) connects and echoes again at once;
#   8. a 200 KB echo with 5% of the frames dropped each way (by the runner) still completes.
# 5 % needs SACK (tools/netns/README.md): without it, a loss during Linux's recovery after a timeout cost another
# timeout, doubled each time, and about one run in ten stalled for minutes (e75ff75 ran this at 2 % until the stack
# reported its held range). With it, 120 runs in a row here completed within 2 s.
# Everything it started is stopped by PID and the namespace deleted on exit (trap).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NS="tf-test-$$"
DEV=tftap0
KIP=10.77.0.1
SIP=10.77.0.2
PORT=9000
CLOSED_PORT=9001
BYTES=${BYTES:-102400}
LOSS=${LOSS:-5}
BUILD="$ROOT/build/netns"
LOGDIR=$(mktemp -d /tmp/tf-tap-selftest.XXXXXX)
PIDS=()
FAILS=()

say() { echo "tap_selftest: $*"; }
check() { # check <name> <ok 0/1> <detail>
    if [ "$2" -eq 0 ]; then echo "  [ok]   $1: $3"; else echo "  [FAIL] $1: $3"; FAILS+=("$1"); fi
}

cleanup() {
    local p
    for p in "${PIDS[@]}"; do
        kill "$p" 2>/dev/null
    done
    for p in "${PIDS[@]}"; do
        wait "$p" 2>/dev/null
    done
    ip netns del "$NS" 2>/dev/null
    if [ "${KEEP_LOGS:-0}" = 1 ]; then say "logs kept in $LOGDIR"; else rm -rf "$LOGDIR"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" -ne 0 ]; then say "FAIL (needs root for ip netns / TAP)"; exit 1; fi
for tool in ip gcc python3 ping ss; do
    command -v "$tool" >/dev/null || { say "FAIL (missing tool: $tool)"; exit 1; }
done
[ -c /dev/net/tun ] || { say "FAIL (/dev/net/tun missing)"; exit 1; }

# ---- build the runner ----
mkdir -p "$BUILD"
if ! gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror ${TAP_CFLAGS:-} -I"$ROOT/fw" -o "$BUILD/tap_host" \
        "$HERE/tap_host.c" "$ROOT"/fw/net/*.c 2>"$LOGDIR/build.log"; then
    cat "$LOGDIR/build.log"; say "FAIL (build of tap_host)"; exit 1
fi

# ---- namespace, TAP, addresses ----
ip netns add "$NS" || { say "FAIL (ip netns add)"; exit 1; }
NSX=(ip netns exec "$NS")
"${NSX[@]}" ip link set lo up
"${NSX[@]}" ip tuntap add dev "$DEV" mode tap || { say "FAIL (tuntap add)"; exit 1; }
"${NSX[@]}" ip addr add "$KIP/24" dev "$DEV"
"${NSX[@]}" ip link set "$DEV" up
"${NSX[@]}" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null

if [ -n "${PCAP:-}" ] && command -v tcpdump >/dev/null; then
    "${NSX[@]}" tcpdump -i "$DEV" -w "$PCAP" -U >/dev/null 2>&1 &
    PIDS+=($!)
fi

# ---- echo server ----
"${NSX[@]}" python3 -u "$HERE/echo_server.py" "$KIP" "$PORT" >"$LOGDIR/echo.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do
    "${NSX[@]}" ss -ltnH "sport = :$PORT" | grep -q . && break
    sleep 0.1
done

# ---- run 1: ARP, refused connect, 100 KB echo, close; ping meanwhile ----
"${NSX[@]}" "$BUILD/tap_host" --dev "$DEV" --ip "$SIP" --prefix 24 --gw "$KIP" --peer "$KIP" --port "$PORT" \
    --refused-port "$CLOSED_PORT" --bytes "$BYTES" --linger-ms 60000 >"$LOGDIR/run1.log" 2>&1 &
RUN1=$!
PIDS+=($RUN1)
sleep 0.2
"${NSX[@]}" ip neigh flush dev "$DEV"   # make the kernel ask for our MAC: exercises the stack's ARP reply
"${NSX[@]}" ping -c 5 -i 0.2 -W 10 "$SIP" >"$LOGDIR/ping.log" 2>&1
PING_RC=$?
for _ in $(seq 600); do
    grep -q '^RESULT' "$LOGDIR/run1.log" && break
    kill -0 "$RUN1" 2>/dev/null || break
    sleep 0.1
done
# let the kernel process our last ACK: up to 10 s, as a loaded machine (CI) can delay it past a fixed pause
for _ in $(seq 100); do
    KSTATE=$("${NSX[@]}" ss -tanH "( sport = :$PORT or dport = :$PORT )" | grep -v LISTEN)
    [ -z "$KSTATE" ] && break
    sleep 0.1
done
NEIGH=$("${NSX[@]}" ip neigh show "$SIP" dev "$DEV")
kill -TERM "$RUN1" 2>/dev/null
wait "$RUN1"
RUN1_RC=$?

echo "--- runner (run 1) ---"; sed 's/^/  /' "$LOGDIR/run1.log"
echo "--- kernel ping ---"; grep -E 'transmitted|rtt' "$LOGDIR/ping.log" | sed 's/^/  /'
echo "--- checks ---"
grep -q '^ARP ok' "$LOGDIR/run1.log"; check "stack resolves $KIP by ARP" $? "$(grep -m1 '^ARP' "$LOGDIR/run1.log")"
grep -q '^REFUSED ok' "$LOGDIR/run1.log"; check "connect to closed port refused" $? "$(grep -m1 '^REFUSED' "$LOGDIR/run1.log")"
grep -q "^ECHO ok: $BYTES bytes" "$LOGDIR/run1.log"; check "echo $BYTES bytes" $? "$(grep -m1 '^ECHO' "$LOGDIR/run1.log")"
grep -q '^CLOSE ok' "$LOGDIR/run1.log"; check "clean close" $? "$(grep -m1 '^CLOSE' "$LOGDIR/run1.log")"
grep -q " echoed $BYTES bytes, closed by client" "$LOGDIR/echo.log"
check "kernel side saw the whole stream and our FIN" $? "$(grep -m1 'echoed' "$LOGDIR/echo.log")"
[ "$PING_RC" -eq 0 ] && grep -q '5 packets transmitted, 5 received' "$LOGDIR/ping.log"
check "kernel ping -c 5 $SIP" $? "$(grep -m1 transmitted "$LOGDIR/ping.log")"
[ -z "$KSTATE" ]; check "no connection left in the kernel" $? "${KSTATE:-none}"
echo "$NEIGH" | grep -q 'lladdr 02:54:46'; check "kernel learned the stack's MAC" $? "${NEIGH:-none}"
grep -q ' arp_reply_out=[1-9]' "$LOGDIR/run1.log"
check "stack answered the kernel's ARP requests" $? "$(grep -oE 'arp_req_in=[0-9]+|arp_reply_out=[0-9]+' "$LOGDIR/run1.log" | tr '\n' ' ')"
[ "$RUN1_RC" -eq 0 ]; check "runner exit status" $? "$RUN1_RC"

# ---- run 2: restart, connect again at once (new random port and ISN) ----
"${NSX[@]}" timeout 90 "$BUILD/tap_host" --dev "$DEV" --ip "$SIP" --prefix 24 --gw "$KIP" --peer "$KIP" \
    --port "$PORT" --bytes 20000 --linger-ms 0 >"$LOGDIR/run2.log" 2>&1
RUN2_RC=$?
P1=$(sed -n 's/^TCP connected from local port \([0-9]*\).*/\1/p' "$LOGDIR/run1.log" | tail -1)
P2=$(sed -n 's/^TCP connected from local port \([0-9]*\).*/\1/p' "$LOGDIR/run2.log" | tail -1)
[ "$RUN2_RC" -eq 0 ] && [ -n "$P2" ] && [ "$P1" != "$P2" ]
check "restarted runner reconnects at once" $? "exit $RUN2_RC, ports $P1 then ${P2:-none}, $(grep -m1 '^ECHO' "$LOGDIR/run2.log")"

# ---- run 3: 5% of the frames dropped each way: retransmission, dup ACKs with SACK, out-of-order drops (the top) ----
# 300 s: a loaded machine once stalled this run past 50 s (RTO backoff after repeated losses; 16 s is usual)
T3=$SECONDS
"${NSX[@]}" timeout 310 "$BUILD/tap_host" --dev "$DEV" --ip "$SIP" --prefix 24 --gw "$KIP" --peer "$KIP" \
    --port "$PORT" --bytes 200000 --loss-pct "$LOSS" --timeout-ms 300000 --linger-ms 0 >"$LOGDIR/run3.log" 2>&1
RUN3_RC=$?
T3=$((SECONDS - T3))
[ "$RUN3_RC" -eq 0 ] && grep -q '^CLOSE ok' "$LOGDIR/run3.log"
check "200 KB echo with $LOSS% loss each way" $? "exit $RUN3_RC after $T3 s, $(grep -m1 '^ECHO' "$LOGDIR/run3.log"), \
$(grep -oE 'tcp_(retransmit|fast_retransmit|out_of_order|ooo_held|dup_data|sack_out)=[0-9]+' "$LOGDIR/run3.log" | tr '\n' ' ')"

if [ ${#FAILS[@]} -eq 0 ]; then
    say "PASS (ARP, ping, refused connect, ${BYTES}-byte echo, clean close, restart, $LOSS% loss)"
    exit 0
fi
KEEP_LOGS=1
# the logs go to stdout too: CI keeps only this output, not the machine's /tmp
for f in "$LOGDIR"/*.log; do
    echo "--- last lines of $(basename "$f") ---"; tail -15 "$f" | sed 's/^/  /'
done
say "FAIL (${FAILS[*]})"
exit 1
