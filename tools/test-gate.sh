#!/usr/bin/env bash
# The `gate` test suite (tools/run-tests.sh): gate-level simulation of the Colorlight i5's netlist after
# synth_ecp5 (tools/gate-sim.sh: yosys's ECP5 cell models, the netlist's RAM synthesised with a placeholder and the
# board's firmware written where its bits are in the block RAMs when the simulation starts, the board's clocks and
# pins driven as on the board).
# Checked, each against what the board's settings and the firmware's source say, not against an earlier run:
#   - the netlist builds into a simulator (or comes from the cache) and its PLL settings give the clocks driven
#   - the simulator's cache key names the placeholder and no firmware (a firmware change is a cache hit), and every
#     bit slice of the placeholder was found in one block RAM and replaced by the firmware's at start
#   - the DP16KD model (sim/gate/ecp5_models.v) reads back a $readmemh ROM, the trigger table RAM and the order
#     engine's template RAM (through both its ports) as synth_ecp5 maps them, and two small memories read asynchronously (distributed RAM) too (tools/gate-sim.sh check)
#   - boot from the RAM image in the block RAMs: the banner (target, sys clock), the four self-test checks pass
#   - the console answers `info` typed into the UART receive pin
#   - Ethernet through the RGMII DDR cells: the SoC's gratuitous ARP leaves with a good FCS and the board's MAC and
#     IPv4 address; an ARP request injected on the receive pins is answered with a good ARP reply
#   - a hardware stop fired by a 35=W: the harness plays the exchange (sim/gate/exchange.h) at the board's FIX_HOST and
#     FIX_PORT; a buy stop typed on the console goes to the hardware once the SoC has logged on over TCP; a 35=W whose
#     trade does not cross it fires nothing, the next one, which crosses it, makes the SoC send a 35=D whose frame,
#     IPv4 and TCP checksums, TCP numbers, FIX framing, MsgSeqNum and order fields the exchange checks against the
#     stop typed and the session it saw; the console says the stop was fired by the hardware
# Prints "[ok] ..." / "[FAIL] ..." per check, the cycles simulated and cycles/s, and "N passed, M failed, K skipped".
# The simulation runs the netlist put together with its cell models by yosys (tools/gate-sim.sh flatten_models).
# The Zynq netlist too (the PYNQ-Z1 after synth_xilinx, yosys's xilinx models, sim/gate/xc7_models.v for the block
# RAMs and the MMCM), built and run beside the i5's (TF_GATE_ZYNQ=only: that alone; =0: left out, reported skipped):
# the MMCM's settings give the sys clock driven, boot from the firmware written into its block RAMs, the self-test, `info`
# answered, the boot's gratuitous ARP out of the RMII pins with a good FCS, an ARP request on the RMII receive pins
# answered, and the same FIX session and hardware stop as the i5's (the same exchange, its frames put on the RMII
# pins and taken off them by the harness), with the same checks, but fired early (the board is built with early fires,
# board.mk EARLY; `offload early on` typed before `fix start`): the console says early fires were applied, and the
# 35=D's first preamble byte is on the transmit pins before the crossing 35=W's last byte is on the receive pins, its
# FCS good (the i5's run keeps the safe fire, which starts after that last byte); both boards' T2T and EOF2SOF at the
# pins exact (latency_checks); then its kill button (BTN1, the risk gate's kill
# pin) pressed by the harness: the gate latched it, firmware said so and sent an Order Cancel Request for the fired
# order, which the exchange received (the i5's top has no risk gate, so no kill pin).
set -u
cd "$(dirname "$0")/.."
BOARD=${GATE_BOARD:-colorlight-i5}
LOGS=build/test-logs/gate
mkdir -p "$LOGS"
pass=0; fail=0; skip=0
ok()  { echo "[ok] $*"; pass=$((pass + 1)); }
bad() { echo "[FAIL] $*"; fail=$((fail + 1)); }
finish() { echo "gate-level simulation: $pass passed, $fail failed, $skip skipped"; [ $fail -eq 0 ]; exit $?; }

