#!/usr/bin/env python3
"""The fuzzing phase of `make bench` (issue 19): every firmware fuzzer (fw/fuzz, libFuzzer + ASan/UBSan) run for
longer than `make test` does, its figures into report["fuzz"] and a section of report.md.

fw/fuzz/run.sh does the running (the same runner as the test suite) and writes fuzz.json: per fuzzer executions,
exec/s, coverage (cov: edges, ft: features), corpus size, crashes and the saved input of a failure. A crash is a
figure of the report (and the phase says so), not an error of the benchmark.

Usage: tools/bench/fuzz.py [--minutes 5] [--out build/bench/fuzz] [NAME...]"""
import argparse
import json
import os
import subprocess
import sys

import report_merge  # a phase's figures into an existing report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADING = "## Fuzzing"


def run(minutes, out, names=()):
    """Runs the fuzzers for `minutes` each into out (out/<name>/: working corpus, log, any crashing input);
    returns the figures (load(out)). The runner's exit status is not an error here: crashes are counted."""
    os.makedirs(out, exist_ok=True)
    cmd = [os.path.join(ROOT, "fw/fuzz/run.sh"), "-t", str(int(minutes * 60)), "-o", out,
           "-j", os.path.join(out, "fuzz.json")] + list(names)
    print("== " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT)
    f = load(out)
    if f is None:
        raise SystemExit(f"bench: the fuzzing phase wrote no {os.path.join(out, 'fuzz.json')}")
    return f


def load(out):
    """fuzz.json of a run in out, with totals added; None when there is none."""
    try:
        with open(os.path.join(out, "fuzz.json")) as f:
            f = json.load(f)
    except (OSError, ValueError):
        return None
    fz = f.get("fuzzers", {})
    f["executions"] = sum(v["executions"] for v in fz.values())
    f["crashes"] = sum(v["crashes"] for v in fz.values())
    return f


def md(f):
    """report.md's section of the fuzzing phase."""
    lines = ["", HEADING, "",
             f"Each fuzzer of fw/fuzz (libFuzzer with ASan and UBSan, fw/fuzz/README.md) for {f['seconds_each']} s, from "
             "its seeds and regression inputs; cov is libFuzzer's count of covered edges, ft its features.", "",
             "| fuzzer | executions | exec/s | cov | ft | corpus | crashes |", "|---|---|---|---|---|---|---|"]
    for name, v in f["fuzzers"].items():
        lines.append(f"| {name} | {v['executions']} | {v['exec_per_s']} | {v['cov']} | {v['ft']} | {v['corpus']} | "
                     f"{v['crashes']}{' (' + v['failure'] + ', input ' + v['input'] + ')' if v['crashes'] else ''} |")
    lines += ["", f"{f['executions']} executions in all, {f['crashes']} crash(es)."]
    return lines


def merge_md(text, section):
    """report.md's text with its fuzzing section (HEADING up to the next "## ") replaced by section, or appended."""
    return report_merge.replace_section(text, HEADING, section)


def merge_report(out_dir, f):
    """Puts the figures into out_dir's report.json (report["fuzz"]) and report.md (new ones if there are none)."""
    report_merge.merge(out_dir, "fuzz", f, lambda text: merge_md(text, md(f)))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=5, help="minutes per fuzzer")
    ap.add_argument("--out", default=os.path.join(ROOT, "build/bench/fuzz"), help="where the runs go")
    ap.add_argument("names", nargs="*", help="fuzzers (default all)")
    args = ap.parse_args(argv)
    f = run(args.minutes, os.path.abspath(args.out), args.names)
    print("\n".join(md(f)))
    return 1 if f["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
