#!/usr/bin/env python3
"""Where the firmware's cycles went, per function: sums a whole-SoC run's PC histogram (sim/main.cpp +pc-hist=FILE:
one count per sys cycle for the address of the last instruction fetched) over the functions of the firmware's ELF
(nm's text symbols), and prints the top ones with their cycles and share.

    SIM_ARGS="+pc-hist=build/sim/w.pc" sim/tests/run.sh w_cost
    tools/pc-hist.py build/sim/w.pc build/fw/sim/firmware.elf [--top 30] [--exclude fn1,fn2]
    tools/pc-hist.py build/sim/w.pc build/fw/sim/firmware.elf --annotate fix_parse   (cycles per instruction word)

Two histograms (--before FILE ELF) print both columns, for a change measured in the same way before and after.
"""
import argparse
import bisect
import os
import subprocess
import sys


def functions(elf):
    nm = os.environ.get("NM", "riscv64-unknown-elf-nm")
    try:
        out = subprocess.run([nm, "-n", elf], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"pc-hist: cannot read the symbols of {elf} with {nm}: {e}")
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    if not syms:
        sys.exit(f"pc-hist: no function symbols in {elf}")
    return syms


def read_hist(hist):
    """The histogram file: {address: cycles}."""
    counts = {}
    try:
        lines = open(hist).read().split("\n")
    except OSError as e:
        sys.exit(f"pc-hist: cannot read {hist}: {e}")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            a, c = line.split()
            counts[int(a, 16)] = int(c)
        except ValueError:
            sys.exit(f"pc-hist: {hist}:{n}: not '<hex address> <count>': {line!r}")
    return counts


def per_function(hist, elf):
    syms = functions(elf)
    addrs = [a for a, _ in syms]
    totals = {}
    for a, c in read_hist(hist).items():
        i = bisect.bisect_right(addrs, a) - 1
        name = syms[i][1] if i >= 0 else "(before the first symbol)"
        totals[name] = totals.get(name, 0) + c
    return totals


def annotate(hist, elf, fn):
    """The disassembly of fn, each instruction with the cycles of the fetch words that begin inside it (a word that
    begins in the middle of a compressed pair counts for the instruction there)."""
    counts = read_hist(hist)
    objdump = os.environ.get("OBJDUMP", "riscv64-unknown-elf-objdump")
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", f"--disassemble={fn}", elf], check=True,
                         capture_output=True, text=True).stdout
    insns = []  # (address, line)
    for line in out.splitlines():
        head = line.strip().split(":", 1)[0]
        try:
            insns.append((int(head, 16), line))
        except ValueError:
            insns.append((None, line))
    total = 0
    for k, (a, line) in enumerate(insns):
        if a is None:
            print(line)
            continue
        nxt = next((b for b, _ in insns[k + 1:] if b is not None), a + 4)
        c = sum(v for w, v in counts.items() if a <= w < nxt)
        total += c
        print(f"{c:9d} {line}")
    print(f"{total:9d} cycles in {fn}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hist")
    ap.add_argument("elf")
    ap.add_argument("--before", nargs=2, metavar=("HIST", "ELF"), help="a run to compare with")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--exclude", default="", help="comma-separated functions left out of the shares (idle loops)")
    ap.add_argument("--annotate", metavar="FUNCTION", help="the function's disassembly with the cycles of each word")
    a = ap.parse_args()
    if a.annotate:
        annotate(a.hist, a.elf, a.annotate)
        return
    excl = {x for x in a.exclude.split(",") if x}
    after = {k: v for k, v in per_function(a.hist, a.elf).items() if k not in excl}
    before = {k: v for k, v in per_function(*a.before).items() if k not in excl} if a.before else None
    total = sum(after.values()) or 1
    names = sorted(set(after) | set(before or {}), key=lambda k: -max(after.get(k, 0), (before or {}).get(k, 0)))
    head = f"{'function':40} {'cycles':>12} {'share':>7}" + (f" {'before':>12} {'change':>8}" if before else "")
    print(head)
    for k in names[: a.top]:
        v = after.get(k, 0)
        row = f"{k[:40]:40} {v:12d} {100.0 * v / total:6.2f}%"
        if before is not None:
            b = before.get(k, 0)
            row += f" {b:12d} {(100.0 * (v - b) / b if b else 0.0):+7.1f}%"
        print(row)
    print(f"{'total':40} {total:12d}" + (f"        {sum(before.values()):12d}" if before else ""))


if __name__ == "__main__":
    main()