setting() { sed -n "s/^$1 *:\\?= *\\([^#]*[^# ]\\).*/\\1/p" "boards/$BOARD/board.mk"; }
frames() { grep -oE "gate: tx frame [0-9]+ bytes fcs $1 at cycle [0-9]+:[0-9a-f ]*" "$log" | sed 's/.*://' | tr -d ' '; }
# The board's settings ($BOARD's board.mk) and what the checks expect of them: the sys clock, the MAC and IPv4 address,
# the exchange's address, the ARP frames.
board_settings() {
sys_mhz=$(setting SYS_MHZ)
sys_hz=$(awk -v m="$sys_mhz" 'BEGIN { printf "%d", m * 1e6 + 0.5 }')
mac=$(setting NET_MAC); ip=$(setting NET_IP)
fix_host=$(setting FIX_HOST); fix_port=$(setting FIX_PORT)
early=$(setting EARLY)
machex=$(echo "$mac" | tr -d ':' | tr 'A-F' 'a-f')
iphex=$(echo "$ip" | awk -F. '{ printf "%02x%02x%02x%02x", $1, $2, $3, $4 }')
# the injected request's sender: the exchange (the board's FIX_HOST, on its subnet), with a MAC of our choosing
peer_mac=020000000010; peer_ip=$(echo "$fix_host" | awk -F. '{ printf "%02x%02x%02x%02x", $1, $2, $3, $4 }')
# who has <board IP>? tell <peer>: Ethernet broadcast, ARP (htype 1, ptype IPv4, op 1)
arp_req="ffffffffffff${peer_mac}0806000108000604 0001${peer_mac}${peer_ip}000000000000${iphex}"
arp_req=${arp_req// /}
# the answer RFC 826 prescribes: to the sender, op 2, the board's MAC and IP as sender, the peer as target
arp_reply="${peer_mac}${machex}0806000108000604 0002${machex}${iphex}${peer_mac}${peer_ip}"
arp_reply=${arp_reply// /}
# the gratuitous ARP of the boot (fw/net/arp.c): broadcast, op 1, sender and target IP both the board's
garp="ffffffffffff${machex}08060001080006040001${machex}${iphex}"
}
# the hardware stop the console arms (stops.c: `stop buy|sell SYM QTY STOP LIMIT`; new stops go to the hardware),
# and the trades the exchange sends: the first below the buy stop (must not fire), the second above it (fires)
stop_side=buy stop_sym=MSFT stop_qty=7 stop_px=100.1 stop_limit=100.4
trades=100.05,100.15

# The run both netlists get, into $log (status $rc, wall time $wall): +eth-idle-div=8: the Ethernet clocks at
# 1/8 of their rate while no frame goes in or out, at their rate around every frame (sim/gate/gate_main.cpp); the
# simulation's cost is then mostly the sys domain's. The firmware is the board's, built with its console at
# $GATE_UART_DIVISOR sys cycles a bit (tools/board.sh firmware into build/gate/<board>/fw) instead of 115200 baud: at
# 115200 the console's text took most of the simulated cycles (the i5's run 6.4 M of 7.9 M, the PYNQ-Z1's 10.8 M of
# 11.4 M), and the UART is the same logic at any divisor.
# Typed at the first prompt: `info`, the stop, `fix start` (the stop goes to the hardware once the session is up); on a
# board built with early fires (board.mk EARLY, the PYNQ-Z1), `offload early on` before `fix start`: the connection's
# start applies it, and the stop fires early (the i5's run keeps the safe fire).
# The exchange sends its 35=W trades once the console has shown the stop's stop.loaded event; the run ends at the
# stop.fired event's line, the ARP reply seen and the exchange's 35=D checked. On a board with a kill pin (the
# PYNQ-Z1's BTN1, the risk gate's), the button is pressed once the stop.fired line has ended, and the run ends at the
# risk.kill event's line instead.
session_run() {  # <timeout in sys cycles> [kill]
local t=$SECONDS until='"ev":"stop.fired"' kill=()
[ "${2:-}" = kill ] && { until='"ev":"risk.kill"'; kill=(+kill-after='"ev":"stop.fired"'); }
tools/gate-sim.sh run "$BOARD" +ram-firmware="$(gate_fw "$BOARD")/firmware.hex" +uart-divisor="$GATE_UART_DIVISOR" \
  +sys-hz="$sys_hz" +timeout="$1" +eth-idle-div=8 \
  +uart-in="info\\rstop $stop_side $stop_sym $stop_qty $stop_px $stop_limit\\r$([ "$early" = yes ] && echo 'offload early on\r')fix start\\r" +uart-in-after='tf> ' \
  +until="$until" "${kill[@]}" +eth-in="$arp_req" +eth-in-after='uptime ' +until-tx="$arp_reply" \
  +fix-exchange=1 +fix-mac="$peer_mac" +fix-ip="$fix_host" +fix-port="$fix_port" +fix-comp-id=EXCH +fix-soc-comp-id=TFISH1 \
  +fix-symbol="$stop_sym" +fix-trades="$trades" +fix-w-after='"ev":"stop.loaded"' \
  +fix-expect="$([ $stop_side = buy ] && echo 1 || echo 2),$stop_sym,$stop_qty,$stop_limit" > "$log" 2>&1
rc=$?
wall=$(( SECONDS - t ))
}

# The boot checks both netlists share, on the console and the frames in $log: the banner, the self-test's four checks,
# `info` answered, the gratuitous ARP ($garp) and the reply ($arp_reply) to the injected request (with the run's $rc).
boot_checks() {  # <prefix of each line> <what the block RAMs start from> <the PHY's interface>
local p=$1 init=$2 pins=$3 target=${BOARD//-/_} key=build/gate/$BOARD/cache-key.txt
# the simulator does not depend on the firmware (tools/gate-sim.sh): its key has the placeholder and no firmware image
if grep -q '^ram placeholder words [0-9]* seed [0-9]*$' "$key" \
   && { ! grep -q '^ram fw/' "$key" || grep -q '^tool nextpnr-xilinx [0-9a-f]' "$key"; }; then  # (a Zynq flow with openXC7 synthesises the firmware)
  ok "${p}the simulator's cache key names the RAM's placeholder and no firmware image: a firmware change is a cache hit"
else bad "${p}the simulator's cache key ($key) does not name the placeholder, or names the firmware"; fi
# the harness wrote the board's firmware where the placeholder's bit slices are, every one found once (gate_ram.cpp)
local patched; patched=$(sed -n "s|^gate: RAM image: the firmware ($(gate_fw "$BOARD")/firmware.hex, ||p" "$log" | head -1)
if [ -n "$patched" ]; then ok "${p}the firmware written into the block RAMs at start (${patched%%)*}): ${patched#*written at start into }"
else bad "${p}the firmware was not written into the block RAMs: $(grep -m2 '^gate: RAM image' "$log" | tr '\n' ' ')"; fi
# (the VERSION register holds the netlist's id that tools/board.sh generate computed: the netlist is that build's)
local nid; nid=$(cat "build/boards/$BOARD/hw/netlist-id.txt" 2>/dev/null)
if grep -q "^Triggerfish firmware .*(target $target)" "$log" && grep -q "sys clock $sys_hz Hz" "$log" \
   && [ -n "$nid" ] && grep -q "hardware id [0-9a-f]* version $nid\b" "$log"; then
  ok "${p}boot from the block RAMs' $init: banner (target $target, sys clock $sys_hz Hz, VERSION $nid: the netlist's id)"
else bad "${p}no banner for target $target at $sys_hz Hz with VERSION ${nid:-(no build/boards/$BOARD/hw/netlist-id.txt)} (console: $log)"; fi
if grep -q 'selftest: 4 passed, 0 failed' "$log" && grep -q '^SELFTEST PASS' "$log" && ! grep -qE '^selftest: .*FAIL' "$log"; then
  ok "${p}self-test: mul/div, cycle counter, timer interrupt, ram: 4 passed ($(grep -o 'selftest: 4 passed, 0 failed ([0-9]* cycles)' "$log"))"
else bad "${p}self-test did not pass: $(grep -E 'selftest: .*(FAIL|passed)' "$log" | head -3 | tr '\n' ' ')"; fi
if grep -qE '^  uptime [0-9]+ ms, cycles [0-9]+' "$log"; then ok "${p}console: 'info' typed into uart_rx answered ($(grep -oE 'uptime [0-9]+ ms' "$log"))"
else bad "${p}the console did not answer 'info'"; fi
# (a frame line can follow console text that has not reached its newline yet: frames are found anywhere in a line)
if frames ok | grep -q "^$garp"; then ok "${p}$pins transmit: the boot's gratuitous ARP ($mac, $ip) with a good FCS"
else bad "${p}no gratuitous ARP from $mac/$ip with a good FCS on the $pins pins: $(grep -o 'gate: tx frame' "$log" | wc -l) frames"; fi
if [ $rc -eq 0 ] && frames ok | grep -q "^$arp_reply"; then
  ok "${p}$pins receive and transmit: the injected ARP request answered by an ARP reply with a good FCS"
else bad "${p}no ARP reply to the injected request (status $rc; $log)"; fi
if grep -q 'gate: tx frame .* fcs BAD' "$log"; then bad "${p}a frame with a bad FCS or no SFD left the $pins pins"; fi
}

# The FIX session and the hardware stop both netlists share (the exchange's own lines: "gate: exchange: ..."), from
# $log: the session, the stop armed and loaded, the exchange's five checks of the 35=D, the console's fire line.
xcheck() {  # name, what: the exchange's check line for name
  local l; l=$(grep -m1 "^gate: exchange: check $1: " "$log")
  case $l in
    *": check $1: ok "*) ok "$2: ${l#*: ok }" ;;
    "") bad "$2: the exchange made no such check ($log)" ;;
    *) bad "$2: ${l#*: FAIL }" ;;
  esac
}
fix_checks() {  # <prefix of each line> <the PHY's interface>
local p=$1 pins=$2 fired_px
if grep -q '^gate: exchange: Logon answered' "$log" && grep -q '^gate: exchange: from the SoC: 8=FIX.4.4|9=[0-9]*|35=V|' "$log"; then
  ok "${p}FIX session over TCP through the $pins pins: SYN answered, the SoC's Logon answered, its market data request received"
else bad "${p}no FIX session with the exchange: $(grep -E '^gate: exchange: (SYN|Logon|from the SoC)' "$log" | head -3 | tr '\n' ' ')"; fi
if grep -qE "^stop 0: armed $stop_side $stop_sym $stop_qty, .*\(hardware\)" "$log" && grep -q '^stop 0: in the hardware trigger table' "$log"; then
  ok "${p}console: stop 0 ($stop_side $stop_sym $stop_qty, stop $stop_px, limit $stop_limit) armed in the hardware, loaded into the trigger table after the logon"
else bad "${p}stop 0 was not armed and loaded in the hardware (console: $log)"; fi
xcheck before-last-w "${p}no 35=D on the 35=W whose trade ${trades%%,*} does not cross the buy stop $stop_px"
xcheck frame "${p}the 35=D frame on the $pins pins"
xcheck tcp "${p}the 35=D's TCP numbers"
xcheck fix "${p}the 35=D's FIX framing and MsgSeqNum"
xcheck order "${p}the 35=D's order fields"
# the firmware prints the price without trailing zeros: compared as numbers with the crossing trade
fired_px=$(sed -n 's/^stop 0: fired by hardware on trade \([0-9.]*\): order .*/\1/p' "$log" | head -1)
if [ -n "$fired_px" ] && awk -v a="$fired_px" -v b="${trades##*,}" 'BEGIN { exit !(a + 0 == b + 0) }' \
   && grep -qE '"ev":"stop.fired".*"stop":0,"by_hw":true' "$log" && ! grep -q 'fired by firmware' "$log"; then
  ok "${p}console: $(grep -m1 "^stop 0: fired by hardware" "$log" | tr -d '\r'); stop.fired by_hw true"
else bad "${p}the console does not say the hardware fired stop 0 on the trade at ${trades##*,} ($log)"; fi
}

