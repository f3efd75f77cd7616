#!/usr/bin/env python3
"""Resource and timing report of an FPGA build (used by tools/synth-ecp5.sh and tools/board.sh).

  fpga-report.py --family ecp5|xc7 --stat yosys_stat.txt [--pnr nextpnr_report.json | --pnr-log nextpnr.log]
                 [--clocks "sys=clk_sys eth_tx=pll_CLKOP eth_rx=rgmii_rx_clk"] [--times "synth=21 pnr=70"]
                 [--out DIR] [--title TEXT]

Prints the utilisation (from yosys `stat`, and from nextpnr's report when there is one) and, with a nextpnr
report, the achieved Fmax of every clock against its constraint (--pnr-log: the same figures read from the
"Max frequency for clock" lines of a nextpnr log, for nextpnr versions without --report). --clocks names the clock domains the build
must have: DOMAIN=NET[|NET...] (the net names as nextpnr reports them, without $glbnet$/$TRELLIS_IO_IN). Each
named domain must appear in the report with a constraint and meet it; clocks not named are shown too and
must also meet their constraints.
Writes DIR/report.txt (what was printed) and DIR/summary.json. Exit status: 0 = every clock met its
constraint (or no place and route was run), 3 = a clock missed its constraint, 4 = a named domain has no
constrained clock in the report, 1 = no usable input.
"""
import argparse
import json
import os
import re
import sys


def stat_cells(path):
    """Cell counts of the top (flattened, "including submodules" when yosys prints both)."""
    text = open(path).read()
    # yosys >= 0.4x prints per-module tables and, for hierarchical designs, a "Count including submodules"
    # section; take the last table, which is the whole design.
    sections = re.split(r"Count including submodules|=== design hierarchy ===", text)
    part = sections[-1]
    cells = {}
    for m in re.finditer(r"^\s+(\d+)\s+(\S+)\s*$", part, re.M):
        n, name = int(m.group(1)), m.group(2)
        if name.startswith("$") and name not in ("$_TBUF_",):
            continue
        cells[name] = cells.get(name, 0) + n
    for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", part, re.M):  # older yosys: "name count"
        name, n = m.group(1), int(m.group(2))
        if not name[0].isdigit():
            cells.setdefault(name, n)
    return cells


