#!/usr/bin/env bash
# The `boards` test suite (tools/run-tests.sh): everything about the board builds that can be checked
# without a board attached.
#   - both Colorlight bitstreams build with the full SoC and meet timing in every clock domain
#     (sys, eth_tx, eth_rx; tools/board.sh fails otherwise), the bitstream and reports are there
#   - both Zynq boards synthesise (yosys synth_xilinx) with their resource report; when openXC7 is
#     installed they must also place, route, meet timing and pack
#   - the resources of every block of each board's SoC (tools/fpga-blocks.py), adding up to yosys's own total, the
#     CPU's RAM in its block RAMs, and the block each clock domain's critical path runs through
#   - the flows refuse what they must: an unknown board, flashing without a bitstream, SPI flash on Zynq, a firmware
#     build into a folder outside build/ or the board's own, or with an argument not VAR=value
#   - openFPGALoader (Debian) knows the boards and cables the flash commands name
#   - the build cache (tools/board.sh): `cache-key` recomputes the key a build used; the key follows the seed list
#     and the constraints' content and nothing else of what was tried here; a second build of one board is a cache hit
#     that says so and restores the identical bitstream and report (costs a regeneration, under a minute); on ECP5 a
#     firmware-only change is a cache hit too, its bitstream another one whose RAM is checked to hold that firmware
# Prints "[ok] ..." / "[FAIL] ..." / "[skip] ..." per check, the resource/Fmax summary of each board, and
# "N passed, M failed, K skipped" last; exit status 1 on any failure. BOARDS="..." builds a subset, BOARD_JOBS=n
# builds n at a time (2).
set -u
cd "$(dirname "$0")/.."
BOARDS=${BOARDS:-colorlight-i5 colorlight-5a-75b pynq-z1 pz7020-starlite}
LOGS=build/test-logs/boards
mkdir -p "$LOGS"
pass=0; fail=0; skip=0
ok()  { echo "[ok] $*"; pass=$((pass + 1)); }
bad() { echo "[FAIL] $*"; fail=$((fail + 1)); }
PY=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}/bin/python

summary() { # board: one line from summary.json
  "$PY" - "build/boards/$1/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
r = s["resources"]["yosys"]
if s["family"] == "ecp5":
    res = f"LUT4 {r['LUT4_total']} (logic {r['LUT4']}), FF {r['FF']}, BRAM {r['BRAM_DP16KD']} DP16KD, DSP {r['DSP_MULT18X18D']}"
else:
    res = f"LUT {r['LUT']} + {r['LUTRAM_cells']} LUTRAM, FF {r['FF']}, BRAM {r['BRAM36_equiv']:g} x36Kb, DSP {r['DSP48E1']}"
clk = ", ".join(f"{d} {c['achieved_mhz']}/{c['required_mhz']} MHz" for d, c in s["clocks"].items() if "achieved_mhz" in c)
t = s["times_s"].get("total")
ch = s.get("cache", {})
if ch.get("hit"):
    t = f"cache hit, built {ch.get('built')} in {ch.get('build_s')}"
c = s.get("config", {})
e = c.get("offload_entries")
off = ("with the offload" + (f" ({e} entries)" if e else "")) if c.get("offload") == "yes" else "without the offload"
print(f"{off}; {res}; {clk or 'no timing (synthesis only)'}; {t} s")
PY
}

