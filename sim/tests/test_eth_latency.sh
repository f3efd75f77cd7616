#!/usr/bin/env bash
# Measures the CPU frame path at the GMII pins in the cycle-accurate simulation (prints figures; fails
# only on nonsense). The harness injects frames; the firmware's ethlat command notes the cycle each one
# became visible in RX_STATUS and the cycle it wrote TX_LEN for an answer; the harness's frame log gives
# the pin times. Receive path: last FCS byte on the RX pins -> frame visible to the CPU. Transmit path:
# TX_LEN written -> TX_EN rises. Cycles are sys = GMII clock cycles (125 MHz in simulation).
set -u
cd "$(dirname "$0")/../.."
source sim/tests/lib.sh
N=${N:-50}
CSV=build/sim/tests/eth-latency.frames.csv
fail() { echo "FAIL eth-latency: $*"; tail -10 "$SOC_LOG" | sed 's/^/  | /'; soc_stop; exit 1; }
trap soc_stop EXIT
soc_start eth-latency +eth-frame-log="$CSV" || fail "could not start the SoC"
soc_console "ethlat $N"
soc_wait_for "ethlat: ready" 20 || fail "ethlat did not start"
frame=ffffffffffff0254460000aa88b5$(printf '%092d' 0)
# 12000 idle byte times between frames: the firmware prints a line per frame (about 5000 cycles), and no
# frame may wait in the ring behind another (that would measure queueing, not the path).
soc_ctl "$(echo "ifg 12000"; for i in $(seq 1 "$N"); do echo "inject $frame"; done)" || fail "could not write to the harness's control channel"
soc_wait_for "ethlat: $((N - 1)) rx_visible" 60 || fail "not all $N frames were seen"
sleep 1
soc_stop; trap - EXIT
python3 - "$SOC_LOG" "$CSV" "$N" <<'PY'
import csv, re, statistics, sys
log, frames, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fw = [tuple(map(int, m.groups())) for m in re.finditer(r"ethlat: (\d+) rx_visible (\d+) tx_len (\d+)", open(log).read())]
rows = list(csv.DictReader(open(frames)))
rx = [r for r in rows if r["dir"] == "rx" and r["source"] != "tap" and int(r["len"]) >= 60][-n:]
tx = [r for r in rows if r["dir"] == "tx" and int(r["len"]) == 60][-n:]
if len(fw) != n or len(rx) != n or len(tx) != n:
    sys.exit(f"FAIL eth-latency: {len(fw)} firmware lines, {len(rx)} injected and {len(tx)} answer frames in the log")
# Clock edges are numbered from 1 (sim/main.cpp); reset is released after edge 16, so the SoC's cycle
# counter reads V after edge V+16. The frame log's cycle c is the value the pins have for edge c+1:
# the last FCS byte is sampled at edge eof+1; TX_EN was driven high at edge sof.
rxp = [(f[1] + 16) - (int(r["eof_cycle"]) + 1) for f, r in zip(fw, rx)]
txp = [int(t["sof_cycle"]) - (f[2] + 16) for f, t in zip(fw, tx)]
def s(v): return f"min {min(v)} / median {statistics.median(v):g} / max {max(v)}"
if not (0 < min(rxp) and max(rxp) < 400 and 0 < min(txp) and max(txp) < 400):
    sys.exit(f"FAIL eth-latency: implausible figures: receive {s(rxp)}, transmit {s(txp)}")
print(f"  | receive path (last FCS byte on RX pins -> frame visible in RX_STATUS, incl. polling): {s(rxp)} cycles")
print(f"  | transmit path (TX_LEN written -> TX_EN rises): {s(txp)} cycles")
print(f"ok eth-latency ({n} frames; cycles of the 125 MHz clocks, +-1 for the counter read)")
PY
