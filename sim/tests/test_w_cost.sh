#!/usr/bin/env bash
# Whole-SoC measurement of the firmware's 35=W receive path, in sys clock cycles (cycle-accurate: the SoC's
# cycle counter read by the firmware). The QuickFIX/J exchange sends 60 steps of market data, each one 35=W
# with bid, offer and trade (about 180 bytes), one per TCP segment (--step-sync); the firmware times each one
# from the cycle it takes the frame's receive slot (netif_poll) to the entry of its market data callback and
# shows count / min / avg / max and a histogram in `fix status`. This test checks that the figure is there and
# consistent with what the exchange sent, and prints it. W_COST_MAX=<cycles> also fails the test when the
# average for the 170-190-byte W is above it (the target of issue 15 is 4500).
set -u
cd "$(dirname "$0")/../.."
source sim/tests/lib.sh
if [ "$(id -u)" -ne 0 ]; then echo "skip w-cost (needs root for a network namespace)"; exit 77; fi
NAME=w-cost
STEPS=60
cleanup() { exch_stop; soc_netns_stop; }
fail() {
  echo "FAIL w-cost: $*"
  echo "---- console ($SOC_LOG):"; grep -v '^md:' "$SOC_LOG" | tail -15 | sed 's/^/  | /'
  [ -n "${EXCH_OUT:-}" ] && { echo "---- exchange ($EXCH_OUT):"; tail -5 "$EXCH_OUT" | sed 's/^/  | /'; }
  cleanup; exit 1
}
trap cleanup EXIT
[ -f "$EXCHANGE_JAR" ] || fail "no exchange jar ($EXCHANGE_JAR): make $EXCHANGE_JAR"
rm -rf "build/sim/tests/$NAME-exchange"
SOC_TIMEOUT=4000000000 soc_netns_start "$NAME" || fail "could not start the SoC"
exch_start "$NAME" --path sim/tests/w_cost.path --wait-subscriber --step-sync || fail "could not start the exchange"

soc_console "utc set $(date -u +%Y%m%d-%H:%M:%S.%3N)"
soc_console "fix set heartbeat 30"
soc_console "fix start"
soc_wait_for '^(tf> )?fix: logged on' 60 || fail "no logon"
soc_wait_for '^(tf> )?fix: subscribed to market data for MSFT' 10 || fail "no market data subscription"
# The path is done when the exchange has sent its last step's TestRequest and the SoC answered it.
TF_STEP="waiting for the $STEPS steps of market data"
for i in $(seq 1 1200); do
  [ -f "$EXCH_MSGLOG" ] && [ "$(fix_msgs "$EXCH_MSGLOG" | grep -c '|35=0|.*|49=TFISH1|.*|112=STEP-')" -ge "$STEPS" ] && break
  sleep 0.5
done
msgs=build/sim/tests/$NAME.msgs
fix_msgs "$EXCH_MSGLOG" > "$msgs"
w_sent=$(grep -c '|35=W|.*|49=EXCH|' "$msgs")
[ "$w_sent" -gt "$STEPS" ] || fail "the exchange sent $w_sent 35=W, want more than $STEPS (the snapshot and the steps)"
# FIX message lengths of the W sent (the log line without its timestamp prefix), for the report
lens=$(grep '|35=W|.*|49=EXCH|' "$msgs" | sed 's/^[^ ]* //' | awk '{ print length($0) }' | sort -n | uniq -c | awk '{ printf "%s x %d B, ", $1, $2 }')
soc_console "fix"
soc_wait_for 'W 170-190 B cost' 20 || fail "no 35=W cost for 170-190-byte messages in fix status"
line=$(grep -o 'W 170-190 B cost.*' "$SOC_LOG" | tail -1)
all=$(grep -o 'W all cost.*' "$SOC_LOG" | tail -1)
read -r n mn avg mx <<< "$(echo "$line" | sed -n 's/.*min \([0-9]*\) \/ avg \([0-9]*\) \/ max \([0-9]*\) cycles over \([0-9]*\);.*/\4 \1 \2 \3/p')"
[ -n "${n:-}" ] || fail "cannot read the figure: '$line'"
# Each measured W is one the exchange sent: at most as many as it sent, and most of the steps (a step whose W
# shared a segment with another message is not measured).
[ "$n" -le "$w_sent" ] || fail "$n 35=W measured, more than the $w_sent the exchange sent"
[ "$n" -ge $((STEPS * 3 / 4)) ] || fail "only $n of the $STEPS steps' 35=W were measured"
# A cycle per byte is a floor no receive path can beat (the frame is copied out of the MAC's slot at least once).
[ "$mn" -ge 180 ] && [ "$mn" -le "$avg" ] && [ "$avg" -le "$mx" ] || fail "inconsistent figures: $line"
if [ -n "${W_COST_MAX:-}" ] && [ "$avg" -gt "$W_COST_MAX" ]; then fail "average $avg cycles per 170-190-byte 35=W, above W_COST_MAX=$W_COST_MAX"; fi
soc_console "info"
soc_wait_for 'stack: [0-9]+ of' 10
stack=$(grep -o 'stack: [0-9]* of [0-9]* bytes' "$SOC_LOG" | tail -1)
echo "   | exchange sent $w_sent 35=W: ${lens%, }"
echo "   | firmware, every 35=W alone in its frame: ${all#*frame): }"
echo "   | firmware, 35=W of 170-190 bytes: ${line#*frame): }"
echo "   | $stack"
echo "ok w-cost ($n 35=W of 170-190 bytes, receive slot to callback: min $mn / avg $avg / max $mx cycles)"