# The fire's latency at the pins, the exchange's measures (docs/DESIGN.md's definitions, in the board's Ethernet
# cycles; a byte is on the pins in the cycle its last nibble or dibit is): T2T, from the crossing price's SOH on the
# receive pins to the 35=D's first preamble byte on the transmit pins, and EOF2SOF, from the 35=W frame's last byte
# (negative: the order started first). Pinned, so that a change is a deliberate edit here: the i5's safe fire is the
# simulation's GMII figures (T2T 31, EOF2SOF 12) and 2 cycles of the RGMII DDR cells; the PYNQ-Z1's early fire at RMII
# (a byte every 4 cycles) was measured on 2026-12-05. T2T - EOF2SOF is the wire time of the 19 bytes after the SOH
# (271=100, 10=nnn and the FCS): 19 and 76 cycles.
# EOF2SOF from the exchange's line in $log, signed (it says "from the last byte ..." or "... BEFORE the last byte"); empty
# when it made neither
eof2sof() {
  local e
  e=$(sed -n "s/^gate: exchange: from the last byte of the crossing 35=W's frame .*: \([0-9]*\) Ethernet cycles .*/\1/p" "$log" | head -1)
  [ -n "$e" ] || e=$(sed -n "s/^gate: exchange: the first preamble byte of the 35=D .* came \([0-9]*\) Ethernet cycles .* BEFORE .*/-\1/p" "$log" | head -1)
  echo "$e"
}
latency_checks() {  # <prefix of each line> <T2T> <EOF2SOF>
local p=$1 t2t eof
t2t=$(sed -n "s/^gate: exchange: T2T: from the crossing price's SOH .* on the transmit pins: \([0-9]*\) Ethernet cycles .*/\1/p" "$log" | head -1)
eof=$(eof2sof)
if [ "$t2t" = "$2" ] && [ "$eof" = "$3" ]; then ok "${p}latency at the pins: T2T $t2t, EOF2SOF $eof Ethernet cycles, as pinned"
else bad "${p}latency at the pins: T2T ${t2t:-none}, EOF2SOF ${eof:-none} Ethernet cycles; pinned: T2T $2, EOF2SOF $3"; fi
}

