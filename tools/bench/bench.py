#!/usr/bin/env python3
"""`make bench`: the numbers side by side, every one computed by this run.

1. Whole SoC (tools/bench/soc_latency.py): hardware stops and firmware stops of one simulated SoC against
   the QuickFIX/J exchange, T2T / EOF2SOF / SOF2SOF per order from the simulation's pcap and frame log.
2. Linux software baseline (tools/bench/linux_baseline.py): a QuickFIX/J stop client on the kernel's TCP,
   W -> D at the exchange's interface, nanosecond tcpdump.
3. Offload datapath (DatapathBench, hw/test/triggerfish/offload): the LiteEth MAC, OffloadRx and OrderEngine in
   Verilator, timed on the GMII pins: the 2010 benchmark's message-size x volume sweep (seeds/004) and the
   line-rate check of the parser (report["sweep"], report["linerate"], datapath.png).
Writes build/bench/report.json, report.md and the plots (latency.png, datapath.png). The published anchors (the
papers in ../shared/seeds) are quoted as citations, marked as such, next to ours.

Usage: tools/bench/bench.py [--fires 1000] [--soc-minutes 7] [--step-ms 100] [--baseline-fires 1000] [--skip-baseline]
                            [--datapath-volumes 25000,50000] [--datapath-linerate 50000] [--skip-datapath]
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


def board_clock(board, boards_dir=os.path.join(ROOT, "build/boards")):
    """What the ECP5 board build (`make bitstream BOARD=<board>`, build/boards/<board>/summary.json) says about the
    clock the ns are computed at: the Ethernet domains' required and achieved MHz, whether the build had the offload,
    and its commit. None when there is no such build."""
    try:
        s = json.load(open(os.path.join(boards_dir, board, "summary.json")))
    except (OSError, ValueError):
        return None
    if s.get("family") != "ecp5" or not s.get("pnr"):
        return None
    cfg = s.get("config", {})
    clocks = {d: s["clocks"][d] for d in ("eth_tx", "eth_rx") if d in s.get("clocks", {})}
    return {"board": board, "title": s.get("title"), "commit": cfg.get("commit"), "offload": cfg.get("offload"),
            "offload_entries": cfg.get("offload_entries"), "timing_met": s.get("timing_met"), "clocks": clocks,
            "with_offload_and_met": cfg.get("offload") == "yes" and bool(s.get("timing_met"))
            and all(c.get("met") for c in clocks.values()) and len(clocks) == 2}


def clock_note(bc):
    """One sentence: where the clock the ns use comes from."""
    if bc is None:
        return (f"ns at {ETH_MHZ:.0f} MHz, the Ethernet clock at 1 Gb/s that the ECP5 board build must meet in both Ethernet "
                "domains; no ECP5 build was found in build/boards to confirm it (`make bitstream BOARD=colorlight-i5`).")
    if bc["offload"] is None:
        return (f"ns at {ETH_MHZ:.0f} MHz, the Ethernet clock at 1 Gb/s; the {bc['board']} build found in build/boards is "
                "older than the record of its configuration, so it does not confirm that the SoC with the offload meets it.")
    ach = ", ".join(f"{d} {c['achieved_mhz']} MHz" for d, c in bc["clocks"].items())
    what = (f"the {bc['board']} build (commit {bc['commit']}, offload {bc['offload']}, "
            f"{bc['offload_entries']} entries) meets it: {ach} achieved" if bc["with_offload_and_met"] else
            f"the {bc['board']} build found (commit {bc['commit']}, offload {bc['offload']}, timing met: {bc['timing_met']}; "
            f"{ach}) does NOT confirm it for the SoC with the offload")
    return f"ns at {ETH_MHZ:.0f} MHz, the Ethernet clock at 1 Gb/s; {what}."


def text_histogram(records, metric, width=30):
    """The latency distribution of both paths as text (the README shows it; report.md has it beside the PNG):
    power-of-two bins of cycles, one row per bin that has an order, a bar and a count per path."""
    series = {p: [r[f"{metric}_cycles"] for r in records if r.get("path") == p and r.get(f"{metric}_cycles") is not None]
              for p in ("hw", "fw")}
    series = {p: v for p, v in series.items() if v}
    if not series:
        return []
    def bin_of(v):
        return max(0, int(v).bit_length() - 1)   # [2^k, 2^(k+1))
    counts = {p: {} for p in series}
    for p, vs in series.items():
        for v in vs:
            counts[p][bin_of(v)] = counts[p].get(bin_of(v), 0) + 1
    top = max(n for c in counts.values() for n in c.values())
    rows = sorted({k for c in counts.values() for k in c})
    head = f"{'cycles':>19} " + " ".join(f"{p + f' (n={len(series[p])})':<{width + 7}}" for p in series)
    lines = [head.rstrip()]
    for k in rows:
        cells = []
        for p in series:
            n = counts[p].get(k, 0)
            bar = "#" * max(1, round(width * n / top)) if n else ""
            cells.append(f"{bar:<{width}} {n if n else '':>6}")
        lo, hi = 1 << k, (1 << (k + 1)) - 1
        lines.append((f"{lo:>8,}..{hi:<9,} " + " ".join(cells)).rstrip())
    return lines


def stat_row(d):
    c, n = d["cycles"], d["ns"]
    return f"{d['count']} | {c['min']} / {c['median']} / {c['max']} | {n['min']:.0f} / {n['median']:.0f} / {n['max']:.0f}"


# ---- 3. the offload datapath: sweep and line-rate check (DatapathBench) --------------------------------------
DATAPATH_OUT = os.path.join(OUT, "datapath")


def run_datapath(volumes, linerate_messages):
    """Runs DatapathBench (SpinalSim/Verilator); it exits non-zero on a missed or false fire, and so does this."""
    run([os.path.join(ROOT, "mill"), "-i", "hw.test.runMain", "triggerfish.offload.DatapathBench",
         "--out", "build/bench/datapath", "--volumes", volumes, "--linerate-messages", str(linerate_messages)])
    return json.load(open(os.path.join(DATAPATH_OUT, "datapath.json")))


def datapath_report(report, dp):
    """report["sweep"] (one row per cell) and report["linerate"] from datapath.json."""
    report["sweep"] = dp["sweep"]
    report["linerate"] = dp["linerate"]
    report["datapath"] = {k: dp[k] for k in ("boundary", "clock_mhz", "cross_every", "volumes", "largest_volume",
                                             "wall_seconds", "compile_seconds", "seed", "ok")}


def datapath_plot(dp, png):
    """Latency (last byte of the triggering message on RX -> TX_EN) against the FIX body size, one line per volume."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    vols = sorted({c["messages"] for c in dp["sweep"]})
    for i, v in enumerate(vols):
        cells = sorted((c for c in dp["sweep"] if c["messages"] == v), key=lambda c: c["body_bytes"])
        x = [c["body_bytes"] * (1 + 0.03 * i) for c in cells]   # volumes side by side
        lat = [c["latency_cycles"] for c in cells]
        avg = [l["avg"] for l in lat]
        err = [[a - l["min"] for a, l in zip(avg, lat)], [l["max"] - a for a, l in zip(avg, lat)]]
        ax.errorbar(x, avg, yerr=err, marker="o", capsize=4, label=f"{v:,} messages (avg, min..max)")
    ax.set_xscale("log", base=2)
    ax.set_xticks([c["body_bytes"] for c in dp["sweep"] if c["messages"] == vols[0]])
    ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("FIX body bytes (BodyLength target)")
    ax.set_ylabel(f"cycles at {dp['clock_mhz']:.0f} MHz")
    top = max(c["latency_cycles"]["max"] for c in dp["sweep"])
    ax.set_ylim(0, top * 1.5 + 1)
    sec = ax.secondary_yaxis("right", functions=(lambda c: c * 1000 / dp["clock_mhz"], lambda n: n * dp["clock_mhz"] / 1000))
    sec.set_ylabel("ns")
    ax.set_title("Offload datapath: last byte of the triggering W on GMII RX -> TX_EN of the order")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def datapath_md(dp):
    """The report.md section of the sweep and the line-rate check."""
    def st(d):
        return f"{d['min']} / {d['avg']:.1f} / {d['max']}"
    lines = ["", "## Offload datapath: the 2010 benchmark's sweep (seeds/004) and the line-rate check", "",
             "Measured in the same `make bench` run by DatapathBench (SpinalSim/Verilator). " + dp["boundary"], "",
             f"Every {dp['cross_every']}th message crosses an armed stop (64 one-shot entries on 64 symbols, 16 order "
             "templates; the harness re-arms entry and template after each order, as the firmware does). Missed / false: "
             "the fires at the trigger table against the reference model (OffloadRxModel), and every fire's order on the "
             "TX pins, byte for byte as rebuilt from its log record.", "",
             "| body bytes (actual) | messages | fires | missed | false | msg -> TX_EN cycles min / avg / max | ns min / avg / max "
             "| EOF2SOF | T2T | simulated s | wall s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in dp["sweep"]:
        a = c["body_bytes_actual"]
        act = f"{a['min']}" if a["min"] == a["max"] else f"{a['min']}..{a['max']}"
        n = c["latency_ns"]
        lines.append(f"| {c['body_bytes']} ({act}) | {c['messages']:,} | {c['fires']} | {c['missed']} | {c['false']} | "
                     f"{st(c['latency_cycles'])} | {n['min']:.0f} / {n['avg']:.0f} / {n['max']:.0f} | "
                     f"{st(c['eof2sof_cycles'])} | {st(c['t2t_cycles'])} | {c['sim_seconds']:.3f} | {c['wall_seconds']:.0f} |")
    lines += ["", f"Largest volume reached: {dp['largest_volume']:,} messages per cell. Body sizes below the smallest "
              "well-formed W with a trade entry (35=W, 34, 55, 268=1, 269=2, 270, 271: about 50 bytes) get that W; "
              "the actual BodyLength range is in brackets.", "", "![datapath](datapath.png)", "",
              "### Line rate (1 Gb/s on GMII: one byte per 125 MHz cycle, 12-cycle gap and 8-byte preamble per frame)", "",
              "| mode | messages offered | processed (W_MSGS) | segments | msgs/s offered | fires | missed | false | msg -> TX_EN min / avg / max |",
              "|---|---|---|---|---|---|---|---|---|"]
    lr = dp["linerate"]
    for r in lr["runs"]:
        lines.append(f"| {r['mode']} | {r['messages_offered']:,} | {r['messages_processed']:,} | {r['segments']:,} | "
                     f"{r['offered_msgs_per_s']:,.0f} | {r['fires']} | {r['missed']} | {r['false']} | {st(r['latency_cycles'])} |")
    lines += ["", f"Highest message rate sustained (every message counted by the parser, no missed or false fire): "
              f"**{lr['highest_msgs_per_s']:,.0f} messages/s** (smallest messages, {lr['entries_armed']} entries armed). "
              "In a packed segment the order waits for the segment's end, so its latency from the triggering message grows "
              "with the messages after it in the segment; EOF2SOF stays the same."]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fires", type=int, default=1000, help="fires per path in the whole-SoC run")
    ap.add_argument("--step-ms", type=int, default=100, help="the exchange's market step in the whole-SoC run")
    ap.add_argument("--soc-minutes", type=float, default=7, help="time limit of each whole-SoC phase (hw, fw): a phase "
                    "measures the fires it has by then (the simulated firmware paces the market: about 1-3 s a fire)")
    ap.add_argument("--baseline-fires", type=int, default=1000)
    ap.add_argument("--skip-baseline", action="store_true")
    ap.add_argument("--datapath-volumes", default="25000,50000", help="message volumes of the datapath sweep, comma separated")
    ap.add_argument("--datapath-linerate", type=int, default=50000, help="messages per line-rate run of the datapath")
    ap.add_argument("--skip-datapath", action="store_true")
    ap.add_argument("--report-only", action="store_true", help="measure nothing: write the report again from this "
                    "run's results in build/bench (e.g. after `make bitstream BOARD=colorlight-i5` has confirmed the clock)")
    ap.add_argument("--board", default="colorlight-i5,colorlight-5a-75b", help="the ECP5 boards whose build "
                    "(build/boards/<board>) may confirm the clock the ns are computed at: the first built with the "
                    "offload and meeting timing, else the first found")
    ap.add_argument("--boards-dir", default=os.path.join(ROOT, "build/boards"), help="where that build is (default build/boards)")
    args = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    py = sys.executable
    if args.report_only:
        args.skip_baseline = not os.path.exists(os.path.join(OUT, "linux-baseline/linux-baseline.json"))
        args.skip_datapath = not os.path.exists(os.path.join(DATAPATH_OUT, "datapath.json"))
    else:
        run([py, os.path.join(ROOT, "tools/bench/soc_latency.py"), "--fires", str(args.fires), "--step-ms", str(args.step_ms),
             "--timeout", str(args.soc_minutes * 60), "--out", "build/bench/soc", "--clock-mhz", str(ETH_MHZ)])
    soc = json.load(open(os.path.join(OUT, "soc/latency.json")))
    found = [bc for bc in (board_clock(b, args.boards_dir) for b in args.board.split(",") if b) if bc is not None]
    bc = next((b for b in found if b["with_offload_and_met"]), found[0] if found else None)
    note = clock_note(bc)
    if bc is not None and bc["commit"]:
        # the board builds' version constant (tools/fpga-lib.sh): the last commit that changed the hardware
        hw = subprocess.run(["bash", "-c", "source tools/fpga-lib.sh && fpga_hw_version"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
        bc["same_hardware"] = hw[:len(bc["commit"])] == bc["commit"] if hw else None
        note += (" The board build is of this checkout's hardware." if bc["same_hardware"] else
                 f" The board build is of hardware {bc['commit']}, this checkout's is {hw or 'unknown'}: not the same.")
    report = {"clock_mhz": ETH_MHZ, "clock_board_build": bc, "clock_note": note,
              "anchors": [{"what": a, "published": b} for a, b in ANCHORS]}
    for path in ("hw", "fw"):
        report[path] = {m: soc[path][m] for m in ("t2t", "eof2sof", "sof2sof")}
    shutil.copy(os.path.join(OUT, "soc/latency.png"), os.path.join(OUT, "latency.png"))
    if not args.skip_baseline:
        if not args.report_only:
            run([py, os.path.join(ROOT, "tools/bench/linux_baseline.py"), "--fires", str(args.baseline_fires),
                 "--out", os.path.join(OUT, "linux-baseline"), "--quiet"])
        report["linux"] = json.load(open(os.path.join(OUT, "linux-baseline/linux-baseline.json")))
    dp = (None if args.skip_datapath else json.load(open(os.path.join(DATAPATH_OUT, "datapath.json"))) if args.report_only
          else run_datapath(args.datapath_volumes, args.datapath_linerate))
    if dp is not None:
        datapath_report(report, dp)
        datapath_plot(dp, os.path.join(OUT, "datapath.png"))
    with open(os.path.join(OUT, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    hw, fw = report["hw"], report["fw"]
    lines = ["# Triggerfish benchmark report", "",
             f"Latencies of orders sent by the hardware offload (hw) and by the firmware (fw) of the same simulated SoC, "
             f"in one run, per DESIGN.md: cycles of the {ETH_MHZ:.0f} MHz Ethernet clock and ns at that clock.", "",
             "Clock: " + report["clock_note"], "",
             "| path | metric | orders | cycles min / median / max | ns min / median / max |", "|---|---|---|---|---|"]
    for path in ("hw", "fw"):
        for m in ("t2t", "eof2sof", "sof2sof"):
            lines.append(f"| {path} | {m.upper()} | {stat_row(report[path][m])} |")
    ratio = fw["eof2sof"]["cycles"]["median"] / max(1, hw["eof2sof"]["cycles"]["median"])
    lines += ["", f"Firmware / hardware, median EOF2SOF: {ratio:.0f}x.", "", "![latency](latency.png)", ""]
    orders = soc.get("orders", [])
    for m in ("t2t", "eof2sof"):
        lines += [f"{m.upper()} distribution, orders per power-of-two bin of cycles (the same data as latency.png):", "",
                  "```"] + text_histogram(orders, m) + ["```", ""]
    lines += ["## Side by side", "", "| | figure | source |", "|---|---|---|",
              f"| Triggerfish hw, T2T median | {hw['t2t']['ns']['median']:.0f} ns ({hw['t2t']['cycles']['median']} cycles) | this run |",
              f"| Triggerfish fw, T2T median | {fw['t2t']['ns']['median'] / 1000:.0f} us | this run |"]
    if "linux" in report:
        ns = report["linux"]["ns"]
        lines.append(f"| Linux + QuickFIX/J, W -> D at the exchange, median (max) | {ns['median'] / 1000:.0f} us "
                     f"({ns['max'] / 1000:.0f} us) | this run (tcpdump, veth) |")
    for a, b in ANCHORS:
        lines.append(f"| {a} | {b} | published (citation) |")
    if dp is not None:
        lines += datapath_md(dp)
    with open(os.path.join(OUT, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\nbench: build/bench/report.md, report.json, latency.png" + ("" if dp is None else ", datapath.png"))


if __name__ == "__main__":
    main()