# The builds and the per-block syntheses (below), BOARD_JOBS (2: the machines' cores) at a time: place and route and
# synthesis run on one core each, and every board builds in its own build/boards/<board> (Mill makes a second GenBoard
# wait for the first; the CPU's Verilog, shared by all, is made first). One queue for both kinds of job, taken in
# order, a board's per-block synthesis as soon as its build has ended: the long ones first, so that the second core
# is not idle while the i5 places and routes (the per-block syntheses used to start only after every build).
# Each build's exit status and time go to $LOGS/<board>.status, each per-block synthesis's to $LOGS/<board>.blocks.status.
build_one() {
  local start=$SECONDS rc
  tools/board.sh bitstream "$1" > "$LOGS/$1.log" 2>&1
  rc=$?
  echo "$rc $((SECONDS - start))" > "$LOGS/$1.status"
}
# Resources per block (tools/fpga-blocks.py: the same Verilog synthesised with the hierarchy kept, cached by its
# content; the block each clock domain's critical path runs through); only after a build that succeeded (the checks
# below then take the boards whose build passed its own checks).
blocks_one() {
  local rc
  read -r rc _ < "$LOGS/$1.status" 2>/dev/null || rc=1
  if [ "$rc" -ne 0 ]; then echo "not run: the build failed" > "$LOGS/$1.blocks.log"; echo 1 > "$LOGS/$1.blocks.status"; return; fi
  "$PY" tools/fpga-blocks.py "$1" --check > "$LOGS/$1.blocks.log" 2>&1; echo $? > "$LOGS/$1.blocks.status"
}
jobs_max=${BOARD_JOBS:-2}
[[ $jobs_max =~ ^[1-9][0-9]*$ ]] || { echo "BOARD_JOBS=$jobs_max: a positive number of builds at a time"; exit 2; }
make -s build/cpu/VexRiscv.v > "$LOGS/cpu.log" 2>&1 || { echo "[FAIL] the CPU's Verilog (make build/cpu/VexRiscv.v); see $LOGS/cpu.log"; exit 1; }
phase_start=$SECONDS
# the queue: every build in BOARDS's order, then the per-block syntheses, the Zynq boards' (minutes) before the
# Colorlights' (about one each)
queue=()
for b in $BOARDS; do rm -f "$LOGS/$b.status" "$LOGS/$b.blocks.status"; queue+=("build $b"); done
for fam in xc7 ecp5; do
  for b in $BOARDS; do [ "$(sed -n 's/^FAMILY *:= *//p' "boards/$b/board.mk")" = $fam ] && queue+=("blocks $b"); done
