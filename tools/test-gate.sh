#!/usr/bin/env bash
# The `gate` test suite (tools/run-tests.sh): gate-level simulation of the Colorlight i5's netlist after
# synth_ecp5 (tools/gate-sim.sh: yosys's ECP5 cell models, the block RAMs initialised with the board's firmware as
# synthesis put it into their INITVAL parameters, the board's clocks and pins driven as on the board).
# Checked, each against what the board's settings and the firmware's source say, not against an earlier run:
#   - the netlist builds into a simulator (or comes from the cache) and its PLL settings give the clocks driven
#   - the DP16KD model (sim/gate/ecp5_models.v) reads back a $readmemh ROM and the trigger table RAM as synth_ecp5
#     maps them (tools/gate-sim.sh check)
#   - boot from the RAM image in the block RAMs: the banner (target, sys clock), the four self-test checks pass
#   - the console answers `info` typed into the UART receive pin
#   - Ethernet through the RGMII DDR cells: the SoC's gratuitous ARP leaves with a good FCS and the board's MAC and
#     IPv4 address; an ARP request injected on the receive pins is answered with a good ARP reply
# Prints "[ok] ..." / "[FAIL] ..." per check, the cycles simulated and cycles/s, and "N passed, M failed, K skipped".
# The simulation runs the netlist put together with its cell models by yosys (tools/gate-sim.sh flatten_models).
# Not covered (yet): a FIX session and a hardware stop fired by a 35=W (the offload path needs a logged-on TCP
# session to the exchange), and the Zynq netlist (synth_xilinx).
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
t=$SECONDS
if tools/gate-sim.sh build "$BOARD" > "$LOGS/build.log" 2>&1; then
  ok "$BOARD: gate-level simulator built ($(( SECONDS - t )) s): $(grep -E '^== gate-level simulator: cache hit|^   \([0-9]+ s\) cells' "$LOGS/build.log" | sed 's/^== gate-level simulator: //; s/^ *//' | tr '\n' ' ')"
else
  bad "$BOARD: gate-level simulator build failed ($LOGS/build.log):"; tail -15 "$LOGS/build.log" | sed 's/^/   | /'
  finish
fi
# the DP16KD model first: everything below depends on it
if tools/gate-sim.sh check "$BOARD" > "$LOGS/bram-check.log" 2>&1 && grep -q 'bram check: [0-9]* reads, 0 mismatches' "$LOGS/bram-check.log"; then
  ok "DP16KD model vs synth_ecp5: a \$readmemh ROM (x9, INITVAL) and TfTableRam (x36, OUTREG, latency 2): $(grep -o '[0-9]* reads, 0 mismatches' "$LOGS/bram-check.log")"
else
  bad "DP16KD model check ($LOGS/bram-check.log):"; tail -12 "$LOGS/bram-check.log" | sed 's/^/   | /'
