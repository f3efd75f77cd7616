# Shared helpers for the whole-SoC simulation tests in shell (sourced). A test that drives the SoC (a FIX session,
# stops, counters, ...) is written in Python on sim/tests/soc.py instead: it boots the SoC with its console on a TCP
# port and talks tfctl, the console's machine protocol (typed replies and events, docs/PROTOCOL.md). What is left
# here serves the tests whose subject is the human console itself (test_selftest.sh: the boot banner and the
# self-test's lines) and the harness's own control channel.
# run_sim LOG FIRMWARE_HEX [plusargs...]: runs the model, output to LOG; returns the harness's exit code.
SIM_BIN=${SIM_BIN:-build/sim/obj/VSoc}
run_sim() {
  local log=$1 fw=$2; shift 2
  "$SIM_BIN" +firmware="$fw" "$@" > "$log" 2>&1
}
# where_stopped LOG ELF: "function at file:line" for the pc the harness reported on a timeout, with the functions it
# was inlined into ("... (inlined by) caller at file:line": with link-time optimisation the last fetched word of a
# loop can belong to an inlined call just before it, and the caller is where the firmware was).
where_stopped() {
  local pc
  pc=$(sed -n 's/.*last pc \(0x[0-9a-f]*\).*/\1/p' "$1" | tail -1)
  [ -n "$pc" ] || return 0
  riscv64-unknown-elf-addr2line -i -f -p -e "$2" "$pc" | sed "s|$(pwd)/||" | tr '\n' ' ' | sed 's/  */ /g; s/ $//'
}

