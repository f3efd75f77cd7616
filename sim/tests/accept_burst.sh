#!/usr/bin/env bash
# Acceptance test of issue 15 ("The hardware owns the wire"), its "Done when" bullet: a whole-SoC test sends a
# 2,000-W burst through the QuickFIX/J exchange with stops armed: the session stays up, the stops crossed inside
# the burst fire once each and are filled, the exchange's log shows no Reject, no ResendRequest, no gap, no Logout
# but the final one.
#
# NOT in `make test` (run.sh's default list is test_*.sh) until issue 15's redesign lands; then rename it
# test_burst.sh. Run it explicitly:  sim/tests/run.sh burst   (or bash sim/tests/accept_burst.sh)
# Issue 15 expected today's design to fail it (a 1,000-W burst killed the session). On the design of commit 49e6e24
# (2026-11-25, 2 loaded vCPUs, 15 to 35 minutes a run) it passed twice: 2,000 W acknowledged and digested, the four
# stops fired once each (T2T 410 to 1,306 cycles: each waits for the end of its full segment) and filled, no Reject,
# ResendRequest, gap or early Logout, the TestRequest after the last W answered 0.78 to 0.85 s (simulated) after the
# burst was written, 2.6 to 2.8 s at the boards' clock. The session deaths come from the exchange's wall-clock checks against a SoC simulated about
# 1,000 times slower than real time: with BURST_STOCK_EXCHANGE=1 they end it (a 200-W burst: "SendingTime accuracy
# problem" after two minutes of wall time). What the test does not check, and today's design does not meet: the
# issue's measured targets (100,000 W/s at the boards' clock: 2,350 here; 0 RX drops: 11 in 1,000 coalesced W).
#
#  1. The SoC (TAP in a private namespace: the kernel's TCP) logs on (HeartBtInt 30 s) and four one-shot hardware
#     stops are armed: buy 100.10, sell 99.90, buy 100.20, sell 99.80 (tools/bench/burst.py STOPS).
#  2. The exchange is told `burst 2000 coalesced ...` on its control FIFO (tools/exchange/README.md): 2,000 35=W
#     written at once with Nagle on, so the kernel sends full segments; messages 20, 500, 1000 and 1500 trade at
#     100.15, 99.85, 100.25 and 99.75, each crossing exactly one stop not yet fired; every other one trades at
#     99.99 or 100.01 (bid 99.95, ask 100.05, where the exchange rests liquidity so the orders fill); a TestRequest
#     follows message 1000.
#  3. Waits until the exchange says every burst byte was acknowledged (BURST ACKED), or the session ended.
# Checks (every one is run and reported; the test fails if any fails):
#  - session: the exchange wrote all 2,000 and the SoC acknowledged them, the exchange did not log the SoC out,
#    the burst's TestRequest was answered, and the console says the session is active after the burst;
#  - stops: each of the four fired once (by hardware) and its order was filled (the exchange's FILL lines), and
#    analyze.py pairs each order with a burst message that crossed its stop;
#  - the exchange's log: no Reject (35=3, 35=j, 39=8), no ResendRequest (35=2) either way, no gap in either side's
#    MsgSeqNums (sim/tests/seqnums.py), and the only Logouts are the SoC's final one and its answer.
#  - liveness (issue 15: "a burst cannot make the session miss its HeartBtInt"): the TestRequests sent after the
#    middle and the last burst message are answered, each within HeartBtInt (30 s) of simulated time at the boards'
#    37.5 MHz sys clock (the delay in 125 MHz simulated time x 125 / 37.5: same cycles), from the capture: from the
#    burst's first byte on the wire (the exchange wrote the whole burst and its TestRequests then) to the Heartbeat.
# The exchange runs with CheckLatency=N and its heartbeat timers 1,000 times longer (as tools/bench/burst.py's): the
# SoC's clock, set once from the host, runs in simulated time, 100 to 1,000 times slower than the exchange's wall
# clock, so QuickFIX/J's SendingTime check and heartbeat timeout would end the session on the simulator's speed, not
# the SoC's. Liveness is judged in simulated time instead (above). BURST_STOCK_EXCHANGE=1 runs the exchange with its
# own settings, wall-clock timers and all (BURST_MESSAGES=N sets the burst's size, BURST_WAIT_S the wait for its end).
set -u
cd "$(dirname "$0")/../.."
source sim/tests/lib.sh
if [ "$(id -u)" -ne 0 ]; then echo "skip burst (needs root for a network namespace)"; exit 77; fi
NAME=burst
N=${BURST_MESSAGES:-2000}
WAIT_S=${BURST_WAIT_S:-3000}
PY=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}/bin/python
[ -x "$PY" ] || PY=python3
cleanup() { exch_stop; soc_netns_stop; }
trap cleanup EXIT
problems=()
problem() { problems+=("$*"); echo "   | FAILED CHECK: $*"; }
abort() {
  echo "FAIL burst: $*"
  echo "---- console ($SOC_LOG):"; grep -v '^md:' "$SOC_LOG" | tail -30 | sed 's/^/  | /'
  [ -n "${EXCH_OUT:-}" ] && { echo "---- exchange ($EXCH_OUT):"; tail -10 "$EXCH_OUT" | sed 's/^/  | /'; }
  cleanup; exit 1
}
[ -f "$EXCHANGE_JAR" ] || abort "no exchange jar ($EXCHANGE_JAR): make $EXCHANGE_JAR"
rm -rf "build/sim/tests/$NAME-exchange"
mkdir -p "build/sim/tests/$NAME-exchange"
CFG=build/sim/tests/$NAME-exchange/exchange.cfg
if [ -n "${BURST_STOCK_EXCHANGE:-}" ]; then   # the exchange's own wall-clock timers, to see what they do to a simulation
  cp tools/exchange/exchange.cfg "$CFG"