# Early fires (a board built with EARLY := yes): `offload early on` applied at the connection's start, and the order
# on the transmit pins before the crossing 35=W had ended on the receive pins (the exchange's measure at the pins; a
# safe fire waits for the frame's end, so this is what tells the two apart), with a good FCS (fix_checks' frame check).
early_checks() {  # <prefix of each line>
local p=$1 eof
if grep -q '^offload: early fires on' "$log" && grep -qE '"ev":"offload.early".*"on":true' "$log"; then
  ok "${p}console: \`offload early on\` applied at the connection's start (offload: early fires on; offload.early on true)"
else bad "${p}the console does not say early fires were applied ($log)"; fi
eof=$(eof2sof)
if [ -n "$eof" ] && [ "$eof" -lt 0 ]; then
  ok "${p}an early fire: the 35=D's first preamble byte on the transmit pins ${eof#-} Ethernet cycles before the crossing 35=W's last byte on the receive pins"
else bad "${p}the 35=D did not start before the crossing 35=W ended (EOF2SOF ${eof:-not measured})"; fi
}

# --- the runs: both netlists side by side, then their checks in order ----------------------------------------------
# Phase 1 does the heavy work of each netlist in the background, one job per netlist (the two cores each take one):
# its simulator's build (or the cache hit), the block RAM model check, the session run. Its results are files in
# $LOGS (<what><suffix>.log, .rc, .wall). Mill and the firmware's make are not run twice at once in a checkout, so
# both boards' sources are generated first, one after the other, and the builds are told so (TF_GATE_GENERATED=1).
# Phase 2 reads those files and prints the checks, the i5's first.
heavy() {  # <board> <log suffix> <timeout in sys cycles> [kill]
  local s=$2 t=$SECONDS
  BOARD=$1
  TF_GATE_GENERATED=1 tools/gate-sim.sh build "$BOARD" > "$LOGS/build$s.log" 2>&1
  echo $? > "$LOGS/build$s.rc"; echo $(( SECONDS - t )) > "$LOGS/build$s.wall"
  [ "$(cat "$LOGS/build$s.rc")" = 0 ] || return
  tools/gate-sim.sh check "$BOARD" > "$LOGS/bram-check$s.log" 2>&1
  echo $? > "$LOGS/bram-check$s.rc"
  board_settings
  log=$LOGS/boot$s.log
  session_run "$3" "${4:-}"
  echo "$rc $wall" > "$LOGS/boot$s.status"
}
built() {  # <board> <log suffix>: the build's check line; false when it failed
  local s=$2
  if [ "$(cat "$LOGS/build$s.rc" 2> /dev/null)" = 0 ]; then
    ok "$1: gate-level simulator built ($(cat "$LOGS/build$s.wall") s): $(grep -E '^== gate-level simulator: cache hit|^   \([0-9]+ s\) cells' "$LOGS/build$s.log" | sed 's/^== gate-level simulator: //; s/^ *//' | tr '\n' ' ')"
  else
    bad "$1: gate-level simulator build failed ($LOGS/build$s.log):"; tail -15 "$LOGS/build$s.log" 2> /dev/null | sed 's/^/   | /'
    return 1
  fi
}
ran() {  # <log suffix>: the session run's $log, $rc and $wall
  log=$LOGS/boot$1.log
  read -r rc wall < "$LOGS/boot$1.status" 2> /dev/null || { rc=1; wall=0; }
}

