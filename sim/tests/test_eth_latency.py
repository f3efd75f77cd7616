"""Measures the CPU frame path at the GMII pins in the cycle-accurate simulation (prints figures; fails only on
nonsense). The harness injects frames; the firmware's ethlat command, asked through tfctl (sim/tests/soc.py), notes
the cycle each one became visible in RX_STATUS and the cycle it wrote TX_LEN for an answer, and sends them as
events (ethlat.ready, then one ethlat per frame); the harness's frame log gives the pin times. Receive path: last FCS
byte on the RX pins -> frame visible to the CPU. Transmit path: TX_LEN written -> TX_EN rises. Cycles are sys = GMII
clock cycles (125 MHz in simulation). No network peer: only the injected frames.
"""
import csv
import os
import statistics

from soc import OUT, Rig

N = int(os.environ.get("N", "50"))
CSV = OUT / "eth-latency.frames.csv"
rig = Rig("eth-latency")
with rig:
    tf = rig.start_soc(f"+eth-frame-log={CSV}")
    since = rig.last_seq()
    req = tf.submit("console", line=f"ethlat {N}")  # answered after the N-th frame
    rig.wait("ethlat.ready", 20, "ethlat polling for frames", since=since)
    frame = "ffffffffffff0254460000aa88b5" + "0" * 92
    # 12000 idle byte times between frames: the firmware writes an event per frame (about 7000 cycles), and no frame
    # may wait in the ring behind another (that would measure queueing, not the path).
    rig.ctl("ifg 12000\n" + "".join(f"inject {frame}\n" for _ in range(N)))
    rig.wait("ethlat", 60, f"all {N} frames seen", lambda e: e["frame"] == N - 1, since)
    rig.step = "waiting for the reply to ethlat"
    req.result(20)
    fw = [(e["frame"], e["rx"], e["tx"]) for e in rig.find("ethlat", since=since)]
    rig.check([f[0] for f in fw] == list(range(N)), f"ethlat events for frames {[f[0] for f in fw]} (want 0..{N - 1})")
    rig.check_events_complete()
    rig.close()  # the frame log is complete once the simulation has ended
    rows = list(csv.DictReader(open(CSV)))
    rx = [r for r in rows if r["dir"] == "rx" and r["source"] != "tap" and int(r["len"]) >= 60][-N:]
    tx = [r for r in rows if r["dir"] == "tx" and int(r["len"]) == 60][-N:]
    rig.check(len(rx) == N and len(tx) == N, f"{len(fw)} firmware events, {len(rx)} injected and {len(tx)} answer frames in the log")
    # Clock edges are numbered from 1 (sim/main.cpp); reset is released after edge 16, so the SoC's cycle counter
    # reads V after edge V+16. The frame log's cycle c is the value the pins have for edge c+1: the last FCS byte is
    # sampled at edge eof+1; TX_EN was driven high at edge sof.
    rxp = [(f[1] + 16) - (int(r["eof_cycle"]) + 1) for f, r in zip(fw, rx)]
    txp = [int(t["sof_cycle"]) - (f[2] + 16) for f, t in zip(fw, tx)]

    def s(v):
        return f"min {min(v)} / median {statistics.median(v):g} / max {max(v)}"
    rig.check(0 < min(rxp) and max(rxp) < 400 and 0 < min(txp) and max(txp) < 400,
              f"implausible figures: receive {s(rxp)}, transmit {s(txp)}")
    print(f"  | receive path (last FCS byte on RX pins -> frame visible in RX_STATUS, incl. polling): {s(rxp)} cycles")
    print(f"  | transmit path (TX_LEN written -> TX_EN rises): {s(txp)} cycles")
    rig.ok(f"eth-latency ({N} frames; cycles of the 125 MHz clocks, +-1 for the counter read)")