def clean_clock(name):
    name = re.sub(r"^\$glbnet\$", "", name)
    name = re.sub(r"\$TRELLIS_IO_IN$", "", name)
    name = re.sub(r"\$(IBUF|BUFG)[_A-Za-z0-9$]*$", "", name)
    return name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", required=True, choices=["ecp5", "xc7"])
    ap.add_argument("--stat", required=True)
    ap.add_argument("--pnr", default=None)
    ap.add_argument("--pnr-log", default=None)
    ap.add_argument("--clocks", default="")
    ap.add_argument("--times", default="")
    ap.add_argument("--out", default=None)
    ap.add_argument("--title", default="")
    ap.add_argument("--config", default="", help="key=value ... describing the build, copied into summary.json")
    args = ap.parse_args()

    lines = []
    def say(s=""):
        print(s)
        lines.append(s)

    summary = {"family": args.family, "title": args.title, "resources": {}, "clocks": {}, "times_s": {},
               "timing_met": None, "pnr": bool(args.pnr),
               "config": dict(kv.partition("=")[::2] for kv in args.config.split())}
    for t in args.times.split():
        k, _, v = t.partition("=")
        summary["times_s"][k] = int(v)

    try:
        cells = stat_cells(args.stat)
    except OSError as e:
        print(f"fpga-report: {e}")
        return 1
    if args.title:
        say(f"== {args.title}")
    if args.family == "ecp5":
        lut4, ccu2, dpr = cells.get("LUT4", 0), cells.get("CCU2C", 0), cells.get("TRELLIS_DPR16X4", 0)
        res = {"LUT4": lut4, "CCU2C": ccu2, "TRELLIS_DPR16X4": dpr, "FF": cells.get("TRELLIS_FF", 0),
               "BRAM_DP16KD": cells.get("DP16KD", 0), "DSP_MULT18X18D": cells.get("MULT18X18D", 0)}
        # LUT4 equivalents: logic LUT4s, 2 per carry cell, 4 per 16x4 distributed RAM (as nextpnr packs them).
        res["LUT4_total"] = lut4 + 2 * ccu2 + 4 * dpr
        say(f"yosys synth_ecp5: LUT4 {lut4} + CCU2C {ccu2} (carry, 2 LUT4 each) + TRELLIS_DPR16X4 {dpr} "
            f"(distributed RAM, 4 LUT4 each) = {res['LUT4_total']} LUT4; TRELLIS_FF {res['FF']}; "
            f"DP16KD {res['BRAM_DP16KD']} (18 Kbit BRAM); MULT18X18D {res['DSP_MULT18X18D']} (DSP)")
    else:
        luts = sum(cells.get(f"LUT{i}", 0) for i in range(1, 7))
        lutram = sum(n for k, n in cells.items() if re.match(r"^(RAM\d+[MXS]|RAM\d+X\d+[SD]|SRL16E|SRLC32E)", k))
        ffs = sum(n for k, n in cells.items() if re.match(r"^FD[RSCP]E$", k))
        b36, b18 = cells.get("RAMB36E1", 0), cells.get("RAMB18E1", 0)
        dsp = cells.get("DSP48E1", 0)
        res = {"LUT": luts, "LUTRAM_cells": lutram, "FF": ffs, "RAMB36E1": b36, "RAMB18E1": b18,
               "BRAM36_equiv": b36 + b18 / 2, "DSP48E1": dsp, "CARRY4": cells.get("CARRY4", 0),
               "MUXF7": cells.get("MUXF7", 0), "MUXF8": cells.get("MUXF8", 0)}
        say(f"yosys synth_xilinx (xc7): LUT {luts} (LUT1..LUT6) + {lutram} LUTRAM/SRL cells; FF {ffs}; "
            f"BRAM {b36} RAMB36E1 + {b18} RAMB18E1 (= {res['BRAM36_equiv']:g} x 36 Kbit); DSP48E1 {dsp}; "
            f"CARRY4 {res['CARRY4']}, MUXF7 {res['MUXF7']}, MUXF8 {res['MUXF8']}")
        prims = {k: n for k, n in cells.items() if k in ("MMCME2_BASE", "PLLE2_BASE", "BUFG", "IDELAYCTRL",
                                                           "IDELAYE2", "IDDR", "ODDR", "IBUF", "OBUF", "IOBUF")}
        if prims:
            say("                   primitives: " + ", ".join(f"{k} {n}" for k, n in sorted(prims.items())))
    summary["resources"]["yosys"] = res

    if not args.pnr and not args.pnr_log:
        summary["timing_met"] = None
        finish(args, summary, lines)
        return 0
    summary["pnr"] = True
    try:
        rep = json.load(open(args.pnr)) if args.pnr else log_report(args.pnr_log)
    except (OSError, ValueError):
        say("place and route: no report (it failed: see its log)")
        summary["timing_met"] = False
        finish(args, summary, lines)
        return 1
    util = rep.get("utilization", {})
    keys = ["TRELLIS_COMB", "TRELLIS_FF", "DP16KD", "MULT18X18D", "TRELLIS_IO", "EHXPLLL", "DCCA"] \
        if args.family == "ecp5" else sorted(util)
    used = {}
    for k in keys:
        if k in util:
            used[k] = (util[k]["used"], util[k]["available"])
            say(f"place and route: {k:13s} {util[k]['used']:6d} / {util[k]['available']:6d} "
                f"({100.0 * util[k]['used'] / max(1, util[k]['available']):.0f} %)")
    summary["resources"]["pnr"] = {k: {"used": u, "available": a} for k, (u, a) in used.items()}

    fmax = {clean_clock(k): v for k, v in rep.get("fmax", {}).items()}
    wanted = {}
    for spec in args.clocks.split():
        dom, _, nets = spec.partition("=")
        wanted[dom] = nets.split("|")
    ok, missing = True, False
    shown = set()
    say("Fmax per clock domain (achieved / required):")
    for dom, nets in wanted.items():
        hit = next((n for n in nets if n in fmax), None)
        if hit is None:
            say(f"  {dom:8s} {'/'.join(nets)}: NOT IN THE TIMING REPORT (unconstrained or missing clock)")
            summary["clocks"][dom] = {"net": None, "met": False}
            missing = True
            continue
        shown.add(hit)
        f = fmax[hit]
        met = f["achieved"] > f["constraint"]  # nextpnr's own rule: PASS only above the target (zero slack is FAIL)
        ok = ok and met
        say(f"  {dom:8s} {hit:28s} {f['achieved']:8.2f} MHz / {f['constraint']:7.2f} MHz  {'met' if met else 'FAILED'}")
        summary["clocks"][dom] = {"net": hit, "achieved_mhz": round(f["achieved"], 2),
                                  "required_mhz": round(f["constraint"], 2), "met": met}
    for net, f in fmax.items():
        if net in shown:
            continue
        met = f["achieved"] > f["constraint"]  # nextpnr's own rule: PASS only above the target (zero slack is FAIL)
        ok = ok and met
        say(f"  {'(other)':8s} {net:28s} {f['achieved']:8.2f} MHz / {f['constraint']:7.2f} MHz  {'met' if met else 'FAILED'}")
        summary["clocks"][net] = {"net": net, "achieved_mhz": round(f["achieved"], 2),
                                  "required_mhz": round(f["constraint"], 2), "met": met}
    summary["timing_met"] = ok and not missing
    say("timing: " + ("met in every clock domain" if summary["timing_met"] else
                      "NOT MET" + (" (a domain has no constrained clock)" if missing else "")))
    finish(args, summary, lines)
    return 4 if missing else (0 if ok else 3)


def log_report(path):
    """The fmax part of a nextpnr report from its log: the last "Max frequency for clock" line per clock."""
    fmax = {}
    for m in re.finditer(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz \((?:PASS|FAIL) at ([\d.]+) MHz\)",
                         open(path).read()):
        fmax[m.group(1)] = {"achieved": float(m.group(2)), "constraint": float(m.group(3))}
    if not fmax:
        raise ValueError("no Fmax lines")
    return {"fmax": fmax, "utilization": {}}


def finish(args, summary, lines):
    if summary["times_s"]:
        t = summary["times_s"]
        msg = "build time: " + ", ".join(f"{k} {v} s" for k, v in t.items())
        print(msg)
        lines.append(msg)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "report.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
