#!/usr/bin/env bash
# sim/eth/test/test_tap.sh <build dir> - the plug-in against the Linux kernel through a TAP (root).
# Everything happens inside a private namespace tf-eth-<pid> (TAP tfeth0, kernel 10.88.0.1/24);
# eth_dev (the plug-in + a tiny device model at 10.88.0.2 on the GMII pins) attaches to the TAP.
#   1. kernel `ping -c 5 10.88.0.2`: ARP + ICMP through the TAP, the pins and back: 5 replies
#   2. a frame injected through the control channel (EtherType 0x88B5) reaches the device, which
#      echoes it; tcpdump on the TAP sees it byte-exact
#   3. the plug-in's pcap (tshark): ARP and 5 ICMP requests + 5 replies, ns time stamps increasing
#   4. `exit 7` on the control channel ends the program with 7; statistics show no bad FCS
# Prints one line per check and "RESULT passed=N failed=M". Cleans up (trap): processes by PID, namespace.
set -u
B=${1:?build dir}
NS="tf-eth-$$"
DEV=tfeth0
W=$(mktemp -d /tmp/tf-eth-tap.XXXXXX)
PIDS=()
PASS=0
FAIL=0
check() { if [ "$2" -eq 0 ]; then echo "  [ok] $1: $3"; PASS=$((PASS+1)); else echo "  [FAIL] $1: $3"; FAIL=$((FAIL+1)); fi; }
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    ip netns del "$NS" 2>/dev/null
    if [ "$FAIL" -eq 0 ] && [ "${KEEP_LOGS:-0}" != 1 ]; then rm -rf "$W"; else echo "  (logs in $W)"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "TAP: plug-in against the kernel in namespace $NS"
if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/net/tun ]; then
    echo "  [skip] the TAP checks need root and /dev/net/tun"; echo "RESULT passed=0 failed=0 skipped=1"; exit 0
fi
ip netns add "$NS" || { check "ip netns add" 1 ""; echo "RESULT passed=$PASS failed=$FAIL"; exit 1; }
NSX=(ip netns exec "$NS")
"${NSX[@]}" ip link set lo up
"${NSX[@]}" ip tuntap add dev "$DEV" mode tap
"${NSX[@]}" ip addr add 10.88.0.1/24 dev "$DEV"
"${NSX[@]}" ip link set "$DEV" up
"${NSX[@]}" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
"${NSX[@]}" sysctl -qw net.ipv6.conf.$DEV.disable_ipv6=1 2>/dev/null

"${NSX[@]}" tcpdump -i "$DEV" -w "$W/tcpdump.pcap" -U 'ether proto 0x88b5' >"$W/tcpdump.log" 2>&1 &
PIDS+=($!)
"${NSX[@]}" "$B/eth_dev" --ip 10.88.0.2 --seconds 60 +tap="$DEV" +pcap="$W/eth.pcap" +eth-ctl="$W/ctl" \
    +eth-frame-log="$W/frames.csv" >"$W/dev.out" 2>"$W/dev.err" &
DEVPID=$!
PIDS+=($DEVPID)
for _ in $(seq 50); do grep -q READY "$W/dev.out" && [ -p "$W/ctl" ] && break; sleep 0.1; done
grep -q READY "$W/dev.out"; check "eth_dev attaches to $DEV" $? "$(head -c 300 "$W/dev.err")"
for _ in $(seq 30); do grep -q listening "$W/tcpdump.log" && break; sleep 0.1; done
CARRIER=$("${NSX[@]}" ip link show "$DEV" | head -1)
echo "$CARRIER" | grep -qv NO-CARRIER; check "TAP has carrier while attached" $? "$CARRIER"

