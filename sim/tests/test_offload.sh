#!/usr/bin/env bash
# Whole-SoC stop-order offload test: the hardware fires orders on the live FIX session with the QuickFIX/J
# exchange (TAP in a private namespace), and the session goes on with consistent numbers.
#  1. Four hardware stops are armed: a buy and a sell that the scripted market crosses, a buy on a symbol
#     that never trades and a buy far above the market (these two must never fire).
#  2. The hardware fires the two crossed stops; the exchange accepts both orders and fills them.
#  3. The harness drops the next order frame on the wire; a third stop fires, the firmware's TCP
#     retransmits the adopted bytes and the exchange receives that order exactly once.
#  4. A firmware order from the console after the fires takes the next MsgSeqNum; then `fix stop`.
# Checked on the exchange's own message log: every order from the SoC accepted (no 35=3/35=j, no Reject
# execution report), no ResendRequest, no Logout but the SoC's, the SoC's MsgSeqNums without a gap, each
# ClOrdID once. The hardware orders' latencies come from the pcap (tools/latency/analyze.py): EOF2SOF exactly
# 13 cycles and T2T exactly 32 for every fire (pinned figures; DESIGN.md's target is EOF2SOF at most 16).
set -u
cd "$(dirname "$0")/../.."
source sim/tests/lib.sh
if [ "$(id -u)" -ne 0 ]; then echo "skip offload (needs root for a network namespace)"; exit 77; fi
NAME=offload
PY=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}/bin/python
[ -x "$PY" ] || PY=python3
cleanup() { exch_stop; soc_netns_stop; }
fail() {
  echo "FAIL offload: $*"
  echo "---- console ($SOC_LOG):"; grep -v '^md:' "$SOC_LOG" | tail -30 | sed 's/^/  | /'
  [ -n "${EXCH_OUT:-}" ] && { echo "---- exchange ($EXCH_OUT):"; tail -10 "$EXCH_OUT" | sed 's/^/  | /'; }
  cleanup; exit 1
}
trap cleanup EXIT
[ -f "$EXCHANGE_JAR" ] || fail "no exchange jar ($EXCHANGE_JAR): make $EXCHANGE_JAR"
rm -rf "build/sim/tests/$NAME-exchange"
FRAMES=build/sim/tests/$NAME.frames
SOC_TIMEOUT=4000000000 soc_netns_start "$NAME" +eth-frame-log="$FRAMES" || fail "could not start the SoC"
exch_start "$NAME" --path sim/tests/offload.path --loop --wait-subscriber || fail "could not start the exchange"
count() { grep -cE "$1" "$SOC_LOG"; }

soc_console "utc set $(date -u +%Y%m%d-%H:%M:%S.%3N)"
soc_console "fix set heartbeat 5"   # the simulator may run slower than wall time: keep the exchange's timers fed
soc_console "fix start"
soc_wait_for 'fix: logged on' 60 || fail "no logon"
soc_wait_for 'fix: subscribed to market data for MSFT' 10 || fail "no market data subscription"

# 1. Hardware stops
soc_console "stop buy MSFT 100 100.10 100.40"
soc_console "stop sell MSFT 100 99.60 99.30"
soc_console "stop buy AAPL 100 1.00 2.00"
soc_console "stop buy MSFT 100 150.00 150.50"
for i in 0 1 2 3; do
  soc_wait_for "stop $i: in the hardware trigger table" 20 || fail "stop $i was not loaded into the hardware"
done

# 2. The market crosses stops 0 and 1
soc_wait_for 'stop 0: fired by hardware' 60 || fail "stop 0 did not fire"
soc_wait_for 'stop 1: fired by hardware' 60 || fail "stop 1 did not fire"
soc_wait_for 'exec: order [0-9]+ .* fill 100 @ 100\.[0-9]+.*filled' 30 || fail "the buy stop's order was not filled"
soc_wait_for 'exec: order [0-9]+ .* fill 100 @ 99\.[0-9]+.*filled' 30 || fail "the sell stop's order was not filled"

