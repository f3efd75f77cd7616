#!/usr/bin/env bash
# Whole-SoC FIX test: the firmware's TCP and FIX 4.4 session against the QuickFIX/J exchange simulator on
# the Linux kernel's TCP, through a TAP in a private namespace.
#  1. The SoC logs on (UTC set on the console first), subscribes to market data and receives 35=W.
#  2. A limit buy typed on the console rests in the book and is filled by the scripted market's trade.
#  3. The session stays up across at least three heartbeat intervals (HeartBtInt 5 s).
#  4. The exchange is killed (SIGKILL) and restarted with its stored sequence numbers: the SoC reconnects
#     with backoff, logs on again and keeps receiving market data.
#  5. `fix stop`: Logout both ways, TCP closed.
# Checked on the exchange's own QuickFIX message log as well as the console: every Logon of the SoC
# answered, no 35=3 Reject or 35=j from the exchange, its only Logout the answer to ours, sequence numbers
# continuous across the reconnection. Prints the firmware's size and the cost of a 35=W in firmware.
set -u
cd "$(dirname "$0")/../.."
source sim/tests/lib.sh
if [ "$(id -u)" -ne 0 ]; then echo "skip fix-session (needs root for a network namespace)"; exit 77; fi
NAME=fix-session
HB=5
cleanup() { exch_stop; soc_netns_stop; }
fail() {
  echo "FAIL fix-session: $*"
  echo "---- console ($SOC_LOG):"; grep -v '^md:' "$SOC_LOG" | tail -25 | sed 's/^/  | /'
  [ -n "${EXCH_OUT:-}" ] && { echo "---- exchange ($EXCH_OUT):"; tail -10 "$EXCH_OUT" | sed 's/^/  | /'; }
  cleanup; exit 1
}
trap cleanup EXIT
[ -f "$EXCHANGE_JAR" ] || fail "no exchange jar ($EXCHANGE_JAR): make $EXCHANGE_JAR"
rm -rf "build/sim/tests/$NAME-exchange"
SOC_TIMEOUT=4000000000 soc_netns_start "$NAME" || fail "could not start the SoC"
exch_start "$NAME" --path sim/tests/fix_session.path --loop --wait-subscriber || fail "could not start the exchange"
count() { grep -cE "$1" "$SOC_LOG"; }

# 1. Logon, market data
soc_console "utc set $(date -u +%Y%m%d-%H:%M:%S.%3N)"
soc_console "fix set heartbeat $HB"
soc_console "fix start"
soc_wait_for '^(tf> )?fix: logged on' 60 || fail "no logon"
t_logon=$SECONDS
soc_wait_for '^(tf> )?fix: subscribed to market data for MSFT' 10 || fail "no market data subscription"
for i in $(seq 1 300); do
  soc_console "md"; sleep 0.5
  grep -qE '"ev":"md",.*"sym":"MSFT","updates":[1-9][0-9]*,.*"trade":"[1-9]' "$SOC_LOG" && break
done
grep -qE '"ev":"md",.*"sym":"MSFT","updates":[1-9][0-9]*,"bid":"[1-9][^"]*","offer":"[1-9][^"]*","trade":"[1-9]' "$SOC_LOG" || fail "no 35=W with bid, offer and trade reached the firmware"

# 2. An order that rests, then fills when the market trades through it
soc_console "buy MSFT 100 99.80"
soc_wait_for '^(tf> )?order 0: sent .* buy 100 MSFT @ 99.8' 20 || fail "the buy order was not sent"
soc_wait_for '^(tf> )?exec: order 0 .* new ' 30 || fail "no New execution report for the order"
soc_wait_for '^(tf> )?exec: order 0 .* fill 100 @ 99.8.*filled \(cum 100, leaves 0\)' 90 || fail "the order was not filled by the market"
soc_console "orders"
soc_wait_for '"ev":"order",.*"order":0,.*"px":"99.8","state":"filled","cum":100,"leaves":0' 10 || fail "the order table does not show the fill"