# --- the Zynq netlist (PYNQ-Z1, synth_xilinx) ---------------------------------------------------------------------
zynq_checks() {
BOARD=pynq-z1
local clk0
built "$BOARD" "-$BOARD" || return
# the block RAM models first: the firmware is in them
if [ "$(cat "$LOGS/bram-check-$BOARD.rc")" = 0 ] && grep -q 'bram check: [0-9]* reads, 0 mismatches' "$LOGS/bram-check-$BOARD.log"; then
  ok "$BOARD: RAMB18E1/RAMB36E1 and RAM32M/RAM64M models vs synth_xilinx: \$readmemh ROMs (x9, x4, INIT_xx), TfTableRam (SDP x72, latency 2), distributed RAMs (INIT_A..D, asynchronous reads): $(grep -o '[0-9]* reads, 0 mismatches' "$LOGS/bram-check-$BOARD.log")"
else
  bad "$BOARD: block RAM model check ($LOGS/bram-check-$BOARD.log):"; tail -12 "$LOGS/bram-check-$BOARD.log" | sed 's/^/   | /'
fi
board_settings
ran "-$BOARD"
tail -1 "$log" | grep -q '^gate: ' || bad "$BOARD: the simulation did not end normally (status $rc; $log)"
echo "   $(grep '^gate: MMCME2_BASE' "$log")"
echo "   $(tail -1 "$log") [wall $wall s]"
# MMCM: f_VCO = 1000 / CLKIN1_PERIOD MHz * CLKFBOUT_MULT_F / DIVCLK_DIVIDE; CLKOUT0 = f_VCO / CLKOUT0_DIVIDE_F
clk0=$(sed -n 's/^gate: MMCME2_BASE CLKIN1_PERIOD=\([0-9.]*\) DIVCLK_DIVIDE=\([0-9]*\) CLKFBOUT_MULT_F=\([0-9.]*\) CLKOUT0_DIVIDE_F=\([0-9.]*\) .*/\1 \2 \3 \4/p' "$log" \
  | awk '{ printf "%d\n", 1e9 / $1 * $3 / $2 / $4 + 0.5 }')
if [ "${clk0:-0}" = "$sys_hz" ]; then ok "$BOARD: MMCME2_BASE settings give CLKOUT0 $sys_mhz MHz, the sys clock the harness drives"
else bad "$BOARD: MMCME2_BASE settings give CLKOUT0 ${clk0:-?} Hz; the harness drives $sys_hz Hz"; fi
boot_checks "$BOARD: " "firmware, written in where the placeholder was" RMII
fix_checks "$BOARD: " RMII
latency_checks "$BOARD: " 18 -58
if [ "$early" = yes ]; then early_checks "$BOARD: "
else echo "[skip] $BOARD: early fires (board.mk has no EARLY := yes)"; skip=$((skip + 1)); fi
kill_checks "$BOARD: "
}

