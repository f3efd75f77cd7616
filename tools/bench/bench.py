#!/usr/bin/env python3
"""`make bench`: the numbers side by side, every one computed by this run.

1. Whole SoC (tools/bench/soc_latency.py): hardware stops and firmware stops of one simulated SoC against
   the QuickFIX/J exchange, T2T / EOF2SOF / SOF2SOF per order from the simulation's pcap and frame log, and the
   hardware phase's fires of the trigger table that sent no order, from the order engine's counters (issue 15:
   0 over at least 1,000 hardware fires; report["suppressed"]).
2. Linux software baseline (tools/bench/linux_baseline.py): a QuickFIX/J stop client on the kernel's TCP,
   W -> D at the exchange's interface, nanosecond tcpdump.
3. Offload datapath (DatapathBench, hw/test/triggerfish/offload): the LiteEth MAC, OffloadRx and OrderEngine in
   Verilator, timed on the GMII pins: the 2010 benchmark's message-size x volume sweep (seeds/004) and the
   line-rate check of the parser (report["sweep"], report["linerate"], datapath.png).
Writes build/bench/report.json, report.md and the plots (latency.png, datapath.png). The published anchors (the
papers in ../shared/seeds) are quoted as citations, marked as such, next to ours.

4. Burst (tools/bench/burst.py, issue 15): N 35=W into the live session with hardware stops armed, one message per
   segment and in full segments: digest rate, RX drops, TestRequest answer delay, session kept, fires in the burst
   (report["burst"]).

5. Long soak (sim/tests/soak.py, issue 19): the whole SoC trades through the harness's impaired wire (5 % loss, 1 %
   duplication, 10 % reordering, 0.1 % corruption) with hardware and firmware stops firing again and again, for 30
   minutes of the SoC's clock or as far as --soak-minutes of wall time allow (report["soak"] says how far): orders
   lost / duplicated, false fires, reconnects, resends, frames impaired per kind.
6. Fuzzing (tools/bench/fuzz.py, issue 19): every firmware fuzzer (fw/fuzz) for --fuzz-minutes each, longer than
   `make test` runs them: executions, exec/s, coverage, corpus, crashes (report["fuzz"]).

Usage: tools/bench/bench.py [--fires 1000] [--soc-minutes 20] [--step-ms 100] [--baseline-fires 1000] [--skip-baseline]
                            [--datapath-volumes 25000,50000] [--datapath-linerate 50000] [--skip-datapath]
                            [--burst 10000] [--burst-shapes segment,coalesced] [--burst-minutes 15] [--burst-digest on|off] [--burst-only]
                            [--soak-soc-minutes 30] [--soak-minutes 120] [--skip-soak] [--soak-only]
                            [--fuzz-minutes 5] [--fuzz-only]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import linux_baseline  # noqa: E402  (report_figures)
import soc_latency  # noqa: E402  (the console tally and the per-path figures of the whole-SoC run)
import burst  # noqa: E402  (the burst phase, issue 15: its figures and report.md section)
import fuzz  # noqa: E402  (the fuzzing phase, issue 19: its figures and report.md section)
import report_merge  # noqa: E402  (a phase's figures into an existing report)
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
        with open(os.path.join(boards_dir, board, "summary.json")) as f:
            s = json.load(f)
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
    series = {p: [r[f"{metric}_cycles"] for r in records if r.get("path") == p and r.get(f"{metric}_cycles") is not None
                  and soc_latency.analyze.in_figures(r)] for p in ("hw", "fw")}
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
    if not d["count"]:
        return "0 | - | -"
    return f"{d['count']} | {c['min']} / {c['median']} / {c['max']} | {n['min']:.0f} / {n['median']:.0f} / {n['max']:.0f}"


# ---- 1. the whole SoC: paths, and the hardware phase's fires the engine did not send ---------------------------
SOC_PATHS = ("hw", "fw")


def soc_report(report, res):
    """report["hw"], ["fw"] (T2T, EOF2SOF, SOF2SOF of the orders of each label; the fw row is the firmware-only
    phase's orders), report["suppressed"] (the hardware phase's fires of the trigger table the engine did not send,
    from its counters), report["console_fires"] and report["unlabelled_orders"] from soc_latency.soc_result()."""
    for path in SOC_PATHS:
        report[path] = {m: res["paths"][path][m] for m in ("t2t", "eof2sof", "sof2sof")}
        report[path]["orders"] = res["paths"][path]["orders"]
        report[path]["disagreeing_orders"] = res["paths"][path]["disagreeing_orders"]
    report["suppressed"] = res["console"]["suppressed"]
    report["console_fires"] = res["console"]["fires"]
    report["console_unsent"] = res["console"]["unsent"]
    report["unlabelled_orders"] = res["paths"].get("unknown", {}).get("orders", 0)


NOT_SENT_ROWS = (("logged_not_sent", "logged by the engine, not sent (MsgSeqNum too wide for the template, bad template)"),
                 ("ignored", "ignored (the engine was disabled)"),
                 ("not_armed", "the stop's order template was not armed"),
                 ("log_drops", "the engine's fire log was full"),
                 ("rx_overflow", "the fire queue from the parser was full"))


def suppressed_md(report):
    """The report.md section of the hardware phase's fires of the trigger table that sent no order (issue 15:
    "suppressed fires", target 0 over at least 1,000 hardware fires)."""
    s = report["suppressed"]
    t = s["target"]
    lines = ["## Hardware phase: fires the order engine did not send", "",
             "The order engine has no lock: no fire waits for firmware or is suppressed because firmware is sending. "
             "A fire of the trigger table becomes an order, or the engine counts it with the reason it did not. The "
             "figures are the engine's counters (the `offload` command at the end of the hardware phase and of the run: "
             "this connection's fires, since it came up), read from the console. Target (issue 15): "
             f"0 fires not sent over at least {t['min_fires']:,} hardware fires.", ""]
    if not s["counter_line"]:
        return lines + ["The engine's counters were not read: the console has no `offload` counter line, so the "
                        "number of fires not sent is not known. The console has "
                        f"{s['console_hw_fires']} \"fired by hardware\" lines.", ""]
    pct = "" if s["pct_of_trigger_fires"] is None else f" ({s['pct_of_trigger_fires']:.1f} % of the trigger table's fires)"
    lines += ["| hardware phase (the engine's counters) | fires |", "|---|---|",
              f"| fires of the trigger table | {s['trigger_fires']:,} |",
              f"| sent by the order engine | {s['sent_by_engine']:,} |",
              f"| **not sent** | **{s['count']:,}**{pct} |"]
    lines += [f"| - {what} | {s['not_sent'][k]:,} |" for k, what in NOT_SENT_ROWS]
    lines.append("")
    accounted = sum(s["not_sent"].values()) + s["sent_by_engine"]
    lines.append("Every fire is accounted for (fires = sent + each reason not sent)." if s["accounted"] else
                 f"NOT every fire is accounted for: {s['trigger_fires']:,} fires, {accounted:,} sent or counted not sent.")
    lines.append(f"The console has {s['console_hw_fires']:,} \"fired by hardware\" lines: "
                 + ("the same as the engine's orders sent." if s["console_fires_agree"] else
                    f"NOT the same as the {s['sent_by_engine']:,} orders the engine sent."))
    o = s["engine_orders"]
    if o is not None:
        lines.append(f"Engine errors {o['errors']}, cancels that came after the stop had fired {o['late_cancels']}."
                     + ("" if s["orders_line_agrees"] else " The `offload` orders line does NOT give the same sent / "
                        "logged-not-sent figures as the fires line."))
    if t["met"]:
        lines.append(f"Target: **met** (0 not sent over {s['trigger_fires']:,} fires).")
    else:
        why = [f"{s['count']:,} not sent"] if s["count"] else []
        if s["trigger_fires"] < t["min_fires"]:
            why.append(f"only {s['trigger_fires']:,} fires (`--soc-minutes` limits the hardware phase)")
        lines.append("Target: **NOT met** (" + "; ".join(why) + ").")
    if report.get("unlabelled_orders"):
        lines += ["", f"{report['unlabelled_orders']} order(s) in the capture have no fire line on the console: in no row."]
    return lines + [""]


# ---- 2. the Linux baseline ----------------------------------------------------------------------------------
def linux_md(fig):
    """The report.md lines of the Linux baseline (fig: linux_baseline.report_figures())."""
    u = fig["us"]
    return ["## Linux software baseline (QuickFIX/J on the kernel's TCP, W -> D at the exchange's veth, tcpdump)", "",
            "| orders (after warm-up) | min | median | mean | p99 | max |", "|---|---|---|---|---|---|",
            f"| {fig['count']:,} (after {fig['warmup']:,}) | {u['min']:,.1f} us | {u['median']:,.1f} us | {u['mean']:,.1f} us "
            f"| {u['p99']:,.1f} us | {u['max']:,.1f} us |", ""]


# ---- 3. the offload datapath: sweep and line-rate check (DatapathBench) --------------------------------------
DATAPATH_OUT = os.path.join(OUT, "datapath")


def run_datapath(volumes, linerate_messages, dp_out=DATAPATH_OUT):
    """Runs DatapathBench (SpinalSim/Verilator); it exits non-zero on a missed or false fire, and so does this."""
    run([os.path.join(ROOT, "mill"), "-i", "hw.test.runMain", "triggerfish.offload.DatapathBench",
         "--out", dp_out, "--volumes", volumes, "--linerate-messages", str(linerate_messages)])
    return json.load(open(os.path.join(dp_out, "datapath.json")))


class DatapathError(Exception):
    """datapath.json is not what DatapathBench writes."""


DP_METRICS = ("latency_cycles", "eof2sof_cycles", "t2t_cycles", "sof2sof_cycles")


def _field(d, key, where):
    if not isinstance(d, dict) or key not in d:
        raise DatapathError(f"datapath.json: {where} has no {key!r}")
    return d[key]


def across(rows, key, clock_mhz, where):
    """One metric over several cells (DatapathBench's per-cell {min, avg, max, count}): the smallest min, the average
    over every order (each cell's avg weighted by its count), the largest max, and whether every order of every cell
    took the same cycles (min == max). None when no cell has an order."""
    st = []
    for i, r in enumerate(rows):
        d = _field(r, key, f"{where} {i}")
        for k in ("min", "avg", "max", "count"):
            _field(d, k, f"{where} {i} {key}")
        if d["count"]:
            st.append(d)
    if not st:
        return None
    n = sum(d["count"] for d in st)
    lo, hi = min(d["min"] for d in st), max(d["max"] for d in st)
    avg = sum(d["avg"] * d["count"] for d in st) / n
    k = 1000.0 / clock_mhz
    return {"count": n, "min": lo, "avg": round(avg, 3), "max": hi, "same_for_every_order": lo == hi,
            "ns": {"min": lo * k, "avg": round(avg * k, 3), "max": hi * k}}


def datapath_summary(dp):
    """The aggregates of datapath.json that the README quotes: across the sweep's cells (fires per cell, missed and
    false in all, each metric's min / order-weighted avg / max) and across the line-rate runs (missed, false, every
    message processed, each mode's offered rate, and the highest rate sustained, recomputed here by DatapathBench's
    rule: the runs with every message counted by the parser, frames back to back, no missed or false fire)."""
    clock = _field(dp, "clock_mhz", "the top level")
    cells = _field(dp, "sweep", "the top level")
    if not isinstance(cells, list) or not cells:
        raise DatapathError("datapath.json: no sweep cell")
    fires = [_field(c, "fires", f"sweep cell {i}") for i, c in enumerate(cells)]
    sweep = {"cells": len(cells),
             "volumes": sorted({_field(c, "messages", f"sweep cell {i}") for i, c in enumerate(cells)}),
             "body_bytes": sorted({_field(c, "body_bytes", f"sweep cell {i}") for i, c in enumerate(cells)}),
             "fires": sum(fires), "fires_per_cell": {"min": min(fires), "max": max(fires)},
             "missed": sum(_field(c, "missed", f"sweep cell {i}") for i, c in enumerate(cells)),
             "false": sum(_field(c, "false", f"sweep cell {i}") for i, c in enumerate(cells)),
             "orders_byte_exact": all(_field(c, "orders_byte_exact", f"sweep cell {i}") for i, c in enumerate(cells))}
    for m in DP_METRICS:
        sweep[m] = across(cells, m, clock, "sweep cell")
    lr = _field(dp, "linerate", "the top level")
    runs = _field(lr, "runs", "linerate")
    if not isinstance(runs, list) or not runs:
        raise DatapathError("datapath.json: no line-rate run")
    rows = []
    for i, r in enumerate(runs):
        w = f"line-rate run {i}"
        row = {k: _field(r, k, w) for k in ("mode", "messages_offered", "messages_processed", "offered_msgs_per_s",
                                            "frames_back_to_back", "fires", "missed", "false")}
        row["sustained"] = (row["missed"] == 0 and row["false"] == 0 and row["frames_back_to_back"]
                            and row["messages_processed"] == row["messages_offered"])
        rows.append(row)
    ok = [r["offered_msgs_per_s"] for r in rows if r["sustained"]]
    linerate = {"runs": rows, "fires": sum(r["fires"] for r in rows), "missed": sum(r["missed"] for r in rows),
                "false": sum(r["false"] for r in rows),
                "every_message_processed": all(r["messages_processed"] == r["messages_offered"] for r in rows),
                "highest_msgs_per_s": max(ok) if ok else None,
                "latency_cycles": across(runs, "latency_cycles", clock, "line-rate run"),
                "eof2sof_cycles": across(runs, "eof2sof_cycles", clock, "line-rate run")}
    said = lr.get("highest_msgs_per_s")
    linerate["datapath_json_agrees"] = (said is not None and linerate["highest_msgs_per_s"] is not None
                                        and abs(said - linerate["highest_msgs_per_s"]) < 1) or (not said and not ok)
    return {"sweep": sweep, "linerate": linerate}


def datapath_summary_md(s):
    """report.md lines of datapath_summary()."""
    def st(d, nd=1):
        return "-" if d is None else f"{d['min']} / {d['avg']:.{nd}f} / {d['max']}"

    def ns(d):
        return "-" if d is None else f"{d['ns']['min']:.0f} / {d['ns']['avg']:.0f} / {d['ns']['max']:.0f}"

    def same(d):
        return "-" if d is None else ("yes" if d["same_for_every_order"] else "no")
    sw, lr = s["sweep"], s["linerate"]
    fpc = sw["fires_per_cell"]
    lines = ["", "### Across the sweep's cells", "",
             f"{sw['cells']} cells ({len(sw['body_bytes'])} body sizes x volumes of "
             f"{' and '.join(f'{v:,}' for v in sw['volumes'])} messages): "
             f"{fpc['min']:,}" + ("" if fpc["min"] == fpc["max"] else f" to {fpc['max']:,}") + " fires a cell, "
             f"{sw['fires']:,} in all; {sw['missed']} missed, {sw['false']} false; every order byte-exact on the pins: "
             f"{'yes' if sw['orders_byte_exact'] else 'NO'}. Avg is over every order of every cell.", "",
             "| metric | orders | cycles min / avg / max | ns min / avg / max | the same in every order |", "|---|---|---|---|---|"]
    for m, name in zip(DP_METRICS, ("msg -> TX_EN", "EOF2SOF", "T2T", "SOF2SOF")):
        d = sw[m]
        lines.append(f"| {name} | {0 if d is None else d['count']:,} | {st(d)} | {ns(d)} | {same(d)} |")
    hi = lr["highest_msgs_per_s"]
    lines += ["", "### Across the line-rate runs", "",
              f"{len(lr['runs'])} runs, {lr['fires']:,} fires: {lr['missed']} missed, {lr['false']} false; every message "
              f"processed: {'yes' if lr['every_message_processed'] else 'NO'}. "
              + "; ".join(f"{r['mode']}: {r['offered_msgs_per_s']:,.0f} messages/s offered"
                          + ("" if r["sustained"] else " (NOT sustained)") for r in lr["runs"]) + ". "
              + (f"Highest sustained: **{hi:,.0f} messages/s**." if hi is not None else "No run sustained its rate.")
              + ("" if lr["datapath_json_agrees"] else " (datapath.json's highest_msgs_per_s says otherwise.)")]
    return lines


def datapath_report(report, dp):
    """report["sweep"] (one row per cell) and report["linerate"] from datapath.json, and report["datapath_summary"]
    (datapath_summary())."""
    report["sweep"] = dp["sweep"]
    report["linerate"] = dp["linerate"]
    report["datapath_summary"] = datapath_summary(dp)
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
    return lines + early_md(dp.get("early")) + datapath_summary_md(datapath_summary(dp))


def early_md(e):
    """The early-fire rows of datapath.json (DatapathBench part 3), when the run has them."""
    if not e:
        return []
    def st(d):
        return "-" if not d.get("count") else f"{d['min']} / {d['avg']:.1f} / {d['max']}"
    lines = ["", "### Early fires and safe mode, per layout (docs/DESIGN.md \"Early trigger\")", "", e["note"], "",
             "| layout | mode | parser reads | fires | of them early | poisoned | missed | false | byte-exact | T2T early fires | T2T all | EOF2SOF |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in e["rows"]:
        lines.append(f"| {r['layout']} | {r['mode']} | {r.get('tap', 'LiteEth')} | {r['fires']:,} | {r['early_fires']:,} | {r['poisoned']} | {r['missed']} | "
                     f"{r['false']} | {r['orders_byte_exact']} | {st(r['t2t_early_cycles'])} | {st(r['t2t_cycles'])} | "
                     f"{st(r['eof2sof_cycles'])} |")
    c = e["corruption"]
    lines += ["", f"Corrupted after the price (early mode): crossings {dict(c['crossings'])} in segments {dict(c['segments'])}; "
              f"orders sent early {c['sent_early']}, poisoned {c['poisoned']} (each with its last FCS byte inverted on the pins), "
              f"a poisoned order's numbers taken by the next one: {c['numbers_reused']}; missed {c['missed']}, false {c['false']}."]
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fires", type=int, default=1000, help="fires per path in the whole-SoC run")
    ap.add_argument("--step-ms", type=int, default=100, help="the exchange's market step in the whole-SoC run")
    ap.add_argument("--soc-minutes", type=float, default=20, help="time limit of each whole-SoC phase (hw, fw): a phase "
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
    ap.add_argument("--out", default=OUT, help="where the run's results and the report go (default build/bench)")
    ap.add_argument("--burst", type=int, default=10000, help="W per burst in the burst phase (0: no burst phase)")
    ap.add_argument("--burst-shapes", default="segment,coalesced", help="the burst's shapes: segment, coalesced or both")
    ap.add_argument("--burst-inflight", type=int, default=0, help="segment shape: bytes the SoC may leave unacknowledged "
                    "when the next W is written (tools/bench/README.md)")
    ap.add_argument("--burst-minutes", type=float, default=15, help="wall-clock limit of each burst; a burst still going "
                    "then is measured as far as it got (today's firmware takes about 0.7 s of wall time a W here)")
    ap.add_argument("--burst-digest", choices=("on", "off"), default="on", help="market-data digestion by the receive "
                    "parser during the burst (off: firmware parses every W)")
    ap.add_argument("--burst-only", action="store_true", help="run the burst phase alone and put its figures into the "
                    "report.json and report.md already in --out (or new ones)")
    ap.add_argument("--soak-soc-minutes", type=float, default=30, help="length of the long soak in minutes of the SoC's "
                    "own clock (the time its FIX session runs on)")
    ap.add_argument("--soak-minutes", type=float, default=120, help="wall-clock limit of the long soak: it stops there "
                    "and reports how far it got")
    ap.add_argument("--skip-soak", action="store_true")
    ap.add_argument("--risk-fires", type=int, default=300, help="hardware fires in each of the risk phase's two runs (the "
                    "gate off, then on); 0: no risk phase")
    ap.add_argument("--risk-minutes", type=float, default=10, help="wall-clock limit of each of the risk phase's runs")
    ap.add_argument("--risk-only", action="store_true", help="run the risk phase alone and put its figures into the "
                    "report of --out (report.json's \"risk\", report.md's risk section)")
    ap.add_argument("--soc-early-fires", type=int, default=1000, help="hardware fires in each of the whole-SoC early "
                    "phase's two runs (early fires off, then on); 0: no such phase")
    ap.add_argument("--soc-early-minutes", type=float, default=25, help="wall-clock limit of each of its runs")
    ap.add_argument("--soc-early-only", action="store_true", help="run the whole-SoC early phase alone and put its "
                    "figures into the report of --out (report.json's \"soc_early\", report.md's section)")
    ap.add_argument("--soak-only", action="store_true", help="run the long soak alone and put its figures into the "
                    "report.json and report.md already in --out (or new ones)")
    ap.add_argument("--fuzz-minutes", type=float, default=5, help="minutes per firmware fuzzer in the fuzzing phase "
                    "(five fuzzers; 0: no fuzzing phase)")
    ap.add_argument("--fuzz-only", action="store_true", help="run the fuzzing phase alone and put its figures into the "
                    "report.json and report.md already in --out (or new ones)")
    args = ap.parse_args(argv)
    if args.burst_only:
        return burst_only(args)
    if args.soak_only:
        return soak_only(args)
    if args.risk_only:
        return risk_only(args)
    if args.soc_early_only:
        return soc_early_only(args)
    if args.fuzz_only:
        out = os.path.abspath(args.out)
        f = fuzz.run(args.fuzz_minutes, os.path.join(out, "fuzz"))
        fuzz.merge_report(out, f)
        print("\n".join(fuzz.md(f)))
        return f
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    out = os.path.abspath(args.out)
    dp_out = os.path.join(out, "datapath")
    os.makedirs(out, exist_ok=True)
    py = sys.executable
    if args.report_only:
        args.skip_baseline = not os.path.exists(os.path.join(out, "linux-baseline/linux-baseline.json"))
        args.skip_datapath = not os.path.exists(os.path.join(dp_out, "datapath.json"))
    else:
        run([py, os.path.join(ROOT, "tools/bench/soc_latency.py"), "--fires", str(args.fires), "--step-ms", str(args.step_ms),
             "--timeout", str(args.soc_minutes * 60), "--out", os.path.relpath(os.path.join(out, "soc"), ROOT),
             "--clock-mhz", str(ETH_MHZ)])
    try:
        soc = soc_latency.soc_result(load_json(os.path.join(out, "soc/latency.json"), "the whole-SoC latency JSON"),
                                     soc_latency.tally_log(os.path.join(out, "soc/soc.log")), ETH_MHZ)
    except soc_latency.ConsoleError as e:
        raise SystemExit(f"bench: {e}")
    if not args.report_only and args.burst > 0:
        run_burst(args, out)
    if not args.report_only and not args.skip_soak:
        run_soak(args, out)
    if not args.report_only and args.fuzz_minutes > 0:
        fuzz.run(args.fuzz_minutes, os.path.join(out, "fuzz"))
    if not args.report_only and args.risk_fires > 0:
        run_risk(args, out)
    if not args.report_only and args.soc_early_fires > 0:
        run_soc_early(args, out)
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
    linux = None
    if not args.skip_baseline:
        if not args.report_only:
            run([py, os.path.join(ROOT, "tools/bench/linux_baseline.py"), "--fires", str(args.baseline_fires),
                 "--out", os.path.join(out, "linux-baseline"), "--quiet"])
        linux = load_json(os.path.join(out, "linux-baseline/linux-baseline.json"), "the Linux baseline's JSON")
    dp = (None if args.skip_datapath else load_json(os.path.join(dp_out, "datapath.json"), "datapath.json")
          if args.report_only else run_datapath(args.datapath_volumes, args.datapath_linerate, dp_out))
    try:
        report, lines = build_report(soc, linux, dp, bc, note)
    except (DatapathError, linux_baseline.InputError) as e:
        raise SystemExit(f"bench: {e}")
    if args.report_only:   # the measuring run's date, duration and settings, from its report
        try:
            with open(os.path.join(out, "report.json")) as f:
                prev = json.load(f).get("run")
        except (OSError, ValueError, AttributeError):
            prev = None
        report["run"] = prev if isinstance(prev, dict) and {"started_utc", "wall_seconds"} <= set(prev) else None
    else:
        report["run"] = {"started_utc": started.strftime("%Y-%m-%d %H:%M:%S"),
                         "wall_seconds": round(time.monotonic() - t0), "fires_per_path": args.fires,
                         "soc_minutes_per_phase": args.soc_minutes, "step_ms": args.step_ms,
                         "baseline_fires": None if args.skip_baseline else args.baseline_fires,
                         "datapath_volumes": None if args.skip_datapath else args.datapath_volumes,
                         "burst_messages": args.burst or None, "fuzz_minutes_each": args.fuzz_minutes or None}
    if report["run"]:
        r = report["run"]
        lines[1:1] = ["", f"Measured {r['started_utc']} UTC, {r['wall_seconds'] // 60} min {r['wall_seconds'] % 60} s; "
                      f"whole SoC: {r['soc_minutes_per_phase']:g} minutes a phase (at most {r['fires_per_path']} fires), "
                      f"market step {r['step_ms']} ms after the SoC's Heartbeat."]
    b = burst.load(out)
    if b is not None:
        report["burst"] = b
        lines += burst.burst_md(b)
    sk = soak_load(out)
    if sk is not None:
        report["soak"] = sk
        lines += soak_md(sk)
    rk = risk_load(out)
    if rk is not None:
        report["risk"] = rk
        lines += risk_md(rk)
    se = soc_early_load(out)
    if se is not None:
        report["soc_early"] = se
        lines += soc_early_md(se)
    f = fuzz.load(os.path.join(out, "fuzz")) if args.report_only or args.fuzz_minutes > 0 else None
    if f is not None:
        report["fuzz"] = f
        lines += fuzz.md(f)
    soc_latency.plot(soc["records"], os.path.join(out, "latency.png"), ETH_MHZ)
    if dp is not None:
        datapath_plot(dp, os.path.join(out, "datapath.png"))
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    rel = os.path.relpath(out, ROOT)
    print(f"\nbench: {rel}/report.md, report.json, latency.png" + ("" if dp is None else ", datapath.png"))
    return report


# ---- the pre-trade risk gate (issue 17): its cost on the hardware path and its size ------------------------------
RISK_HEADING = "## Risk gate"
SOAK_HEADING = "## Long soak through an impaired wire"


def run_pair(args, rdir, fires, minutes, flag):
    """Two short hardware phases of the same build into RDIR/soc-off and RDIR/soc-on, the second with soc_latency.py's
    FLAG (--risk, --early): a setting's cost or gain on the whole SoC, measured in one bench run."""
    os.makedirs(rdir, exist_ok=True)
    for tag in ("off", "on"):
        run([sys.executable, os.path.join(ROOT, "tools/bench/soc_latency.py"), "--paths", "hw", "--fires", str(fires),
             "--step-ms", str(args.step_ms), "--timeout", str(minutes * 60), "--clock-mhz", str(ETH_MHZ),
             "--out", os.path.relpath(os.path.join(rdir, f"soc-{tag}"), ROOT)] + ([flag] if tag == "on" else []))


def pair_figures(rdir, what, extra):
    """A pair's figures from its two runs' files: per run the hardware orders' T2T and EOF2SOF (cycles, ns), the fires,
    and extra(console log path) merged in; the difference (on - off) of each statistic's min and median."""
    runs = {}
    for tag in ("off", "on"):
        d = os.path.join(rdir, f"soc-{tag}")
        try:
            res = soc_latency.soc_result(load_json(os.path.join(d, "latency.json"), f"the {what} phase's {tag} latency JSON"),
                                         soc_latency.tally_log(os.path.join(d, "soc.log")), ETH_MHZ)
            more = extra(os.path.join(d, "soc.log"))
        except soc_latency.ConsoleError as e:
            raise SystemExit(f"bench: {e}")
        runs[tag] = {m: res["paths"]["hw"][m] for m in ("t2t", "eof2sof")}
        runs[tag]["fires"] = res["console"]["fires"]["hw"]
        runs[tag].update(more)
    # (min and median: a maximum is a fire in a segment the exchange's kernel joined, whose T2T is the wire time after
    # its price: it depends on the market, not on the setting)
    diff = {m: {k: runs["on"][m]["cycles"][k] - runs["off"][m]["cycles"][k] for k in ("min", "median")}
            for m in ("t2t", "eof2sof") if runs["on"][m]["count"] and runs["off"][m]["count"]}
    return {"off": runs["off"], "on": runs["on"], "cost_cycles": diff}


def pair_table(r, setting, extra):
    """A pair's table for report.md: a row per run (off, on) with its fires, the T2T orders, T2T and EOF2SOF cycles
    (min / median / max) and the extra columns [(heading, key)]."""
    cyc = lambda d: f"{d['cycles']['min']} / {d['cycles']['median']} / {d['cycles']['max']}" if d["count"] else "-"
    lines = ["| " + " | ".join([setting, "fires", "T2T orders", "T2T cycles", "EOF2SOF cycles"] + [h for h, _ in extra]) + " |",
             "|" + "---|" * (5 + len(extra))]
    for tag in ("off", "on"):
        x = r[tag]
        t, e = x["t2t"], x["eof2sof"]
        lines.append("| " + " | ".join([tag, str(x["fires"]), str(t["count"]), cyc(t), cyc(e)] + [str(x[k]) for _, k in extra]) + " |")
    return lines


def pair_diff(cost):
    """A pair's differences (pair_figures' cost_cycles) as text: "T2T +2 / +2 cycles, EOF2SOF ..." (min / median)."""
    return ", ".join(f"{m.upper()} {c['min']:+d} / {c['median']:+d} cycles" for m, c in cost.items())


def run_risk(args, out):
    """Two short hardware phases of the same build, the gate off and then on (soc_latency.py --risk: limits no order
    reaches, every check made), then the gate alone through tools/synth-risk-gate.sh; writes OUT/risk/risk.json."""
    rdir = os.path.join(out, "risk")
    run_pair(args, rdir, args.risk_fires, args.risk_minutes, "--risk")
    r = subprocess.run(["bash", os.path.join(ROOT, "tools/synth-risk-gate.sh")], cwd=ROOT, capture_output=True, text=True)
    with open(os.path.join(rdir, "synth.txt"), "w") as f:
        f.write(r.stdout + r.stderr)
    if r.returncode not in (0, 3):   # (3: measured, under 125 MHz)
        raise SystemExit(f"bench: tools/synth-risk-gate.sh failed ({r.returncode}); see {os.path.join(rdir, 'synth.txt')}")
    fig = risk_figures(rdir, load_json(os.path.join(ROOT, "build/risk/synth/summary.json"), "the risk gate's synthesis summary"))
    with open(os.path.join(rdir, "risk.json"), "w") as f:
        json.dump(fig, f, indent=1)
    return fig


def risk_figures(rdir, synth):
    """The risk phase's figures from its two runs' files and the synthesis summary: per run the hardware orders'
    T2T and EOF2SOF (cycles, ns), the fires and the gate's refusals; the cost (on - off) of each statistic."""
    r = pair_figures(rdir, "risk", lambda log: {"refused": soc_latency.risk_refusals(log)})
    r["gate"] = synth
    return r


def risk_load(out):
    p = os.path.join(out, "risk", "risk.json")
    return load_json(p, "the risk phase's JSON") if os.path.exists(p) else None


def risk_md(r):
    lines = ["", RISK_HEADING, "",
             "The same build's hardware path, two runs: the gate off, then on with limits no order reaches (every check made "
             "on every order; `tools/bench/soc_latency.py --risk`). Cycles of the 125 MHz Ethernet clock, min / median / max.",
             ""] + pair_table(r, "gate", [("refused", "refused")])
    if r["cost_cycles"]:
        lines += ["", "Cost of the gate (on minus off, min / median): " + pair_diff(r["cost_cycles"]) +
                  ". (Not the maximum: that is a fire in a segment the exchange's kernel joined, whose T2T is the wire time "
                  "after its price.)"]
    g = r["gate"]
    gg = g.get("gate", {})
    lines += ["", f"The gate alone on ECP5 (yosys synth_ecp5; `tools/synth-risk-gate.sh`, nextpnr seed {g.get('seed')}): "
              f"{gg.get('lut4')} LUT4, {gg.get('ff')} FF, {gg.get('ccu2c')} CCU2C, {gg.get('dpr16x4')} DPR16X4 (LUT RAM); "
              f"Fmax {g.get('fmax_mhz')} MHz against {g.get('constraint_mhz')} MHz (in its synthesis harness)."]
    return lines


def risk_only(args):
    """--risk-only: the risk phase alone; its figures replace report["risk"] and report.md's risk section."""
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if args.report_only:   # the figures again from the two runs' files and the last synthesis summary
        rdir = os.path.join(out, "risk")
        r = risk_figures(rdir, load_json(os.path.join(ROOT, "build/risk/synth/summary.json"), "the risk gate's synthesis summary"))
        with open(os.path.join(rdir, "risk.json"), "w") as f:
            json.dump(r, f, indent=1)
    else:
        r = run_risk(args, out)
    report = report_merge.merge(out, "risk", r, lambda md: report_merge.replace_section(md, RISK_HEADING, risk_md(r)))
    print("\n".join(risk_md(r)))
    print(f"\nbench: {os.path.relpath(out, ROOT)}/report.md, report.json (risk)")
    return report


# ---- early fires on the whole SoC (issue 16): the same build's hardware path, safe then early ----------------------
SOC_EARLY_HEADING = "## Early fires on the whole SoC"


def run_soc_early(args, out):
    """Two short hardware phases of the same build, early fires off (safe) and on (soc_latency.py --early); writes
    OUT/soc-early/soc_early.json."""
    rdir = os.path.join(out, "soc-early")
    run_pair(args, rdir, args.soc_early_fires, args.soc_early_minutes, "--early")
    r = soc_early_figures(rdir)
    with open(os.path.join(rdir, "soc_early.json"), "w") as f:
        json.dump(r, f, indent=1)
    return r


def soc_early_figures(rdir):
    """The early phase's figures: pair_figures with each run's early counts (sent early, poisoned: none expected, the
    market data is not corrupted here); a run without them (a SoC without early fires) is an error."""
    def counts(log):
        c = soc_latency.early_counts(log)
        if c is None:
            raise soc_latency.ConsoleError(f"{log}: no early fires' counts in its `offload` report (a SoC without them?)")
        return c
    return pair_figures(rdir, "early", counts)


def soc_early_load(out):
    p = os.path.join(out, "soc-early", "soc_early.json")
    return load_json(p, "the early phase's JSON") if os.path.exists(p) else None


def soc_early_md(r):
    lines = ["", SOC_EARLY_HEADING, "",
             "The same build's hardware path, two runs: early fires off (safe: the order after the segment is verified), "
             "then on (`offload early on`, `tools/bench/soc_latency.py --early`: the order starts at the crossing price). "
             "Cycles of the 125 MHz Ethernet clock, min / median / max; the datapath alone per layout is DatapathBench's "
             "part 3 (above).", ""] + pair_table(r, "early", [("sent early", "sent_early"), ("poisoned", "poisoned")])
    if r["cost_cycles"]:
        lines += ["", "Early minus safe (min / median): " + pair_diff(r["cost_cycles"]) + "."]
    return lines


def soc_early_only(args):
    """--soc-early-only: the early phase alone; its figures replace report["soc_early"] and its report.md section."""
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if args.report_only:
        rdir = os.path.join(out, "soc-early")
        r = soc_early_figures(rdir)
        with open(os.path.join(rdir, "soc_early.json"), "w") as f:
            json.dump(r, f, indent=1)
    else:
        r = run_soc_early(args, out)
    report = report_merge.merge(out, "soc_early", r,
                                lambda md: report_merge.replace_section(md, SOC_EARLY_HEADING, soc_early_md(r)))
    print("\n".join(soc_early_md(r)))
    print(f"\nbench: {os.path.relpath(out, ROOT)}/report.md, report.json (soc_early)")
    return report


def run_burst(args, out):
    run([sys.executable, os.path.join(ROOT, "tools/bench/burst.py"), "--messages", str(args.burst), "--shapes",
         args.burst_shapes, "--minutes", str(args.burst_minutes), "--inflight", str(args.burst_inflight),
         "--digest", args.burst_digest,
         "--out", os.path.relpath(os.path.join(out, "burst"), ROOT)])


def run_soak(args, out):
    """The long soak; its checks failing is a finding for the report, not the end of the bench."""
    d = os.path.join(out, "soak")
    os.makedirs(d, exist_ok=True)
    cmd = [sys.executable, os.path.join(ROOT, "sim/tests/soak.py"), "--out", os.path.join(d, "run"),
           "--seconds", str(args.soak_minutes * 60), "--soc-minutes", str(args.soak_soc_minutes),
           "--json", os.path.join(d, "soak.json")]
    print("== " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), flush=True)
    rc = subprocess.run(cmd, cwd=ROOT).returncode
    try:
        with open(os.path.join(d, "soak.json")) as f:
            r = json.load(f)
    except (OSError, ValueError):
        r = {"problems": [f"soak.py exit {rc} without its JSON"]}
    r["exit"] = rc
    r["soc_minutes_target"] = args.soak_soc_minutes
    r["wall_minutes_limit"] = args.soak_minutes
    got = r.get("soc_clock_s")
    r["how_far"] = ("skipped (exit 77)" if rc == 77 else
                    f"{(got or 0) / 60:.1f} of {args.soak_soc_minutes:g} minutes of the SoC's clock"
                    + (" (the wall-clock limit came first)" if (got or 0) < args.soak_soc_minutes * 60 else ""))
    with open(os.path.join(d, "soak.json"), "w") as f:
        json.dump(r, f, indent=1)