# 3. Three heartbeat intervals logged on: wait (in wall time, the exchange's clock) for three Heartbeats of
# the SoC in the exchange's log. The firmware's second is scaled to the simulator's speed (DESIGN.md
# "Time"), so on a loaded machine they come a little slower than HeartBtInt; the exchange then sends a
# TestRequest, which is answered, and is counted below.
msgs=build/sim/tests/$NAME.msgs1
for i in $(seq 1 120); do
  fix_msgs "$EXCH_MSGLOG" > "$msgs"
  hb_in=$(grep -c '|35=0|.*|49=TFISH1|' "$msgs")
  [ "$hb_in" -ge 3 ] && [ $((SECONDS - t_logon)) -ge $((3 * HB)) ] && break
  sleep 1
done
[ "$hb_in" -ge 3 ] || fail "the exchange logged $hb_in heartbeats from the SoC in $((SECONDS - t_logon)) s"
t_hb=$SECONDS
soc_console "fix"
soc_wait_for '^(tf> )?fix: client online, session active' 10 || fail "the session is not active after $((SECONDS - t_logon)) s"
w_out=$(grep -c '|35=W|.*|49=EXCH|' "$msgs")

# 4. The exchange crashes and comes back with its stored sequence numbers
last_in=$(sed -n 's/.*|34=\([0-9]*\)|49=TFISH1|.*/\1/p' "$msgs" | tail -1)
md_updates() { grep -oE '"sym":"MSFT","updates":[0-9]+' "$SOC_LOG" | tail -1 | sed 's/.*://'; }
upd_before=$(md_updates)
exch_kill
soc_wait_for '^(tf> )?fix: connection (closed|reset by the peer|refused).*reconnecting' 30 || fail "the SoC did not notice the exchange going away"
sleep 3
exch_start "$NAME" --path sim/tests/fix_session.path --loop --wait-subscriber --keep-seqnums || fail "could not restart the exchange"
logons_before=$(count '^(tf> )?fix: logged on')
for i in $(seq 1 600); do [ "$(count '^(tf> )?fix: logged on')" -gt "$logons_before" ] && break; sleep 0.1; done
[ "$(count '^(tf> )?fix: logged on')" -gt "$logons_before" ] || fail "no logon after the exchange restarted"
for i in $(seq 1 60); do
  soc_console "md"; sleep 0.5
  [ "$(md_updates)" -gt "$upd_before" ] && break
done
upd_after=$(md_updates)
[ "$upd_after" -gt "$upd_before" ] || fail "no market data after the reconnection ($upd_before updates before, $upd_after after)"
fix_msgs "$EXCH_MSGLOG" > "$msgs"
first_after=$(sed -n 's/.*|35=A|34=\([0-9]*\)|49=TFISH1|.*/\1/p' "$msgs" | tail -1)
[ -n "$first_after" ] && [ "$first_after" -gt "${last_in:-0}" ] \
  || fail "the Logon after the restart has MsgSeqNum ${first_after:-none}, the last before was ${last_in:-none}"

# The offload's hardware parser followed the same connection (nothing armed): it must have found exactly
# the 35=W messages the firmware parsed, and expect the same next sequence number. (A W arriving while the
# command runs is seen by the hardware first: ask again.)
hw_ok=""
for i in 1 2 3 4 5; do
  n0=$(grep -c 'offload rx: expects sequence' "$SOC_LOG")
  soc_console "fix hw"
  for j in $(seq 1 100); do [ "$(grep -c 'offload rx: expects sequence' "$SOC_LOG")" -gt "$n0" ] && break; sleep 0.1; done
  wcount=$(sed -n 's/.*35=W parsed by hardware \([0-9]*\), by firmware \([0-9]*\);.*/\1 \2/p' "$SOC_LOG" | tail -1)
  seqs=$(sed -n 's/.*expects sequence \([0-9]*\) (firmware \([0-9]*\)).*/\1 \2/p' "$SOC_LOG" | tail -1)
  if [ -n "$wcount" ] && [ "${wcount% *}" = "${wcount#* }" ] && [ "${wcount% *}" -gt 0 ] && [ -n "$seqs" ] && [ "${seqs% *}" = "${seqs#* }" ]; then
    hw_ok=1; break
  fi
  sleep 0.5
done
[ -n "$hw_ok" ] || fail "the offload parser disagrees with the firmware: W hardware/firmware '$wcount', next sequence '$seqs'"