else
  sed 's/^CheckLatency=Y$/CheckLatency=N\nTestRequestDelayMultiplier=1000\nHeartBeatTimeoutMultiplier=1000/' tools/exchange/exchange.cfg > "$CFG"
  grep -q '^HeartBeatTimeoutMultiplier=1000$' "$CFG" || abort "could not set the simulation's timers in $CFG"
fi
CTL=build/sim/tests/$NAME-exchange/control.fifo
mkfifo "$CTL" || abort "could not make $CTL"
FRAMES=build/sim/tests/$NAME.frames
SOC_TIMEOUT=40000000000 soc_netns_start "$NAME" +eth-frame-log="$FRAMES" || abort "could not start the SoC"
exch_start "$NAME" --settings "$CFG" --control "$CTL" || abort "could not start the exchange"
exch_ctl() { timeout 10 bash -c 'printf "%s\n" "$2" > "$1"' _ "$CTL" "$1" || abort "the exchange did not read its control FIFO"; }

soc_console "utc set $(date -u +%Y%m%d-%H:%M:%S.%3N)"
soc_console "fix set heartbeat 30"
soc_console "fix start"
soc_wait_for 'fix: logged on' 120 || abort "no logon"
soc_wait_for 'fix: subscribed to market data for MSFT' 60 || abort "no market data subscription"

# 1. four one-shot hardware stops
soc_console "stop mode hw"
soc_console "stop buy MSFT 100 100.10 100.40"
soc_console "stop sell MSFT 100 99.90 99.60"
soc_console "stop buy MSFT 100 100.20 100.50"
soc_console "stop sell MSFT 100 99.80 99.50"
for i in 0 1 2 3; do
  soc_wait_for "stop $i: in the hardware trigger table" 60 || abort "stop $i was not loaded into the hardware"
done
soc_console "fix"
soc_wait_for 'fix: connects .*market data' 30 || abort "no answer to fix"
md_before=$(sed -n 's/.*fix: connects .*, market data \([0-9]*\),.*/\1/p' "$SOC_LOG" | tail -1)

# 2. the burst
C1=$((N / 100)); C2=$((N / 4)); C3=$((N / 2)); C4=$((N * 3 / 4))
exch_ctl "burst $N coalesced symbol=MSFT bid=99.95 ask=100.05 cross=$C1:100.15,$C2:99.85,$C3:100.25,$C4:99.75 testreq=$C3,$N"
TF_STEP="waiting up to $WAIT_S s for the exchange's BURST ACKED (or the end of the session)"
start=$SECONDS
while [ $((SECONDS - start)) -lt "$WAIT_S" ]; do
  grep -qE '^BURST (ACKED|LOST|ABORTED|ERROR)|^LOGOUT TFISH1|^CONTROL ERROR' "$EXCH_OUT" && break
  kill -0 "$SOC_PID" 2>/dev/null || abort "the simulation ended during the burst"
  sleep 1