"${NSX[@]}" ping -c 5 -i 0.2 -W 2 10.88.0.2 >"$W/ping.log" 2>&1
grep -q '5 packets transmitted, 5 received' "$W/ping.log"
check "kernel ping -c 5 10.88.0.2 through the pins" $? "$(grep transmitted "$W/ping.log")"
NEIGH=$("${NSX[@]}" ip neigh show 10.88.0.2 dev "$DEV")
echo "$NEIGH" | grep -q 'lladdr 02:54:46:00:00:02'; check "kernel learned the device MAC by ARP" $? "$NEIGH"

# 0x88B5 frame injected towards the device (src 02:00:00:00:00:99), the device echoes it to the TAP
PAYLOAD="54524947474552464953482d4554482d54455354"   # "TRIGGERFISH-ETH-TEST"
echo "mark injecting" >"$W/ctl"
echo "inject 025446000002 020000000099 88b5 $PAYLOAD" >"$W/ctl"
for _ in $(seq 30); do
    [ "$(tcpdump -r "$W/tcpdump.pcap" 2>/dev/null | wc -l)" -ge 1 ] && break; sleep 0.1
done
sleep 0.3
HEX=$(tcpdump -r "$W/tcpdump.pcap" -xx 2>/dev/null | grep -E '^\s+0x' | sed 's/^\s*0x[0-9a-f]*:\s*//' | tr -d ' \n')
WANT="020000000099025446000002""88b5""$PAYLOAD"
case "$HEX" in "$WANT"*) R=0 ;; *) R=1 ;; esac
check "injected frame echoed by the device, seen by tcpdump on the TAP" $R "${HEX:0:80}..."
grep -q 'ctl: inject: 34 bytes queued as rx#' "$W/dev.err"; check "inject logged with the simulated time" $? "$(grep -m1 'ctl: inject' "$W/dev.err")"

echo "exit 7" >"$W/ctl"
wait "$DEVPID"; RC=$?
check "control 'exit 7' ends the run with 7" $([ "$RC" -eq 7 ]; echo $?) "rc $RC"
sed 's/^/    /' "$W/dev.out"
grep -q 'BAD FCS 0,' "$W/dev.out" && grep -q 'bad_fcs_in=0' "$W/dev.out"
check "no bad FCS either way" $? "$(grep -o 'bad_fcs_in=[0-9]*' "$W/dev.out")"

# the plug-in's pcap
REQ=$(tshark -r "$W/eth.pcap" -Y 'icmp.type==8' 2>/dev/null | wc -l)
REP=$(tshark -r "$W/eth.pcap" -Y 'icmp.type==0' 2>/dev/null | wc -l)
ARP=$(tshark -r "$W/eth.pcap" -Y 'arp' 2>/dev/null | wc -l)
check "pcap (tshark): ICMP requests/replies and ARP" $([ "$REQ" -eq 5 ] && [ "$REP" -eq 5 ] && [ "$ARP" -ge 2 ]; echo $?) \
    "requests $REQ, replies $REP, arp $ARP"
TS=$(tshark -r "$W/eth.pcap" -T fields -e frame.time_epoch 2>/dev/null)
SORTED=$(echo "$TS" | sort -n)
N=$(echo "$TS" | grep -c .)
CSVN=$(($(wc -l <"$W/frames.csv") - 1))
[ "$TS" = "$SORTED" ] && [ "$N" -ge 14 ] && [ "$N" -eq "$CSVN" ] && echo "$TS" | head -1 | grep -qE '^0\.[0-9]{9}$'
check "pcap time stamps: simulated ns, in order, one per frame log line" $? "$N frames, first $(echo "$TS" | head -1), frame log $CSVN"
# pcap time stamp = frame log sof_ns
F1=$(sed -n 2p "$W/frames.csv" | cut -d, -f3)
T1=$(echo "$TS" | head -1 | tr -d '.' | sed 's/^0*//')
check "first pcap time stamp = frame log sof_ns" $([ "$F1" = "$T1" ]; echo $?) "$F1 vs $T1"

echo "RESULT passed=$PASS failed=$FAIL"
[ "$FAIL" -eq 0 ]