# 3. The next order frame is lost on the wire
[ -p "$SOC_CTL" ] || fail "no harness control channel"
soc_ctl "drop-tx-match 1 35=D" || fail "could not write to the harness's control channel"
soc_console "stop buy MSFT 200 100.10 100.40"
soc_wait_for 'stop 4: in the hardware trigger table' 20 || fail "stop 4 was not loaded"
soc_wait_for 'stop 4: fired by hardware' 60 || fail "stop 4 did not fire"
soc_wait_for 'dropped by drop-tx-match' 10 || fail "the harness did not drop the order frame"
soc_wait_for 'exec: order [0-9]+ .* buy MSFT fill .*filled \(cum 200, leaves 0\)' 60 || fail "the retransmitted order was not filled"

# 4. A firmware order after the hardware ones, then the end of the session
soc_console "buy MSFT 10 90.00"
soc_wait_for 'exec: order [0-9]+ .* new ' 30 || fail "no New for the firmware order after the hardware fires"
soc_console "stops"
soc_wait_for 'fired by firmware 0, by hardware 3' 10 || fail "the stop table does not show three hardware fires"
# the listing is one machine-protocol "stop" event per stop (docs/PROTOCOL.md)
grep -qE '"ev":"stop",.*"stop":2,"state":"armed","side":"buy","sym":"AAPL",.*"hw":true' "$SOC_LOG" || fail "stop 2 (AAPL, never traded) is not armed any more"
grep -qE '"ev":"stop",.*"stop":3,"state":"armed","side":"buy","sym":"MSFT",.*"hw":true' "$SOC_LOG" || fail "stop 3 (above the market) is not armed any more"
soc_console "offload"
soc_wait_for 'offload: orders sent by hardware 3, triggered but not sent 0, errors 0' 10 || fail "offload counters"
soc_console "fix stop"
soc_wait_for 'fix: logged out' 30 || fail "no Logout answer"
soc_wait_for "fix: connection (closed|reset by the peer); stopped" 30 || fail "the TCP connection did not end after the Logout"
soc_console "info"
soc_wait_for 'stack: [0-9]+ of' 10

# The exchange's log
msgs=build/sim/tests/$NAME.msgs
fix_msgs "$EXCH_MSGLOG" > "$msgs"
rej=$(grep -cE '\|35=(3|j)\|.*\|49=EXCH\|' "$msgs")
[ "$rej" -eq 0 ] || fail "exchange log: $rej Reject(s) sent to the SoC: $(grep -E '\|35=(3|j)\|.*\|49=EXCH\|' "$msgs" | head -2)"
orejects=$(grep -E '\|35=8\|.*\|49=EXCH\|' "$msgs" | grep -c '|39=8|')
[ "$orejects" -eq 0 ] || fail "exchange log: $orejects order(s) rejected"
resends=$(grep -c '|35=2|.*|49=EXCH|' "$msgs")
[ "$resends" -eq 0 ] || fail "exchange log: $resends ResendRequest(s) to the SoC"
lo=$(grep -E '\|35=5\|' "$msgs" | sed 's/.*|49=\([A-Z0-9]*\)|.*/\1/' | tr '\n' ' ')
[ "$lo" = "TFISH1 EXCH " ] || fail "exchange log: Logouts '$lo' (want the SoC's, then the answer)"
seqcheck=$(python3 sim/tests/seqnums.py "$EXCH_MSGLOG" TFISH1) || fail "exchange log: the SoC's MsgSeqNums are not continuous: $seqcheck"
ids=$(grep '|35=D|.*|49=TFISH1|' "$msgs" | sed 's/.*|11=\([^|]*\)|.*/\1/')
n_d=$(echo "$ids" | grep -c .); n_ids=$(echo "$ids" | sort -u | grep -c .)
[ "$n_d" -eq 4 ] && [ "$n_ids" -eq 4 ] || fail "exchange log: $n_d orders with $n_ids ClOrdIDs (want 4 and 4: 3 hardware, 1 firmware, each once)"
fills=$(grep -E '\|35=8\|.*\|49=EXCH\|' "$msgs" | grep -c '|39=2|')
[ "$fills" -ge 3 ] || fail "exchange log: $fills fills (want the 3 hardware orders filled)"
grep -q 'dropped by drop-tx-match' "$SOC_LOG" || fail "no frame dropped"