# The kill pin (a board's button wired to the risk gate's kill input), pressed by the harness after the hardware's
# fire: the gate latched it (firmware learns it by reading the gate's state, fw/app/risk.c risk_poll), firmware
# said so and, the fired order being still working (the exchange sends no execution report), sent an Order Cancel
# Request for it, which the exchange received with the order's ClOrdID as OrigClOrdID and the next MsgSeqNum.
kill_checks() {  # <prefix of each line>
local p=$1 d clordid dseq f fseq
if grep -q '^gate: kill pin pressed at cycle [0-9]*' "$log" && grep -q '^gate: kill pin released at cycle [0-9]*' "$log" \
   && [ "$(grep -nE '"ev":"stop.fired"|^gate: kill pin pressed' "$log" | head -1 | grep -c 'stop.fired')" = 1 ]; then
  ok "${p}harness: the kill button pressed after the fire, held and released ($(grep -o 'pressed at cycle [0-9]*' "$log"))"
else bad "${p}the harness did not press and release the kill button after the fire ($log)"; fi
if grep -q '^risk: KILL by the kill pin: every order refused, 0 stop(s) disarmed, 1 cancel(s) sent' "$log" \
   && grep -qE '"ev":"risk.kill".*"by":"the kill pin".*"stops":0,"cancels":1' "$log"; then
  ok "${p}console: $(grep -m1 '^risk: KILL by the kill pin' "$log" | tr -d '\r')"
else bad "${p}the console does not say the kill pin killed with the fired order cancelled: $(grep -m2 -E '^risk: KILL|risk.kill' "$log" | tr '\n' ' ')"; fi
d=$(grep -m1 '^gate: exchange: from the SoC: 8=FIX.4.4|9=[0-9]*|35=D|' "$log")
field() { echo "$1" | grep -o "|$2=[^|]*|" | head -1 | sed "s/^|$2=//; s/|\$//"; }  # <message line> <tag>
clordid=$(field "$d" 11); dseq=$(field "$d" 34)
f=$(grep -m1 '^gate: exchange: from the SoC: 8=FIX.4.4|9=[0-9]*|35=F|' "$log")
fseq=$(field "$f" 34)
if [ -n "$clordid" ] && [ -n "$f" ] && echo "$f" | grep -q "|41=$clordid|" && echo "$f" | grep -q '|54=1|' \
   && echo "$f" | grep -q "|55=$stop_sym|" && [ -n "$dseq" ] && [ "$((10#${fseq:-0}))" = "$((10#$dseq + 1))" ]; then
  ok "${p}exchange: a 35=F for the fired order (41=$clordid, 55=$stop_sym, 54=1), MsgSeqNum $((10#$fseq)) after the 35=D's $((10#$dseq))"
else bad "${p}no Order Cancel Request for the fired order ${clordid:-(no 35=D)} with the next MsgSeqNum: ${f:-none}"; fi
}