done
sleep 2
echo "   | after $((SECONDS - start)) s: $(grep -E '^BURST (SENT|ACKED|LOST|ABORTED|HEARTBEAT)|^LOGOUT|^CONTROL ERROR' "$EXCH_OUT" | tr '\n' ';')"
grep -q "^BURST SENT n=$N " "$EXCH_OUT" || problem "the exchange did not write all $N W: $(grep -E '^BURST (ABORTED|ERROR)|^CONTROL ERROR' "$EXCH_OUT" | head -1)"
grep -q "^BURST ACKED n=$N " "$EXCH_OUT" || problem "the SoC did not acknowledge the burst: $(grep -E '^BURST (LOST|ABORTED)' "$EXCH_OUT" | head -1)"
grep -q "^LOGOUT TFISH1" "$EXCH_OUT" && problem "the exchange ended the session during the burst"
for k in $C3 $N; do
  grep -q "^BURST HEARTBEAT id=BURST-TR-$k " "$EXCH_OUT" || problem "the burst's TestRequest after message $k got no Heartbeat"
done
seen=$(grep -c 'fix: connects .*market data' "$SOC_LOG")
soc_console "fix"
TF_STEP="waiting for the console's answer to fix after the burst"
for i in $(seq 1 600); do [ "$(grep -c 'fix: connects .*market data' "$SOC_LOG")" -gt "$seen" ] && break; sleep 0.1; done
status=$(grep -E 'fix: client [a-z ]+, session' "$SOC_LOG" | tail -1)
case $status in *"session active"*) ;; *) problem "the SoC's session after the burst: '$status'" ;; esac
md_after=$(sed -n 's/.*fix: connects .*, market data \([0-9]*\),.*/\1/p' "$SOC_LOG" | tail -1)
digested=$(( ${md_after:-0} - ${md_before:-0} ))
[ "$digested" -ge "$N" ] || problem "the firmware digested $digested of the $N W"
grep -qE 'fix: (gap detected|disconnecting|rejected a message)' "$SOC_LOG" && problem "console: $(grep -E 'fix: (gap detected|disconnecting|rejected a message)' "$SOC_LOG" | head -2 | tr '\n' ';')"

# stops: each fired once and was filled
for i in 0 1 2 3; do
  n=$(grep -c "stop $i: fired by hardware" "$SOC_LOG")
  [ "$n" -eq 1 ] || problem "stop $i fired by hardware $n times (want once)"
  id=$(sed -n "s/.*stop $i: fired by hardware on trade .*: order \([0-9]* \)\{0,1\}\([^ ]*\) sent.*/\2/p" "$SOC_LOG" | head -1)
  [ -n "$id" ] && { grep -qE "^FILL MSFT 100 @ .*TFISH1/$id( |$)" "$EXCH_OUT" || problem "stop $i's order $id was not filled"; }
done
soc_console "fix stop"
soc_wait_for "fix: connection (closed|reset by the peer); stopped|fix: stopped" 120 || problem "the session did not end after fix stop"

# the exchange's log
msgs=build/sim/tests/$NAME.msgs
fix_msgs "$EXCH_MSGLOG" > "$msgs"
rej=$(grep -cE '\|35=(3|j)\|' "$msgs")
[ "$rej" -eq 0 ] || problem "exchange log: $rej Reject(s): $(grep -E '\|35=(3|j)\|' "$msgs" | head -1 | cut -c1-200)"
orej=$(grep -E '\|35=8\|.*\|49=EXCH\|' "$msgs" | grep -c '|39=8|')
[ "$orej" -eq 0 ] || problem "exchange log: $orej order(s) rejected"
rr=$(grep -c '|35=2|' "$msgs")
[ "$rr" -eq 0 ] || problem "exchange log: $rr ResendRequest(s): $(grep '|35=2|' "$msgs" | head -1 | cut -c1-160)"
for side in TFISH1 EXCH; do
  s=$(python3 sim/tests/seqnums.py "$EXCH_MSGLOG" "$side") || problem "exchange log: $side's MsgSeqNums: $s"
