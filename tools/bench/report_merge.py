"""Puts one bench phase's figures into an existing report (report.json's key, report.md's section), creating either
file when there is none: what `bench.py --burst-only`, `--soak-only` and `--fuzz-only` do."""
import json
import os


def merge(out_dir, key, value, merge_md):
    """report.json[key] = value; report.md becomes merge_md(its text) (a new report's heading if there is none).
    Returns the report."""
    try:
        with open(os.path.join(out_dir, "report.json")) as f:
            report = json.load(f)
    except (OSError, ValueError):
        report = {}
    report[key] = value
    with open(os.path.join(out_dir, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    try:
        with open(os.path.join(out_dir, "report.md")) as f:
            text = f.read()
    except OSError:
        text = "# Triggerfish benchmark report\n"
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write(merge_md(text))
    return report
