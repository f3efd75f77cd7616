# Shared helpers for the whole-SoC simulation tests (sourced).
# run_sim LOG FIRMWARE_HEX [plusargs...]: runs the model, output to LOG; returns the harness's exit code.
SIM_BIN=${SIM_BIN:-build/sim/obj/VSoc}
run_sim() {
  local log=$1 fw=$2; shift 2
  "$SIM_BIN" +firmware="$fw" "$@" > "$log" 2>&1
}
# where_stopped LOG ELF: "function at file:line" for the pc the harness reported on a timeout.
where_stopped() {
  local pc
  pc=$(sed -n 's/.*last pc \(0x[0-9a-f]*\).*/\1/p' "$1" | tail -1)
  [ -n "$pc" ] || return 0
  riscv64-unknown-elf-addr2line -f -p -e "$2" "$pc" | sed "s|$(pwd)/||"
}