def soak_load(out):
    try:
        with open(os.path.join(out, "soak", "soak.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def soak_md(r):
    o, fi, se, rs, w = (r.get(k, {}) for k in ("orders", "fires", "session", "resends", "wire"))
    lines = ["", SOAK_HEADING + " (sim/tests/soak.py)", "",
             f"Wire both ways: {r.get('impair_rx')} (seed {r.get('seed')}). How far: {r.get('how_far')}; "
             f"{r.get('wall_s')} s of wall time trading" + (f", {r['sim']['simulated_ms']:.0f} ms simulated at 125 MHz"
                                                            if r.get("sim") else "") + ".", "",
             "| | to the SoC | from the SoC |", "|---|---|---|"]
    for k in ("offered", "lost", "duplicated", "reordered", "held_back", "corrupted", "delivered"):
        lines.append(f"| frames {k.replace('_', ' ')} | {w.get('rx', {}).get(k, '-')} | {w.get('tx', {}).get(k, '-')} |")
    lines += ["", f"Orders: {o.get('sent_by_soc')} sent, {o.get('at_exchange')} at the exchange, lost {o.get('lost')}, "
              f"duplicated {o.get('duplicated')}. Fires: {fi.get('hw')} by hardware, {fi.get('fw')} by firmware stops, "
              f"{fi.get('hw_stops_sent_by_fw')} hardware stops sent by firmware; false {fi.get('false')}. Session: "
              f"{se.get('logons')} logon(s), {se.get('reconnects')} reconnect(s), active at the end {se.get('active_at_end')}. "
              f"ResendRequests {rs.get('resend_requests_by_soc')} (SoC) / {rs.get('resend_requests_by_exchange')} (exchange), "
              f"GapFills {rs.get('gapfills_by_soc')} / {rs.get('gapfills_by_exchange')}. SoC TCP retransmissions "
              f"{r.get('net', {}).get('tcp_retransmit', 0)} (timeout) + {r.get('net', {}).get('tcp_fast_retransmit', 0)} (fast)."]
    probs = r.get("problems") or []
    lines.append("Checks: " + ("all held." if not probs and r.get("exit") == 0 else "FAILED: " + "; ".join(probs[:5])))
    return lines


def soak_only(args):
    """--soak-only: the long soak alone; its figures go into report.json and a section of report.md."""
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    run_soak(args, out)
    sk = soak_load(out)

    report = report_merge.merge(out, "soak", sk, lambda md: report_merge.replace_section(md, SOAK_HEADING, soak_md(sk)))
    print("\n".join(soak_md(sk)))
    print(f"\nbench: {os.path.relpath(out, ROOT)}/report.md, report.json (soak)")
    return report


def burst_only(args):
    """--burst-only: the burst phase alone; its figures replace report["burst"] and report.md's burst section."""
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if not args.report_only:   # --burst-only --report-only: the section again from burst.json (burst.py --refigure)
        run_burst(args, out)
    b = burst.load(out)
    if b is None:
        raise SystemExit(f"bench: the burst phase wrote no {os.path.join(out, 'burst', 'burst.json')}")
    report = report_merge.merge(out, "burst", b, lambda md: burst.merge_md(md, burst.burst_md(b)))
    print("\n".join(burst.burst_md(b)))
    print(f"\nbench: {os.path.relpath(out, ROOT)}/report.md, report.json (burst)")
    return report


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise SystemExit(f"bench: cannot read {what} {path}: {e.strerror}")
    except ValueError as e:
        raise SystemExit(f"bench: {what} {path} is not JSON ({e})")


def build_report(soc, linux, dp, bc, note):
    """report.json's dict and report.md's lines from the run's results: soc (soc_latency.soc_result()), linux (the
    baseline's JSON or None), dp (datapath.json or None), bc and note (the clock's board build and its sentence)."""
    report = {"clock_mhz": ETH_MHZ, "clock_board_build": bc, "clock_note": note,
              "anchors": [{"what": a, "published": b} for a, b in ANCHORS]}
    soc_report(report, soc)
    if linux is not None:
        report["linux"] = linux
        report["linux_summary"] = linux_baseline.report_figures(linux)
    if dp is not None:
        datapath_report(report, dp)
    hw, fw = report["hw"], report["fw"]
    lines = ["# Triggerfish benchmark report", "",
             f"Latencies of orders sent by the hardware offload (hw) and by the firmware (fw: the firmware-only phase, "
             f"`stop mode fw`) of the same simulated SoC, in one run, per DESIGN.md: cycles of the {ETH_MHZ:.0f} MHz "
             f"Ethernet clock and ns at that clock.", "",
             "Clock: " + report["clock_note"], "",
             "| path | metric | orders | cycles min / median / max | ns min / median / max |", "|---|---|---|---|---|"]
    for path in ("hw", "fw"):
        for m in ("t2t", "eof2sof", "sof2sof"):
            lines.append(f"| {path} | {m.upper()} | {stat_row(report[path][m])} |")
    for path in ("hw", "fw"):
        bad = report[path]["disagreeing_orders"]
        if bad:
            lines += ["", f"**{len(bad)} {path} order(s) paired against the fire log**, not in the figures (their pairing "
                      f"disagrees with the console's fire line; latency.json has each one's note): "
                      f"{', '.join(map(str, bad[:20]))}{' ...' if len(bad) > 20 else ''}."]
    if hw["eof2sof"]["count"] and fw["eof2sof"]["count"]:
        ratio = fw["eof2sof"]["cycles"]["median"] / max(1, hw["eof2sof"]["cycles"]["median"])
        lines += ["", f"Firmware / hardware, median EOF2SOF: {ratio:.0f}x."]
    lines += ["", "![latency](latency.png)", ""]
    for m in ("t2t", "eof2sof"):
        lines += [f"{m.upper()} distribution, orders per power-of-two bin of cycles (the same data as latency.png):", "",
                  "```"] + text_histogram(soc["records"], m) + ["```", ""]
    lines += suppressed_md(report)
    if linux is not None:
        lines += linux_md(report["linux_summary"])
    lines += ["## Side by side", "", "| | figure | source |", "|---|---|---|"]
    if hw["t2t"]["count"]:
        lines.append(f"| Triggerfish hw, T2T median | {hw['t2t']['ns']['median']:.0f} ns ({hw['t2t']['cycles']['median']} "
                     f"cycles) | this run |")
    if fw["t2t"]["count"]:
        lines.append(f"| Triggerfish fw, T2T median | {fw['t2t']['ns']['median'] / 1e6:.2f} ms | this run |")
    if linux is not None:
        u = report["linux_summary"]["us"]
        lines.append(f"| Linux + QuickFIX/J, W -> D at the exchange, median (min, max) | {u['median']:,.0f} us "
                     f"({u['min']:,.1f} us, {u['max']:,.1f} us) | this run (tcpdump, veth) |")
    for a, b in ANCHORS:
        lines.append(f"| {a} | {b} | published (citation) |")
    if dp is not None:
        lines += datapath_md(dp)
    return report, lines


if __name__ == "__main__":
    main()
