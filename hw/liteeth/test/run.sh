#!/usr/bin/env bash
# Triggerfish: standalone test of the generated LiteEth raw-stream MAC (hw/liteeth/gen_mac.py).
#  1. gmii variant WITH the CRC fix: Verilator C++ testbench (RX good/bad-FCS frames, TX frames at line rate,
#     latencies). Every check must pass.
#  2. gmii variant built with --no-crc-fix (stock liteeth 2024.12 behaviour): the same testbench must FAIL
#     to flag bad-FCS frames (proves the bug and that the fix is what makes 1. pass).
#  2b. gmii variant with --no-crc-buffers: all testbench checks must pass (latencies 1 cycle lower each way).
#  2c. gmii variant with --fast-crc-check (used by the board builds): all checks pass, same latencies as 1.
#  2d. gmii variant as the SoC assembles it (--fast-crc-check --no-tx-crc-buffer): all checks pass, RX latency as 1.,
#      TX latency exactly one cycle less.
#  2e. the early fires' variant (--tx-poison --rx-raw), testbench in poison mode (+poison=1, built with -DTB_POISON): about half of
#      the TX frames poisoned with their last byte (isolated, back to back, and short back-to-back ones whose last byte
#      is taken while the previous FCS is still in the pipeline), tx_poison random in every other cycle; every frame
#      byte-exact (poisoned: last FCS byte XOR 0xFF); all checks pass, latencies (lat_min) equal to 2d's, and the gap
#      and line-rate lines identical to 2d's.
#  3. rgmii_ecp5, rgmii_s7, mii, rmii variants: generated and `verilator --lint-only` with port-only primitive stubs;
#     lists the vendor primitives each one instantiates.
# Output under build/liteeth/test. Final line: "N passed, M failed"; exit status 1 on any failure.
# Env: PYTHON (default ~/.cache/triggerfish/venv/bin/python), VERILATOR (default verilator),
#      TB_ARGS (plusargs for the testbench, e.g. "+seed=7 +rx_good=500").
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
# Verilator builds with make, which cannot work under a path with a space (tools/nospace.sh)
NS="$("$ROOT/tools/nospace.sh" root)"
PY="${PYTHON:-$HOME/.cache/triggerfish/venv/bin/python}"
VL="${VERILATOR:-verilator}"
OUT="$ROOT/build/liteeth/test"
TB_ARGS="${TB_ARGS:-+seed=1}"
mkdir -p "$OUT"
pass=0; fail=0
ok()  { echo "PASS $*"; pass=$((pass+1)); }
bad() { echo "FAIL $*"; fail=$((fail+1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

gen() { # phy name [flags]
  local phy=$1 name=$2; shift 2
  "$PY" "$HERE/../gen_mac.py" --phy "$phy" --out "$OUT/gen" --name "$name" "$@" > "$OUT/gen_$name.log" 2>&1
}
build_tb() { # name [verilator args, e.g. -CFLAGS -DTB_POISON]
  local name=$1; shift
  "$VL" "$@" --cc --exe --build -O2 -j 2 -Wno-fatal -Wno-lint -Wno-style --x-assign fast --x-initial fast \
    --top-module "$name" --prefix Vdut -Mdir "$("$ROOT/tools/nospace.sh" dir "build/liteeth/test/obj_$name")" -o "tb_$name" \
    "$NS/build/liteeth/test/gen/$name.v" "$NS/hw/liteeth/test/tb_gmii.cpp" > "$OUT/build_$name.log" 2>&1
}

# ---- 1. gmii with the CRC fix
if gen gmii liteeth_mac_gmii && build_tb liteeth_mac_gmii; then
  ok "build_gmii: generated and verilated ($OUT/gen/liteeth_mac_gmii.v)"
  "$OUT/obj_liteeth_mac_gmii/tb_liteeth_mac_gmii" $TB_ARGS > "$OUT/tb_gmii.log" 2>&1
  rc=$?
  sed -n '/^RX: /p' "$OUT/tb_gmii.log"
  while read -r st rest; do
    case "$st" in PASS) ok "gmii.$rest";; FAIL) bad "gmii.$rest";; esac
  done < <(grep -E '^(PASS|FAIL) ' "$OUT/tb_gmii.log")
  grep -q '^RESULT ' "$OUT/tb_gmii.log" || bad "gmii testbench did not finish (rc=$rc), see $OUT/tb_gmii.log"
else
  bad "build_gmii: see $OUT/gen_liteeth_mac_gmii.log / $OUT/build_liteeth_mac_gmii.log"
fi

# ---- 2. gmii without the fix: bad frames must go unflagged
if gen gmii liteeth_mac_gmii_nocrcfix --no-crc-fix && build_tb liteeth_mac_gmii_nocrcfix; then
  "$OUT/obj_liteeth_mac_gmii_nocrcfix/tb_liteeth_mac_gmii_nocrcfix" $TB_ARGS > "$OUT/tb_gmii_nocrcfix.log" 2>&1
  line=$(grep -E '^(PASS|FAIL) rx_bad_fcs_flagged' "$OUT/tb_gmii_nocrcfix.log")
  if grep -q '^PASS rx_good_frames' "$OUT/tb_gmii_nocrcfix.log" && [[ "$line" == FAIL* ]]; then
    ok "crc_bug_reproduced: without the fix (--no-crc-fix) ${line#FAIL rx_bad_fcs_flagged: }"
  else
    bad "crc_bug_reproduced: expected the unfixed build to miss bad FCS frames; got: $line"
  fi
else
  bad "build_gmii_nocrcfix: see $OUT/build_liteeth_mac_gmii_nocrcfix.log"
fi

# ---- 2b. gmii with --no-crc-buffers (optional low-latency assembly): must pass the same checks
if gen gmii liteeth_mac_gmii_nobuf --no-crc-buffers && build_tb liteeth_mac_gmii_nobuf; then
  "$OUT/obj_liteeth_mac_gmii_nobuf/tb_liteeth_mac_gmii_nobuf" $TB_ARGS > "$OUT/tb_gmii_nobuf.log" 2>&1
  rc=$?
  lat=$(grep -E '^(PASS|FAIL) (rx|tx)_latency' "$OUT/tb_gmii_nobuf.log" | sed -E 's/ \(edge.*//; s/^(PASS|FAIL) //' | tr '\n' ' ')
  if [ $rc -eq 0 ]; then ok "gmii_nobuf: all testbench checks pass with --no-crc-buffers; $lat"
  else bad "gmii_nobuf: $(grep -c '^FAIL' "$OUT/tb_gmii_nobuf.log") testbench checks failed, see $OUT/tb_gmii_nobuf.log"; fi
else
  bad "build_gmii_nobuf: see $OUT/build_liteeth_mac_gmii_nobuf.log"
fi

# ---- 2c. gmii with --fast-crc-check (the boards' RX FCS checker): every check, and the same latencies as 1.
if gen gmii liteeth_mac_gmii_fastcrc --fast-crc-check && build_tb liteeth_mac_gmii_fastcrc; then
  "$OUT/obj_liteeth_mac_gmii_fastcrc/tb_liteeth_mac_gmii_fastcrc" $TB_ARGS > "$OUT/tb_gmii_fastcrc.log" 2>&1
  rc=$?
  lat_fast=$(grep -E '^(PASS|FAIL) (rx|tx)_latency' "$OUT/tb_gmii_fastcrc.log" | sed -E 's/^(PASS|FAIL) //')
  lat_std=$(grep -E '^(PASS|FAIL) (rx|tx)_latency' "$OUT/tb_gmii.log" 2>/dev/null | sed -E 's/^(PASS|FAIL) //')
  if [ $rc -ne 0 ]; then
    bad "gmii_fastcrc: $(grep -c '^FAIL' "$OUT/tb_gmii_fastcrc.log") testbench checks failed, see $OUT/tb_gmii_fastcrc.log"
  elif [ "$lat_fast" != "$lat_std" ]; then
    bad "gmii_fastcrc: latencies differ from the stock checker's: $(echo "$lat_fast" | tr '\n' ' ')"
  else
    ok "gmii_fastcrc: all testbench checks pass with --fast-crc-check, latencies identical to the stock checker"
  fi
else
  bad "build_gmii_fastcrc: see $OUT/gen_liteeth_mac_gmii_fastcrc.log / $OUT/build_liteeth_mac_gmii_fastcrc.log"
fi

# ---- 2d. gmii with the SoC's assembly (--fast-crc-check --no-tx-crc-buffer, as the boards and the simulation build
# it): every check; RX latency the stock checker's, TX (tx_valid -> TX_EN, -> first DA byte) exactly one cycle less.
lat_min() { # log rx|tx N -> the Nth "min N" figure of that latency line (tx: 1 TX_EN, 2 the first DA byte)
  grep -E "^PASS ${2}_latency" "$1" 2>/dev/null | grep -oE 'min [0-9]+' | sed -n "${3}p" | cut -d' ' -f2
}
if gen gmii liteeth_mac_gmii_soc --fast-crc-check --no-tx-crc-buffer && build_tb liteeth_mac_gmii_soc; then
  "$OUT/obj_liteeth_mac_gmii_soc/tb_liteeth_mac_gmii_soc" $TB_ARGS > "$OUT/tb_gmii_soc.log" 2>&1
  rc=$?
  rx_s=$(lat_min "$OUT/tb_gmii.log" rx 1); rx_n=$(lat_min "$OUT/tb_gmii_soc.log" rx 1)
  tx_s=$(lat_min "$OUT/tb_gmii.log" tx 1); tx_n=$(lat_min "$OUT/tb_gmii_soc.log" tx 1)
  da_s=$(lat_min "$OUT/tb_gmii.log" tx 2); da_n=$(lat_min "$OUT/tb_gmii_soc.log" tx 2)
  if [ $rc -ne 0 ]; then
    bad "gmii_soc: $(grep -c '^FAIL' "$OUT/tb_gmii_soc.log") testbench checks failed, see $OUT/tb_gmii_soc.log"
  elif [ -z "$rx_s" ] || [ -z "$tx_s" ] || [ -z "$da_s" ] || [ "$rx_n" != "$rx_s" ] \
       || [ "$tx_n" != "$((tx_s - 1))" ] || [ "$da_n" != "$((da_s - 1))" ]; then
    bad "gmii_soc: latencies rx $rx_n (stock ${rx_s:-?}), tx_valid -> TX_EN $tx_n (stock ${tx_s:-?}), -> DA $da_n (stock ${da_s:-?}): expected rx the same, tx one less"
  else
    ok "gmii_soc: all checks pass with --fast-crc-check --no-tx-crc-buffer; rx $rx_n cycles as stock, tx_valid -> TX_EN $tx_n and -> first DA byte $da_n (stock $tx_s and $da_s)"
  fi
else
  bad "build_gmii_soc: see $OUT/gen_liteeth_mac_gmii_soc.log / $OUT/build_liteeth_mac_gmii_soc.log"
fi

# ---- 2e. the early fires' variant (--tx-poison --rx-raw): poison mode; every check, and 2d's latency and gap figures
if gen gmii liteeth_mac_gmii_early --fast-crc-check --no-tx-crc-buffer --tx-poison --rx-raw \
   && build_tb liteeth_mac_gmii_early -CFLAGS -DTB_POISON=1; then
  "$OUT/obj_liteeth_mac_gmii_early/tb_liteeth_mac_gmii_early" $TB_ARGS +poison=1 > "$OUT/tb_gmii_early.log" 2>&1
  rc=$?
  pline=$(grep -E '^(PASS|FAIL) tx_poison' "$OUT/tb_gmii_early.log")
  rx_d=$(lat_min "$OUT/tb_gmii_soc.log" rx 1); rx_p=$(lat_min "$OUT/tb_gmii_early.log" rx 1)
  tx_d=$(lat_min "$OUT/tb_gmii_soc.log" tx 1); tx_p=$(lat_min "$OUT/tb_gmii_early.log" tx 1)
  da_d=$(lat_min "$OUT/tb_gmii_soc.log" tx 2); da_p=$(lat_min "$OUT/tb_gmii_early.log" tx 2)
  gap_d=$(grep -E '^PASS tx_(ifg|line_rate)' "$OUT/tb_gmii_soc.log" 2>/dev/null)
  gap_p=$(grep -E '^PASS tx_(ifg|line_rate)' "$OUT/tb_gmii_early.log")
  if [ $rc -ne 0 ] || [[ "$pline" != PASS* ]]; then
    bad "gmii_early: $(grep -c '^FAIL' "$OUT/tb_gmii_early.log") testbench checks failed (${pline:-no tx_poison line}), see $OUT/tb_gmii_early.log"
  elif [ -z "$rx_d" ] || [ -z "$tx_d" ] || [ -z "$da_d" ] || [ "$rx_p" != "$rx_d" ] || [ "$tx_p" != "$tx_d" ] \
       || [ "$da_p" != "$da_d" ]; then
    bad "gmii_early: latencies rx $rx_p, tx_valid -> TX_EN $tx_p, -> DA $da_p; without them (2d) ${rx_d:-?}, ${tx_d:-?}, ${da_d:-?}"
  elif [ -z "$gap_d" ] || [ "$gap_p" != "$gap_d" ]; then
    bad "gmii_early: gap / line-rate figures differ from 2d's: $(echo "$gap_p" | tr '\n' ' ')"
  else
    ok "gmii_early: all checks pass with --tx-poison --rx-raw; ${pline#PASS tx_poison: }; rx $rx_p, tx_valid -> TX_EN $tx_p, -> first DA byte $da_p cycles, gap and line rate as without them (2d)"
  fi
else
  bad "build_gmii_early: see $OUT/gen_liteeth_mac_gmii_early.log / $OUT/build_liteeth_mac_gmii_early.log"
fi

# ---- 3. other variants: generate + lint, list primitives
for phy in rgmii_ecp5 rgmii_s7 mii rmii; do
  name="liteeth_mac_$phy"
  if ! gen "$phy" "$name"; then bad "gen_$phy: see $OUT/gen_$name.log"; continue; fi
  prims=$(grep -oE '^[A-Z][A-Z0-9_]+ ' "$OUT/gen/$name.v" | sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
  if "$VL" --lint-only -Wno-fatal -Wno-lint -Wno-style --top-module "$name" \
       "$HERE/prim_stubs.v" "$OUT/gen/$name.v" > "$OUT/lint_$name.log" 2>&1; then
    ok "lint_$phy: verilator --lint-only: no errors (lint/style warnings off); primitives: ${prims:-none}"
  else
    bad "lint_$phy: see $OUT/lint_$name.log"
  fi
done
finish