fi
sys_mhz=$(setting SYS_MHZ)
sys_hz=$(awk -v m="$sys_mhz" 'BEGIN { printf "%d", m * 1e6 + 0.5 }')
mac=$(setting NET_MAC); ip=$(setting NET_IP)
machex=$(echo "$mac" | tr -d ':' | tr 'A-F' 'a-f')
iphex=$(echo "$ip" | awk -F. '{ printf "%02x%02x%02x%02x", $1, $2, $3, $4 }')
peer_mac=020000000010; peer_ip=c0a8010a    # the injected request's sender (a host on the board's subnet)
# who has <board IP>? tell <peer>: Ethernet broadcast, ARP (htype 1, ptype IPv4, op 1)
arp_req="ffffffffffff${peer_mac}0806000108000604 0001${peer_mac}${peer_ip}000000000000${iphex}"
arp_req=${arp_req// /}
# the answer RFC 826 prescribes: to the sender, op 2, the board's MAC and IP as sender, the peer as target
arp_reply="${peer_mac}${machex}0806000108000604 0002${machex}${iphex}${peer_mac}${peer_ip}"
arp_reply=${arp_reply// /}
# the gratuitous ARP of the boot (fw/net/arp.c): broadcast, op 1, sender and target IP both the board's
garp="ffffffffffff${machex}08060001080006040001${machex}${iphex}"

log=$LOGS/boot.log
t=$SECONDS
# +eth-idle-div=8: the Ethernet clocks at 125/8 MHz while no frame goes in or out, 125 MHz around every frame
# (sim/gate/gate_main.cpp); the simulation's cost is then mostly the sys domain's
tools/gate-sim.sh run "$BOARD" +sys-hz="$sys_hz" +timeout=8000000 +eth-idle-div=8 \
  +uart-in='info\r' +uart-in-after='tf> ' +until='uptime ' \
  +eth-in="$arp_req" +eth-in-after='uptime ' +until-tx="$arp_reply" > "$log" 2>&1
rc=$?
wall=$(( SECONDS - t ))
tail -1 "$log" | grep -q '^gate: ' || bad "the simulation did not end normally (status $rc; $log)"
echo "   $(grep '^gate: EHXPLLL' "$log")"
echo "   $(tail -1 "$log") [wall $wall s]"

# PLL: CLKOP = 25 MHz / CLKI_DIV * CLKFB_DIV (feedback from CLKOP), CLKOS = CLKOP * CLKOP_DIV / CLKOS_DIV
read -r op os < <(sed -n 's/^gate: EHXPLLL CLKI_DIV=\([0-9]*\) CLKFB_DIV=\([0-9]*\) CLKOP_DIV=\([0-9]*\) CLKOS_DIV=\([0-9]*\) FEEDBK_PATH=CLKOP.*/\1 \2 \3 \4/p' "$log" \
  | awk '{ op = 25e6 / $1 * $2; printf "%d %d\n", op, op * $3 / $4 }')
if [ "${op:-0}" = 125000000 ] && [ "${os:-0}" = "$sys_hz" ]; then ok "EHXPLLL settings give CLKOP 125 MHz and CLKOS $sys_mhz MHz, the clocks the harness drives"
else bad "EHXPLLL settings give CLKOP ${op:-?} Hz and CLKOS ${os:-?} Hz; the harness drives 125 MHz and $sys_hz Hz"; fi

target=${BOARD//-/_}
if grep -q "^Triggerfish firmware .*(target $target)" "$log" && grep -q "sys clock $sys_hz Hz" "$log"; then
  ok "boot from the block RAMs' initial contents: banner (target $target, sys clock $sys_hz Hz)"
else bad "no banner for target $target at $sys_hz Hz (console: $log)"; fi
if grep -q 'selftest: 4 passed, 0 failed' "$log" && grep -q '^SELFTEST PASS' "$log" && ! grep -qE '^selftest: .*FAIL' "$log"; then
  ok "self-test: mul/div, cycle counter, timer interrupt, ram: 4 passed ($(grep -o 'selftest: 4 passed, 0 failed ([0-9]* cycles)' "$log"))"
else bad "self-test did not pass: $(grep -E 'selftest: .*(FAIL|passed)' "$log" | head -3 | tr '\n' ' ')"; fi
if grep -qE '^  uptime [0-9]+ ms, cycles [0-9]+' "$log"; then ok "console: 'info' typed into uart_rx answered ($(grep -oE 'uptime [0-9]+ ms' "$log"))"
else bad "the console did not answer 'info'"; fi
# (a frame line can follow console text that has not reached its newline yet: frames are found anywhere in a line)
frames() { grep -oE "gate: tx frame [0-9]+ bytes fcs $1 at cycle [0-9]+:[0-9a-f ]*" "$log" | sed 's/.*://' | tr -d ' '; }
if frames ok | grep -q "^$garp"; then ok "RGMII transmit: the boot's gratuitous ARP ($mac, $ip) with a good FCS"
else bad "no gratuitous ARP from $mac/$ip with a good FCS on the RGMII pins: $(grep -o 'gate: tx frame' "$log" | wc -l) frames"; fi
if [ $rc -eq 0 ] && frames ok | grep -q "^$arp_reply"; then
  ok "RGMII receive and transmit: the injected ARP request answered by an ARP reply with a good FCS"
else bad "no ARP reply to the injected request (status $rc; $log)"; fi
if grep -q 'gate: tx frame .* fcs BAD' "$log"; then bad "a frame with a bad FCS or no SFD left the RGMII pins"; fi
echo "   not covered: FIX session and a hardware stop fired by 35=W; the Zynq netlist (synth_xilinx) [skip]"
skip=$((skip + 1))
finish