# --- the Colorlight i5 netlist (synth_ecp5) -----------------------------------------------------------------------
i5_checks() {
BOARD=colorlight-i5
built "$BOARD" "" || return
# the DP16KD model first: everything below depends on it
if [ "$(cat "$LOGS/bram-check.rc")" = 0 ] && grep -q 'bram check: [0-9]* reads, 0 mismatches' "$LOGS/bram-check.log"; then
  ok "DP16KD model vs synth_ecp5: a \$readmemh ROM (x9, INITVAL) and TfTableRam (x36, OUTREG, latency 2), TfTemplateRam (x9 true dual port, port B OUTREG), with two distributed RAMs (yosys's TRELLIS_DPR16X4 model): $(grep -o '[0-9]* reads, 0 mismatches' "$LOGS/bram-check.log")"
else
  bad "DP16KD model check ($LOGS/bram-check.log):"; tail -12 "$LOGS/bram-check.log" | sed 's/^/   | /'
fi
board_settings
ran ""
tail -1 "$log" | grep -q '^gate: ' || bad "the simulation did not end normally (status $rc; $log)"
echo "   $(grep '^gate: EHXPLLL' "$log")"
echo "   $(tail -1 "$log") [wall $wall s]"

# PLL: CLKOP = 25 MHz / CLKI_DIV * CLKFB_DIV (feedback from CLKOP), CLKOS = CLKOP * CLKOP_DIV / CLKOS_DIV
read -r op os < <(sed -n 's/^gate: EHXPLLL CLKI_DIV=\([0-9]*\) CLKFB_DIV=\([0-9]*\) CLKOP_DIV=\([0-9]*\) CLKOS_DIV=\([0-9]*\) FEEDBK_PATH=CLKOP.*/\1 \2 \3 \4/p' "$log" \
  | awk '{ op = 25e6 / $1 * $2; printf "%d %d\n", op, op * $3 / $4 }')
if [ "${op:-0}" = 125000000 ] && [ "${os:-0}" = "$sys_hz" ]; then ok "EHXPLLL settings give CLKOP 125 MHz and CLKOS $sys_mhz MHz, the clocks the harness drives"
else bad "EHXPLLL settings give CLKOP ${op:-?} Hz and CLKOS ${os:-?} Hz; the harness drives 125 MHz and $sys_hz Hz"; fi

boot_checks "" "firmware, written in where the placeholder was" RGMII
fix_checks "" RGMII
latency_checks "" 33 14
}