# Latency of the hardware orders from the capture
soc_netns_stop
stops_json=build/sim/tests/$NAME.stops.json
# stops are one-shot per arm: stop 4 is a second buy stop at 100.10, armed after stop 1's order went out
sell_id=$(sed -n 's/.*stop 1: fired by hardware on trade .*: order \([0-9]* \)\{0,1\}\([^ ]*\) sent.*/\2/p' "$SOC_LOG" | head -1)
echo '[{"symbol":"MSFT","side":"buy","stop":"100.10"},{"symbol":"MSFT","side":"sell","stop":"99.60"},'\
"{\"symbol\":\"MSFT\",\"side\":\"buy\",\"stop\":\"100.10\",\"armed_after\":\"$sell_id\"}]" > "$stops_json"
fires=build/sim/tests/$NAME.fires.csv   # ClOrdIDs the console reported as sent by hardware
sed -n 's/.*fired by hardware on trade .*: order \([0-9]* \)\{0,1\}\([^ ]*\) sent.*/\2,hw/p' "$SOC_LOG" > "$fires"
lat=build/sim/tests/$NAME.latency.json
"$PY" tools/latency/analyze.py --pcap "$SOC_PCAP" --frames "$FRAMES" --stops "$stops_json" --fires "$fires" --console "$SOC_LOG" --json "$lat" --quiet \
  > build/sim/tests/$NAME.latency.txt || fail "analyze.py failed: $(tail -3 build/sim/tests/$NAME.latency.txt)"
! grep -q 'bad TCP checksum' build/sim/tests/$NAME.latency.txt || fail "the capture has frames with a bad TCP checksum: $(grep 'bad TCP checksum' build/sim/tests/$NAME.latency.txt)"
retx=$(sed -n 's/.* \([0-9]*\) retransmitted TX segment(s) ignored.*/\1/p' build/sim/tests/$NAME.latency.txt)
[ "${retx:-0}" -ge 1 ] || fail "no TCP retransmission in the capture, but an order frame was dropped"
read -r n e_min e_max t_min t_max s_min s_max disagree < <("$PY" - "$lat" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["hw"]
print(r["eof2sof"]["count"], r["eof2sof"]["cycles"]["min"], r["eof2sof"]["cycles"]["max"], r["t2t"]["cycles"]["min"],
      r["t2t"]["cycles"]["max"], r["sof2sof"]["cycles"]["min"], r["sof2sof"]["cycles"]["max"], r["disagrees_with_fire_log"])
PY
)
# every order's trigger (the first crossing trade after its stop was armed) is the one the engine's fire log names
[ "${disagree:-1}" -eq 0 ] || fail "latency: $disagree hardware order(s) paired with another trade than the fire log's: $(grep -i disagree build/sim/tests/$NAME.latency.txt | head -3)"
# the firmware's order (a console order, no stop) has no trigger; the 3 hardware orders have one
[ "${n:-0}" -eq 3 ] || fail "latency: $n hardware orders with a trigger in the capture (want 3)"
# Exact figures, measured at this hardware (one message per segment, the trade entry last): a change in the
# datapath's latency must be a deliberate edit here. EOF2SOF 13 = the DESIGN.md target of at most 16 met.
EXPECT_EOF2SOF=13
EXPECT_T2T=32
[ "$e_min" -eq $EXPECT_EOF2SOF ] && [ "$e_max" -eq $EXPECT_EOF2SOF ] || fail "latency: hardware EOF2SOF $e_min..$e_max cycles (expected exactly $EXPECT_EOF2SOF)"
[ "$t_min" -eq $EXPECT_T2T ] && [ "$t_max" -eq $EXPECT_T2T ] || fail "latency: hardware T2T $t_min..$t_max cycles (expected exactly $EXPECT_T2T)"
stack=$(grep -o 'stack: [0-9]* of [0-9]* bytes' "$SOC_LOG" | tail -1)
echo "   | exchange log: 4 orders (3 from hardware, one of them retransmitted by TCP after a drop; $retx TCP retransmission(s) in the capture), $fills fills, 0 Rejects, 0 ResendRequests, MsgSeqNums without gaps"
echo "   | hardware orders: EOF2SOF $e_min..$e_max cycles, T2T $t_min..$t_max, SOF2SOF $s_min..$s_max (125 MHz Ethernet cycles); $stack"
echo "ok offload (3 hardware fires accepted and filled, 2 stops that must not fire did not, a dropped order frame retransmitted once, firmware order after them)"
