#!/usr/bin/env python3
"""`make bench`: the numbers side by side, every one computed by this run.

1. Whole SoC (tools/bench/soc_latency.py): hardware stops and firmware stops of one simulated SoC against
   the QuickFIX/J exchange, T2T / EOF2SOF / SOF2SOF per order from the simulation's pcap and frame log.
2. Linux software baseline (tools/bench/linux_baseline.py): a QuickFIX/J stop client on the kernel's TCP,
   W -> D at the exchange's interface, nanosecond tcpdump.
Writes build/bench/report.json, report.md and the plots (latency.png). The published anchors (the papers in
../shared/seeds) are quoted as citations, marked as such, next to ours.

Usage: tools/bench/bench.py [--fires 1000] [--step-ms 100] [--baseline-fires 1000] [--skip-baseline]
Not measured yet (said in the report): the 2010 benchmark's message-size x volume sweep and the line-rate
check of the parser.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "build/bench")
ETH_MHZ = 125.0  # GMII/RGMII at 1 Gb/s: both Ethernet domains run at 125 MHz; the ECP5 build must meet it

# Published figures (citations, not measurements of ours)
ANCHORS = [
    ("2018 paper (seeds/000): FPGA stop order, in-FPGA latency", "640 ns average, 780 ns max"),
    ("2018 paper (seeds/000): at the server, FPGA vs software (QuickFIX on Linux)", "148 us vs 684 us"),
    ("Kintex HLS design: tick-to-trade", "269 ns (42 cycles at 156 MHz)"),
]


def run(cmd):
    print("== " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), flush=True)
    r = subprocess.run(cmd, cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit(f"bench: {cmd[1]} failed ({r.returncode})")


def stat_row(d):
    c, n = d["cycles"], d["ns"]
    return f"{d['count']} | {c['min']} / {c['median']} / {c['max']} | {n['min']:.0f} / {n['median']:.0f} / {n['max']:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fires", type=int, default=1000, help="fires per path in the whole-SoC run")
    ap.add_argument("--step-ms", type=int, default=100, help="the exchange's market step in the whole-SoC run")
    ap.add_argument("--baseline-fires", type=int, default=1000)
    ap.add_argument("--skip-baseline", action="store_true")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    py = sys.executable
    run([py, os.path.join(ROOT, "tools/bench/soc_latency.py"), "--fires", str(args.fires), "--step-ms", str(args.step_ms),
         "--out", "build/bench/soc", "--clock-mhz", str(ETH_MHZ)])
    soc = json.load(open(os.path.join(OUT, "soc/latency.json")))
    report = {"clock_mhz": ETH_MHZ,
              "clock_note": "the Ethernet clock (125 MHz at 1 Gb/s); the ECP5 board builds constrain both Ethernet domains to it",
              "sweep": [], "sweep_note": "not measured yet",
              "anchors": [{"what": a, "published": b} for a, b in ANCHORS]}
    for path in ("hw", "fw"):
        report[path] = {m: soc[path][m] for m in ("t2t", "eof2sof", "sof2sof")}
    shutil.copy(os.path.join(OUT, "soc/latency.png"), os.path.join(OUT, "latency.png"))
    if not args.skip_baseline:
        run([py, os.path.join(ROOT, "tools/bench/linux_baseline.py"), "--fires", str(args.baseline_fires),
             "--out", os.path.join(OUT, "linux-baseline"), "--quiet"])
        report["linux"] = json.load(open(os.path.join(OUT, "linux-baseline/linux-baseline.json")))
    with open(os.path.join(OUT, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    hw, fw = report["hw"], report["fw"]
    lines = ["# Triggerfish benchmark report", "",
             f"Latencies of orders sent by the hardware offload (hw) and by the firmware (fw) of the same simulated SoC, "
             f"in one run, per DESIGN.md: cycles of the {ETH_MHZ:.0f} MHz Ethernet clock and ns at that clock.", "",
             "| path | metric | orders | cycles min / median / max | ns min / median / max |", "|---|---|---|---|---|"]
    for path in ("hw", "fw"):
        for m in ("t2t", "eof2sof", "sof2sof"):
            lines.append(f"| {path} | {m.upper()} | {stat_row(report[path][m])} |")
    ratio = fw["eof2sof"]["cycles"]["median"] / max(1, hw["eof2sof"]["cycles"]["median"])
    lines += ["", f"Firmware / hardware, median EOF2SOF: {ratio:.0f}x.", "", "![latency](latency.png)", "",
              "## Side by side", "", "| | figure | source |", "|---|---|---|",
              f"| Triggerfish hw, T2T median | {hw['t2t']['ns']['median']:.0f} ns ({hw['t2t']['cycles']['median']} cycles) | this run |",
              f"| Triggerfish fw, T2T median | {fw['t2t']['ns']['median'] / 1000:.0f} us | this run |"]
    if "linux" in report:
        ns = report["linux"]["ns"]
        lines.append(f"| Linux + QuickFIX/J, W -> D at the exchange, median (max) | {ns['median'] / 1000:.0f} us "
                     f"({ns['max'] / 1000:.0f} us) | this run (tcpdump, veth) |")
    for a, b in ANCHORS:
        lines.append(f"| {a} | {b} | published (citation) |")
    lines += ["", "Not measured yet: the message size x volume sweep of the 2010 benchmark and the parser's line-rate check."]
    with open(os.path.join(OUT, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\nbench: build/bench/report.md, report.json, latency.png")


if __name__ == "__main__":
    main()