done
lo=$(grep -E '\|35=5\|' "$msgs" | sed 's/.*|49=\([A-Z0-9]*\)|.*/\1/' | tr '\n' ' ')
[ "$lo" = "TFISH1 EXCH " ] || problem "exchange log: Logouts '$lo' (want only the SoC's final one, then the answer): $(grep -E '\|35=5\|.*\|49=EXCH\|' "$msgs" | head -1 | sed 's/.*|58=\([^|]*\)|.*/\1/')"

# the fires' triggers, from the capture
soc_netns_stop
stops_json=build/sim/tests/$NAME.stops.json
echo '[{"symbol":"MSFT","side":"buy","stop":"100.10"},{"symbol":"MSFT","side":"sell","stop":"99.90"},{"symbol":"MSFT","side":"buy","stop":"100.20"},{"symbol":"MSFT","side":"sell","stop":"99.80"}]' > "$stops_json"
lat=build/sim/tests/$NAME.latency.json
if "$PY" tools/latency/analyze.py --pcap "$SOC_PCAP" --frames "$FRAMES" --stops "$stops_json" --console "$SOC_LOG" --json "$lat" --quiet \
     > build/sim/tests/$NAME.latency.txt 2>&1; then
  read -r paired t2t < <("$PY" - "$lat" <<'PY'
import json, sys
o = [r for r in json.load(open(sys.argv[1]))["orders"] if r.get("trigger_price") in ("100.15", "99.85", "100.25", "99.75")]
print(len(o), ",".join(str(r["t2t_cycles"]) for r in o) or "-")
PY
)
  [ "${paired:-0}" -eq 4 ] || problem "analyze.py pairs ${paired:-0} orders with a crossing burst message (want 4)"
  echo "   | fires' T2T (cycles, 125 MHz Ethernet clock): $t2t"
else
  problem "analyze.py failed: $(tail -2 build/sim/tests/$NAME.latency.txt)"
fi
# the delay the exchange sees, in simulated time: the burst was written at once, so each TestRequest was in the
# exchange's kernel when the burst's first byte went out (tools/bench/burst.py capture_figures)
live=$("$PY" - "$SOC_PCAP" "$FRAMES" "$C3" "$N" "$EXCH_OUT" <<'PY'
import os, sys
sys.path.insert(0, os.path.join("tools", "bench"))
import burst, analyze
sent = burst.parse_exchange(open(sys.argv[5]).read().splitlines())["sent"] or {}
frames, _ = burst.load_frames(sys.argv[1], sys.argv[2])
cap = analyze.Capture(frames, analyze.Warnings())
f = burst.capture_figures(cap, sent.get("first_seq", -1), sent.get("last_seq", -1), burst.sim_sys_mhz(), written_at_once=True)
for t in f["testreqs"]:
    if t["id"] in (f"BURST-TR-{sys.argv[3]}", f"BURST-TR-{sys.argv[4]}"):
        d = t["exchange_delay_ms"]
        board = None if d is None else d * burst.sim_sys_mhz() / burst.BOARD_MHZ
        print(t["id"], "unanswered" if d is None else f"{d:.3f}", "-" if board is None else f"{board:.3f}")
PY
) || problem "could not read the TestRequest delays from the capture"
echo "   | TestRequest written -> Heartbeat, simulated (ms at 125 MHz, ms at the boards' 37.5 MHz): $(echo "$live" | tr '\n' ';')"
for k in $C3 $N; do
  row=$(echo "$live" | grep "^BURST-TR-$k ")
  case $row in
    "") problem "the TestRequest after message $k is not in the capture" ;;
    *unanswered*) problem "the TestRequest after message $k was not answered (capture)" ;;
    *) awk -v b="$(echo "$row" | cut -d' ' -f3)" 'BEGIN { exit !(b <= 30000) }' \
         || problem "the TestRequest after message $k waited $(echo "$row" | cut -d' ' -f3) ms at the boards' clock: more than HeartBtInt 30 s" ;;
  esac
done
echo "   | the firmware digested $digested of $N W; console: $(grep -E 'fix: (disconnecting|connection)' "$SOC_LOG" | head -2 | tr '\n' ';')"
if [ ${#problems[@]} -gt 0 ]; then
  echo "FAIL burst: ${#problems[@]} check(s) failed (issue 15's acceptance test; today's design is expected to fail it): ${problems[0]}"
  exit 1
fi
echo "ok burst ($N W through the exchange with four hardware stops armed: session kept, each stop fired once and filled, no Reject, ResendRequest, gap or early Logout)"