# the runs' firmware: the board's, its console at GATE_UART_DIVISOR sys cycles a bit (session_run)
GATE_UART_DIVISOR=8
gate_fw() { echo "build/gate/$1/fw"; }  # <board>
# TF_GATE_ZYNQ: 1 (the default) both netlists, only: the Zynq's alone, 0: the i5's alone (the Zynq's reported skipped)
want=${TF_GATE_ZYNQ:-1}
case $want in 0|1|only) ;; *) echo "TF_GATE_ZYNQ=$want: 1 (both netlists, the default), only (the PYNQ-Z1's) or 0 (the i5's)"; exit 2 ;; esac
# TF_GATE_PHASE: all (the default) does everything; start generates the sources, starts phase 1's jobs and returns
# (they go on in the background); finish waits for the jobs a start left running and makes the checks. make test
# starts the suite first and finishes it last, so that its runs (the PYNQ-Z1's is about half an hour of one core,
# niced) use the core the other suites leave idle instead of adding their wall time to the end.
phase=${TF_GATE_PHASE:-all}
suffix() { [ "$1" = colorlight-i5 ] || echo "-$1"; }  # <board>: its logs' suffix (the i5's have none)
case $phase in all|start|finish) ;; *) echo "TF_GATE_PHASE=$phase: all (the default), start or finish"; exit 2 ;; esac
if [ "$phase" != finish ]; then
  rm -f "$LOGS"/*.rc "$LOGS"/*.wall "$LOGS"/*.status "$LOGS"/*.done "$LOGS"/*.pid "$LOGS/boards.txt" "$LOGS/started.txt"
  boards=""
  [ "$want" = only ] || boards="colorlight-i5"
  [ "$want" = 0 ] || boards="$boards pynq-z1"
  t=$SECONDS
  for b in $boards; do
    if ! { tools/board.sh generate "$b" && tools/board.sh firmware "$b" "$(gate_fw "$b")" UART_DIVISOR="$GATE_UART_DIVISOR"; } \
         > "$LOGS/generate-$b.log" 2>&1; then
      bad "$b: tools/board.sh generate or firmware failed ($LOGS/generate-$b.log):"; tail -15 "$LOGS/generate-$b.log" | sed 's/^/   | /'
      finish
    fi
  done
  echo "   sources of $boards generated ($(( SECONDS - t )) s); the builds and runs side by side:"
  for b in $boards; do
    s=$(suffix "$b") n=20000000 k=""
    [ "$b" = pynq-z1 ] && n=25000000 k=kill
    # (the marker is written however the job ends; finish waits for it, or for the job to be gone)
    ( heavy "$b" "$s" "$n" "$k"; echo "$(date -u +%FT%TZ)" > "$LOGS/heavy$s.done" ) < /dev/null &
    echo $! > "$LOGS/heavy$s.pid"
  done
  echo "$boards" > "$LOGS/boards.txt"
  date +%s > "$LOGS/started.txt"
  if [ "$phase" = start ]; then echo "   started in the background: $boards (TF_GATE_PHASE=finish waits for them)"; exit 0; fi
fi
[ -f "$LOGS/boards.txt" ] || { bad "no runs to finish: TF_GATE_PHASE=start was not run first ($LOGS/boards.txt)"; finish; }
boards=$(cat "$LOGS/boards.txt")
for b in $boards; do
  s=$(suffix "$b")
  pid=$(cat "$LOGS/heavy$s.pid" 2> /dev/null)
  while [ ! -f "$LOGS/heavy$s.done" ] && [ -n "$pid" ] && kill -0 "$pid" 2> /dev/null; do sleep 2; done
  [ -f "$LOGS/heavy$s.done" ] || bad "$b: its background job ended without finishing (killed?)"
done
echo "   builds and runs done ($(( $(date +%s) - $(cat "$LOGS/started.txt") )) s in all)"
case " $boards " in *" colorlight-i5 "*) i5_checks ;; esac
case " $boards " in
  *" pynq-z1 "*) zynq_checks ;;
  *) echo "[skip] the Zynq netlist (pynq-z1, synth_xilinx): TF_GATE_ZYNQ=0 leaves it out (TF_GATE_ZYNQ=only: it alone)"
     skip=$((skip + 1)) ;;
esac
finish