# --- The SoC running in the background, with FIFOs for the console and the Ethernet control channel ----
# soc_start NAME [plusargs...]: boots the SoC (inside namespace $SOC_NS when that is set) and waits for the
# firmware's network line. Sets SOC_PID, SOC_LOG, SOC_CTL (Ethernet control FIFO), SOC_CON (console FIFO),
# SOC_PCAP. soc_stop: ends the simulation (exit on the control channel, then kill).
# soc_netns_start NAME [plusargs...]: the same on a TAP tfsim0 inside a new namespace tf-NAME-<pid>
# (10.77.0.1/24 on the kernel side; root only). soc_netns_stop: soc_stop, then deletes the namespace.
SOC_KIP=10.77.0.1
SOC_IP=10.77.0.2
SOC_MAC=02:54:46:00:00:02
soc_start() {
  local name=$1; shift
  SOC_LOG="build/sim/tests/$name.log"
  SOC_CTL="build/sim/tests/$name.ethctl"
  SOC_CON="build/sim/tests/$name.console"
  SOC_PCAP="build/sim/tests/$name.pcap"
  mkdir -p build/sim/tests
  rm -f "$SOC_CTL" "$SOC_CON"
  ${SOC_NS:+ip netns exec "$SOC_NS"} "$SIM_BIN" +firmware="${FW:-build/fw/sim/firmware}.hex" +pcap="$SOC_PCAP" \
    +eth-ctl="$SOC_CTL" +uart-ctl="$SOC_CON" +timeout="${SOC_TIMEOUT:-400000000}" "$@" > "$SOC_LOG" 2>&1 &
  SOC_PID=$!
  local i
  for i in $(seq 1 600); do
    grep -q '^net: MAC' "$SOC_LOG" 2>/dev/null && return 0
    kill -0 "$SOC_PID" 2>/dev/null || { echo "simulation ended during boot:"; tail -5 "$SOC_LOG"; return 1; }
    sleep 0.1
  done
  echo "the firmware did not bring the network up in 60 s"; return 1
}
soc_stop() {
  if [ -n "${SOC_PID:-}" ] && kill -0 "$SOC_PID" 2>/dev/null; then
    [ -p "$SOC_CTL" ] && fifo_write "$SOC_CTL" "exit 0" 2>/dev/null
    local i; for i in $(seq 1 50); do kill -0 "$SOC_PID" 2>/dev/null || break; sleep 0.1; done
    kill "$SOC_PID" 2>/dev/null
  fi
  [ -n "${SOC_PID:-}" ] && wait "$SOC_PID" 2>/dev/null
  SOC_PID=""
}
soc_netns_start() {
  SOC_NS="tf-$1-$$"
  ip netns add "$SOC_NS" || return 1
  ip netns exec "$SOC_NS" ip link set lo up
  ip netns exec "$SOC_NS" ip tuntap add dev tfsim0 mode tap
  ip netns exec "$SOC_NS" ip addr add "$SOC_KIP/24" dev tfsim0
  ip netns exec "$SOC_NS" ip link set tfsim0 up
  soc_start "$@" +tap=tfsim0
}
soc_netns_stop() {
  soc_stop
  [ -n "${SOC_NS:-}" ] && ip netns del "$SOC_NS" 2>/dev/null
  SOC_NS=""
}
# fifo_write FIFO TEXT: writes a line to one of the simulation's FIFOs. A plain `> FIFO` blocks forever when
# the simulation that reads it has died: this gives up after 10 s and says why.
fifo_write() {
  if [ -n "${SOC_PID:-}" ] && ! kill -0 "$SOC_PID" 2>/dev/null; then
    echo "the simulation has ended: it cannot take '$2' on $1" >&2; return 1
  fi
  timeout 10 bash -c 'printf "%s\n" "$2" > "$1"' _ "$1" "$2" \
    || { echo "nothing read $1 within 10 s (the simulation is gone?): '$2' not sent" >&2; return 1; }
}
# soc_console "command": types a line into the human console (its answer is free text in $SOC_LOG). Only for a
# test of the human console itself: a test that needs the SoC to do something uses sim/tests/soc.py (tfctl).
soc_console() {
  fifo_write "$SOC_CON" "$1"
}
soc_ctl() { # soc_ctl "command": a line to the harness's Ethernet control channel
  fifo_write "$SOC_CTL" "$1"
}
# What a test is doing, for the message when sim/tests/run.sh stops it at its wall-clock limit (SIGTERM).
TF_STEP="starting"
trap 'echo "stopped by SIGTERM (the wall-clock limit?) while: $TF_STEP"; exit 143' TERM
soc_wait_for() { # soc_wait_for REGEX [seconds]: waits until the console log matches
  local i
  TF_STEP="waiting up to ${2:-20} s for the console to show '$1'"
  for i in $(seq 1 $(( ${2:-20} * 10 ))); do
    grep -qE "$1" "$SOC_LOG" && return 0
    kill -0 "$SOC_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# --- The exchange simulator (tools/exchange, QuickFIX/J) beside the SoC ------------------------------------
# exch_start NAME [exchange options...]: starts it (inside $SOC_NS when set, bound to $SOC_KIP:9876 there,
# else on 127.0.0.1) with its QuickFIX logs in build/sim/tests/NAME-exchange/ and waits for its ready line.
# Sets EXCH_PID, EXCH_OUT (its stdout), EXCH_MSGLOG (the SoC session's message log). exch_stop: SIGTERM
# (the exchange logs its sessions out first); exch_kill: SIGKILL (a crash: no Logout, the kernel closes).
EXCHANGE_JAR=${EXCHANGE_JAR:-out/exchange/assembly.dest/out.jar}
exch_start() {
  local name=$1; shift
  local dir="build/sim/tests/$name-exchange"
  local bind=127.0.0.1
  [ -n "${SOC_NS:-}" ] && bind=$SOC_KIP
  mkdir -p "$dir"
  EXCH_OUT="$dir/stdout.log"
  EXCH_MSGLOG="$dir/log/FIX.4.4-EXCH-TFISH1.messages.log"
  ${SOC_NS:+ip netns exec "$SOC_NS"} java -jar "$EXCHANGE_JAR" --settings tools/exchange/exchange.cfg \
    --bind "$bind" --port 9876 --log-dir "$dir" "$@" >> "$EXCH_OUT" 2>&1 &
  EXCH_PID=$!
  local i
  for i in $(seq 1 300); do
    [ "$(grep -c 'EXCHANGE READY' "$EXCH_OUT")" -gt "${EXCH_READY_SEEN:-0}" ] && { EXCH_READY_SEEN=$((${EXCH_READY_SEEN:-0} + 1)); return 0; }
    kill -0 "$EXCH_PID" 2>/dev/null || { echo "the exchange ended during start-up:"; tail -5 "$EXCH_OUT"; return 1; }
    sleep 0.1
  done
  echo "the exchange did not start in 30 s"; return 1
}
exch_stop() {
  [ -n "${EXCH_PID:-}" ] || return 0
  kill "$EXCH_PID" 2>/dev/null
  local i; for i in $(seq 1 100); do kill -0 "$EXCH_PID" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$EXCH_PID" 2>/dev/null; wait "$EXCH_PID" 2>/dev/null; EXCH_PID=""
}
exch_kill() {
  [ -n "${EXCH_PID:-}" ] || return 0
  kill -9 "$EXCH_PID" 2>/dev/null; wait "$EXCH_PID" 2>/dev/null; EXCH_PID=""
}
# fix_msgs FILE: the messages of a QuickFIX message log, one per line, SOH shown as '|'.
fix_msgs() { tr '\001' '|' < "$1"; }