# 5. Logout
soc_console "fix stop"
soc_wait_for '^(tf> )?fix: logged out' 30 || fail "no Logout answer"
soc_wait_for '^(tf> )?fix: connection closed; stopped' 30 || fail "the TCP connection did not close after the Logout"
soc_console "fix"
soc_wait_for 'W all cost' 10
soc_console "info"
soc_wait_for 'stack: [0-9]+ of' 10
fix_msgs "$EXCH_MSGLOG" > "$msgs"

# The exchange's log
logon_in=$(grep -c '|35=A|.*|49=TFISH1|' "$msgs"); logon_out=$(grep -c '|35=A|.*|49=EXCH|' "$msgs")
[ "$logon_in" -ge 2 ] && [ "$logon_in" -eq "$logon_out" ] || fail "exchange log: $logon_in Logons from the SoC, $logon_out answered"
rej=$(grep -cE '\|35=(3|j)\|.*\|49=EXCH\|' "$msgs")
[ "$rej" -eq 0 ] || fail "exchange log: $rej Reject(s) sent to the SoC: $(grep -E '\|35=(3|j)\|.*\|49=EXCH\|' "$msgs" | head -2)"
lo_in=$(grep -c '|35=5|.*|49=TFISH1|' "$msgs"); lo_out=$(grep -c '|35=5|.*|49=EXCH|' "$msgs")
[ "$lo_in" -eq 1 ] && [ "$lo_out" -eq 1 ] || fail "exchange log: $lo_in Logouts from the SoC, $lo_out from the exchange (want 1 and 1)"
last_lines=$(grep -E '\|35=5\|' "$msgs" | sed 's/.*|49=\([A-Z0-9]*\)|.*/\1/' | tr '\n' ' ')
[ "$last_lines" = "TFISH1 EXCH " ] || fail "exchange log: Logouts in the order '$last_lines' (want the SoC's first)"
fills=$(grep -E '\|35=8\|.*\|49=EXCH\|' "$msgs" | grep -c '|39=2|')
[ "$fills" -ge 1 ] || fail "exchange log: no fill sent"
orders=$(grep -c '|35=D|.*|49=TFISH1|' "$msgs")
# MsgSeqNums from the SoC: each one once, none missing, through the crash. Where the exchange asked for a
# resend (35=2), the SoC's answer (resent messages with PossDupFlag, SequenceReset-GapFill) must cover the hole
# in the exchange's own log: sim/tests/seqnums.py counts a gap fill for the numbers it stands for.
seqcheck=$(python3 sim/tests/seqnums.py "$EXCH_MSGLOG" TFISH1) || fail "exchange log: the SoC's MsgSeqNums are not continuous: $seqcheck"
resends=$(grep -c '|35=2|.*|49=EXCH|' "$msgs")
w_total=$(grep -c '|35=W|.*|49=EXCH|' "$msgs")
hb_total=$(grep -c '|35=0|.*|49=TFISH1|' "$msgs")
testreq=$(grep -c '|35=1|.*|49=EXCH|' "$msgs")

size=$(riscv64-unknown-elf-size "${FW:-build/fw/sim/firmware}.elf" | awk 'NR == 2 { printf "code+rodata %d B, data+bss %d B", $1, $2 + $3 }')
wcost=$(grep -o 'W all cost.*' "$SOC_LOG" | tail -1 | sed 's/^W all cost (receive slot to callback, one message per frame): //')
stack=$(grep -o 'stack: [0-9]* of [0-9]* bytes' "$SOC_LOG" | tail -1)
echo "   | exchange log: $logon_in Logons answered, $w_total 35=W sent, $orders order(s), $fills fill(s), $hb_total heartbeats from the SoC, $testreq TestRequest(s) to it, $resends ResendRequest(s), 0 Rejects, Logout SoC then exchange"
echo "   | $seqcheck"
echo "   | 35=W in firmware: $wcost; firmware $size, $stack"
echo "   | offload parser on the live connection: ${wcount% *} 35=W found by the hardware, the same as the firmware; same next sequence number"
echo "ok fix-session (logon, market data, order filled, $hb_in heartbeats at HeartBtInt $HB s over $((t_hb - t_logon)) s, exchange killed and restarted: reconnected at MsgSeqNum $first_after, clean logout)"