done
while [ ${#queue[@]} -gt 0 ]; do
  left=()
  for t in "${queue[@]}"; do
    set -- $t
    # a per-block synthesis waits for its board's build; everything waits for a free core
    if [ "$(jobs -rp | wc -l)" -lt "$jobs_max" ] && { [ "$1" = build ] || [ -f "$LOGS/$2.status" ]; }; then
      "$1_one" "$2" &
    else
      left+=("$t")
    fi
  done
  queue=("${left[@]+"${left[@]}"}")
  [ ${#queue[@]} -gt 0 ] && { wait -n; true; }
done
wait
echo "     (the builds and per-block syntheses took $((SECONDS - phase_start)) s, $jobs_max at a time)"

built_ok=""
for b in $BOARDS; do
  read -r rc secs < "$LOGS/$b.status" 2>/dev/null || { rc=1; secs=0; }
  family=$(sed -n 's/^FAMILY *:= *//p' "boards/$b/board.mk")
  if [ "$family" = ecp5 ] || [ -f "build/boards/$b/$b.bit" ] || command -v nextpnr-xilinx > /dev/null; then
    met=$("$PY" -c "import json,sys; print(json.load(open('build/boards/$b/summary.json'))['timing_met'])" 2>/dev/null)
    if [ $rc -eq 0 ] && [ -s "build/boards/$b/$b.bit" ] && [ "$met" = True ] && [ -s "build/boards/$b/report.txt" ]; then
      ok "$b: bitstream, timing met in every clock domain ($secs s): $(summary "$b")"
      built_ok="$built_ok $b"
    else
      bad "$b: exit $rc, timing_met=$met ($secs s); see $LOGS/$b.log"
      grep -E "^  |NOT MET|ERROR|rror" "$LOGS/$b.log" | head -8 | sed 's/^/     /'
    fi
  else
    luts=$("$PY" -c "import json; print(json.load(open('build/boards/$b/summary.json'))['resources']['yosys']['LUT'])" 2>/dev/null)
    if [ $rc -eq 0 ] && [ "${luts:-0}" -gt 0 ] && grep -q "nextpnr-xilinx (openXC7) is not on PATH" "$LOGS/$b.log"; then
      ok "$b: synthesis and resource report; stops before place and route without openXC7, and says so ($secs s): $(summary "$b")"
      built_ok="$built_ok $b"
    else
      bad "$b: exit $rc, LUT=${luts:-none} ($secs s); see $LOGS/$b.log"
      tail -5 "$LOGS/$b.log" | sed 's/^/     /'
    fi
  fi
done

# Resources per block (the syntheses ran beside the builds above), checked against what does not come from the
# roll-up: yosys's own total for the design (--check), the blocks every board's SoC has, and the CPU's RAM, whose
# block RAMs follow from the board's RAM size (an ECP5 DP16KD holds 2 KiB of data, a Xilinx RAMB36E1 4 KiB).
for b in $built_ok; do
  rc=$(cat "$LOGS/$b.blocks.status" 2>/dev/null || echo 1)
  family=$(sed -n 's/^FAMILY *:= *//p' "boards/$b/board.mk")
  ram_kib=$(sed -n 's/^RAM_KIB *:= *//p' "boards/$b/board.mk"); ram_kib=${ram_kib:-80}
  per=$([ "$family" = ecp5 ] && echo 2 || echo 4)
  verdict=$("$PY" - "build/boards/$b/blocks.json" "$((ram_kib / per))" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); want_ram = float(sys.argv[2])
by = {b["block"]: b for b in j["blocks"]}
lut = "LUT4_total" if j["family"] == "ecp5" else "LUT"
need = ["VexRiscv", "EthFrameBuffers", "OffloadRx", "OrderEngine"]   # logic (the RAM is checked by its block RAMs)
bad = [n for n in need + ["TfRam"] if n not in by or (n in need and (by[n][lut] <= 0 or by[n]["FF"] <= 0))]
if bad: print("missing or empty: " + ", ".join(bad)); sys.exit()
if by["TfRam"]["BRAM"] != want_ram: print(f"the RAM block has {by['TfRam']['BRAM']:g} block RAMs, its size wants {want_ram:g}"); sys.exit()
top = sorted(j["blocks"], key=lambda b: -b[lut])[:3]
paths = "; ".join(f"{c.split('.')[-1]} in {p['start_block']}" for c, p in sorted(j["critical_paths"].items()))
print("ok " + ", ".join(f"{b['block']} {b[lut]}" for b in top) + f" of {j['total_hierarchical'][lut]} {lut.split('_')[0]}"
      + (f"; critical paths: {paths}" if paths else ""))
PY
)
  if [ "$rc" -eq 0 ] && [ "${verdict%% *}" = ok ]; then
    ok "$b: resources per block, adding up to yosys's total, the RAM's $((ram_kib / per)) block RAMs in its block: ${verdict#ok }"
  else
    bad "$b: resources per block: exit $rc, ${verdict:-no blocks.json}; see $LOGS/$b.blocks.log"
    tail -5 "$LOGS/$b.blocks.log" | sed 's/^/     /'
  fi
  sed 's/^/     /' "build/boards/$b/blocks.txt" 2>/dev/null
done

# The build cache.
# build_other_ip <board>: a firmware-only change, the board built with another IPv4 address compiled in; sets other_ip,
# k_ip (the cache key with it), rc and secs (the build's exit and time; its log is $LOGS/<board>-other-ip.log)
build_other_ip() {
  local ip start
  ip=$(sed -n 's/^NET_IP *:= *//p' "boards/$1/board.mk")
  other_ip=${ip%.*}.$(( (${ip##*.} % 250) + 1 ))
  k_ip=$(NET_IP=$other_ip tools/board.sh cache-key "$1" 2>&1)
  start=$SECONDS
  NET_IP=$other_ip tools/board.sh bitstream "$1" > "$LOGS/$1-other-ip.log" 2>&1
  rc=$?
  secs=$((SECONDS - start))
}
is_key() { [[ $1 =~ ^[0-9a-f]{24}$ ]]; }
json_get() { "$PY" -c "import json,sys; v=json.load(open(sys.argv[1])); [v := v.get(k, {}) for k in sys.argv[2:]]; print(v)" "$@" 2>/dev/null; }
if [ "${TF_BOARD_CACHE:-}" = off ] || [ -z "$built_ok" ]; then
  why=${TF_BOARD_CACHE:+TF_BOARD_CACHE=$TF_BOARD_CACHE}
  [ -n "$built_ok" ] || why="${why:+$why, }no board built"
  echo "[skip] the cache checks ($why)"; skip=$((skip + 1))
else
  for b in $built_ok; do
    used=$(json_get "build/boards/$b/summary.json" cache key)
    now=$(tools/board.sh cache-key "$b" 2>&1)
    again=$(tools/board.sh cache-key "$b" 2>&1)
    if is_key "$used" && [ "$now" = "$used" ] && [ "$again" = "$used" ]; then ok "$b: cache-key recomputes the key its build used ($used)"
    else bad "$b: cache key recorded by the build '$used', cache-key now '$now', again '$again'"; fi
  done
  # prefer a board with a bitstream (ECP5) for the checks that rebuild
  cb=""
  for b in $built_ok; do [ -f "build/boards/$b/$b.bit" ] && { cb=$b; break; }; done
  cb=${cb:-$(echo $built_ok | cut -d' ' -f1)}  # (built_ok starts with a space)
  key=$(json_get "build/boards/$cb/summary.json" cache key)
  seeds=$(sed -n 's/^SEEDS *:= *//p' "boards/$cb/board.mk")
  reversed=$(echo $(echo "$seeds" | tr ' ' '\n' | tac))
  k_same=$(SEEDS="$seeds" tools/board.sh cache-key "$cb" 2>&1)
  k_more=$(SEEDS="$seeds 9" tools/board.sh cache-key "$cb" 2>&1)
  k_order=$(SEEDS="$reversed" tools/board.sh cache-key "$cb" 2>&1)
  if [ "$k_same" = "$key" ] && [ "$k_more" != "$key" ] && is_key "$k_more" && { { [ "$k_order" != "$key" ] && is_key "$k_order"; } || [ "$seeds" = "$reversed" ]; }; then
    ok "$cb: the cache key follows the seed list: SEEDS=\"$seeds\" (board.mk's) keeps it, \"$seeds 9\" and \"$reversed\" change it"
  else bad "$cb: cache key $key; with SEEDS=\"$seeds\": $k_same, \"$seeds 9\": $k_more, \"$reversed\": $k_order"; fi
  constraints=$(sed -n 's/^\(LPF\|XDC\) *:= *//p' "boards/$cb/board.mk")
  scratch=build/test-logs/boards/constraints
  mkdir -p "$scratch"
  cp "boards/$cb/$constraints" "$scratch/same"
  { cat "boards/$cb/$constraints"; echo "# one more line"; } > "$scratch/changed"
  k_copy=$(tools/board.sh cache-key "$cb" --constraints "$scratch/same" 2>&1)
  k_changed=$(tools/board.sh cache-key "$cb" --constraints "$scratch/changed" 2>&1)
  if [ "$k_copy" = "$key" ] && [ "$k_changed" != "$key" ] && is_key "$k_changed"; then
    ok "$cb: the cache key follows the constraints' content: a copy of $constraints keeps it, one more line changes it"
  else bad "$cb: cache key $key; with a copy of $constraints: $k_copy, with a line added: $k_changed"; fi
  out=$(tools/board.sh cache-key no-such-board 2>&1); rc=$?
  if [ $rc -ne 0 ] && echo "$out" | grep -q "unknown BOARD"; then ok "cache-key of an unknown board: refused"
  else bad "cache-key no-such-board: exit $rc: $out"; fi

  # a second build of the same board: a cache hit, said so, with the same bytes and report
  first=build/test-logs/boards/first
  rm -rf "$first"; mkdir -p "$first"
  cp build/boards/"$cb"/{report.txt,summary.json,stat.txt} "$first"/
  [ -f "build/boards/$cb/$cb.bit" ] && cp "build/boards/$cb/$cb.bit" "$first/"
  start=$SECONDS
  tools/board.sh bitstream "$cb" > "$LOGS/$cb-again.log" 2>&1
  rc=$?
  secs=$((SECONDS - start))
  hit=$(json_get "build/boards/$cb/summary.json" cache hit)
  same_bits=yes
  if [ -f "$first/$cb.bit" ]; then cmp -s "$first/$cb.bit" "build/boards/$cb/$cb.bit" || same_bits=no; what="bitstream"
  else cmp -s "$first/stat.txt" "build/boards/$cb/stat.txt" || same_bits=no; what="synthesis report (no bitstream without openXC7)"; fi
  same_report=yes
  diff -q <(grep -v '^cache: hit' "$first/report.txt") <(grep -v '^cache: hit' "build/boards/$cb/report.txt") > /dev/null || same_report=no
  if [ $rc -eq 0 ] && grep -q "^== cache hit: $key," "$LOGS/$cb-again.log" && [ "$hit" = True ] && [ $same_bits = yes ] \
     && [ $same_report = yes ] && grep -q "^cache: hit $key" "build/boards/$cb/report.txt"; then
    ok "$cb: a second build is a cache hit ($secs s), says so in its output, report.txt and summary.json, and restores the identical $what and report"
  else
    bad "$cb: second build: exit $rc, cache hit in summary.json: $hit, identical $what: $same_bits, same report: $same_report ($secs s); see $LOGS/$cb-again.log"
    grep -E "^== cache|rror" "$LOGS/$cb-again.log" | head -5 | sed 's/^/     /'
  fi
  # the netlist the gate-level simulation takes (tools/board.sh netlist) is the board build's synthesis, from the netlist
  # cache: asked twice (the first synthesises only when the cache lacks the entry), the second a hit, and both the same
  # netlist as the build's (yosys's statistics, cell for cell), the RAM's files left holding the firmware
  nl=build/test-logs/boards/netlist
  rm -rf "$nl"; mkdir -p "$nl/1" "$nl/2"
  tools/board.sh netlist "$cb" "$nl/1" > "$LOGS/$cb-netlist-1.log" 2>&1; rc1=$?
  start=$SECONDS
  tools/board.sh netlist "$cb" "$nl/2" > "$LOGS/$cb-netlist-2.log" 2>&1; rc=$?
  secs=$((SECONDS - start))
  if [ $rc1 -eq 0 ] && [ $rc -eq 0 ] && grep -q "netlist cache hit [0-9a-f]\{24\} " "$LOGS/$cb-netlist-2.log" \
     && cmp -s "$nl/1/stat.txt" "build/boards/$cb/stat.txt" && cmp -s "$nl/2/stat.txt" "build/boards/$cb/stat.txt" \
     && cmp -s "$nl/1/top.json" "$nl/2/top.json" && [ "$(cat "build/boards/$cb/ram/CONTENT" 2>/dev/null)" = firmware ]; then
    ok "$cb: the gate-level simulation's netlist is the board build's synthesis (same statistics), from the netlist cache ($secs s): $(grep -o 'netlist cache [a-z]* [0-9a-f]*' "$LOGS/$cb-netlist-1.log") then $(grep -o 'netlist cache [a-z]* [0-9a-f]*' "$LOGS/$cb-netlist-2.log")"
  else
    bad "$cb: tools/board.sh netlist: exit $rc1 / $rc, statistics as the build's: $(cmp -s "$nl/2/stat.txt" "build/boards/$cb/stat.txt" && echo yes || echo no), RAM files hold $(cat "build/boards/$cb/ram/CONTENT" 2>/dev/null); see $LOGS/$cb-netlist-2.log"
  fi
  rm -rf "$nl"
  # ECP5: the firmware is written into the routed design afterwards (tools/board.sh ram_patch), so a firmware-only
  # change (another IPv4 address compiled in) keeps the key and is a cache hit, with another bitstream whose RAM
  # holds that firmware (tools/bram-check.py, run by the build, compares the block RAMs with the image)
  if [ "$(sed -n 's/^FAMILY *:= *//p' "boards/$cb/board.mk")" = ecp5 ] && [ -f "$first/$cb.bit" ]; then
    build_other_ip "$cb"
    cp "build/boards/$cb/$cb.bit" "$first/$cb-other-ip.bit" 2>/dev/null
    checked=$(grep -c "RAM image checked in the bitstream's configuration" "$LOGS/$cb.log" "$LOGS/$cb-other-ip.log" | awk -F: '{ s += $2 } END { print s }')
    if [ $rc -eq 0 ] && [ "$k_ip" = "$key" ] && grep -q "^== cache hit: $key," "$LOGS/$cb-other-ip.log" && [ "$checked" = 2 ] \
       && ! cmp -s "$first/$cb.bit" "$first/$cb-other-ip.bit"; then
      ok "$cb: a firmware-only change (NET_IP=$other_ip) keeps the key, is a cache hit ($secs s) and gives another bitstream, its RAM checked to hold that firmware: $(grep -o 'RAM image checked.*' "$LOGS/$cb-other-ip.log" | cut -c1-140)"
    else
      bad "$cb: NET_IP=$other_ip: exit $rc, key $k_ip (default's $key), RAM checks passed $checked of 2, bitstreams differ: $(cmp -s "$first/$cb.bit" "$first/$cb-other-ip.bit" && echo no || echo yes); see $LOGS/$cb-other-ip.log"
    fi
    # (back to the board's own firmware, a cache hit again: the same bitstream as the first build)
    tools/board.sh bitstream "$cb" > "$LOGS/$cb-back.log" 2>&1 && cmp -s "$first/$cb.bit" "build/boards/$cb/$cb.bit" \
      || bad "$cb: rebuilding with board.mk's settings after NET_IP=$other_ip did not give the first bitstream back; see $LOGS/$cb-back.log"
  fi
  # Zynq without openXC7: synthesis only, with the placeholder in the RAM (tools/board.sh netlist_ram), so a
  # firmware-only change keeps the key and is a cache hit, and the board's RAM files hold that firmware afterwards
  zb=""
  for b in $built_ok; do [ ! -f "build/boards/$b/$b.bit" ] && [ "$(sed -n 's/^FAMILY *:= *//p' "boards/$b/board.mk")" = xc7 ] && { zb=$b; break; }; done
  if [ -z "$zb" ]; then echo "[skip] a Zynq board's firmware-only change (no synthesis-only Zynq build here)"; skip=$((skip + 1))
  else
    zkey=$(json_get "build/boards/$zb/summary.json" cache key)
    build_other_ip "$zb"
    if [ $rc -eq 0 ] && [ "$k_ip" = "$zkey" ] && grep -q "^== cache hit: $zkey," "$LOGS/$zb-other-ip.log" \
       && [ "$(cat "build/boards/$zb/ram/CONTENT" 2>/dev/null)" = firmware ] \
       && cmp -s "build/boards/$zb/fw/firmware.hex.lane0" "build/boards/$zb/ram/ram.hex.lane0"; then
      ok "$zb: synthesis only, so a firmware-only change (NET_IP=$other_ip) keeps the key and is a cache hit ($secs s); the RAM files hold that firmware"
    else
      bad "$zb: NET_IP=$other_ip: exit $rc, key $k_ip (default's $zkey), RAM files hold: $(cat "build/boards/$zb/ram/CONTENT" 2>/dev/null); see $LOGS/$zb-other-ip.log"
    fi
    tools/board.sh bitstream "$zb" > "$LOGS/$zb-back.log" 2>&1 && grep -q "^== cache hit: $zkey," "$LOGS/$zb-back.log" \
      || bad "$zb: rebuilding with board.mk's settings after NET_IP=$other_ip was not a cache hit; see $LOGS/$zb-back.log"
  fi
fi

# The flows refuse what they must.
out=$(tools/board.sh bitstream no-such-board 2>&1); rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "colorlight-i5" ; then ok "unknown BOARD: refused, the boards are listed"
else bad "unknown BOARD: exit $rc: $out"; fi
out=$(tools/board.sh flash pynq-z1 spi 2>&1); rc=$?
if [ $rc -ne 0 ] && echo "$out" | grep -q "no SPI flash"; then ok "flash FLASH=spi on a Zynq board: refused (volatile load only)"
else bad "flash FLASH=spi on pynq-z1: exit $rc: $out"; fi
# tools/board.sh firmware (the gate-level runs' firmware): a folder outside build/, the board's own fw/, or an argument
# that is not a VAR=value setting is refused before anything is built
for a in "/tmp/tf-fw" "build/boards/colorlight-i5/fw" "build/x/../../fw" "build/tf-fw UART_DIVISOR" "build/tf-fw uart_divisor=8"; do
  # shellcheck disable=SC2086
  out=$(tools/board.sh firmware colorlight-i5 $a 2>&1); rc=$?
  if [ $rc -eq 2 ] && echo "$out" | grep -q "^firmware: " && [ ! -e build/tf-fw ]; then ok "board.sh firmware colorlight-i5 $a: refused ($out)"
  else bad "board.sh firmware colorlight-i5 $a: exit $rc: $out"; rm -rf build/tf-fw; fi
done

# openFPGALoader knows what the flash commands name.
if command -v openFPGALoader > /dev/null; then
  boards_list=$(openFPGALoader --list-boards 2>&1); cables_list=$(openFPGALoader --list-cables 2>&1)
  missing=""
  for b in boards/*/board.mk; do
    args=$(sed -n 's/^OFL_ARGS *:= *//p' "$b" | sed "s/{CABLE}/$(sed -n 's/^CABLE *:= *//p' "$b")/")
    set -- $args
    while [ $# -gt 0 ]; do
      case $1 in
        -b) echo "$boards_list" | grep -qE "^$2 " || missing="$missing board:$2"; shift 2 ;;
        -c) echo "$cables_list" | grep -qE "^$2 " || missing="$missing cable:$2"; shift 2 ;;
        *) shift ;;
      esac
    done
  done
  if [ -z "$missing" ]; then ok "openFPGALoader $(openFPGALoader -V 2>&1 | head -1 | awk '{print $NF}') knows every board/cable the flash commands use"
  else bad "openFPGALoader lacks:$missing"; fi
else
  bad "openFPGALoader is not installed (make deps installs Debian's openfpgaloader)"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
