"""Puts one bench phase's figures into an existing report (report.json's key, report.md's section), creating either
file when there is none: what `bench.py --burst-only`, `--soak-only`, `--fuzz-only` and `--risk-only` do."""
import json
import os


def replace_section(text, heading, section):
    """report.md's text with its section `heading` (from that line to the next "## " heading) replaced by section
    (lines), or section appended when there was none."""
    lines = text.split("\n") if text else []
    start = next((i for i, l in enumerate(lines) if l.startswith(heading)), None)
    sec = list(section)
    while sec and not sec[0].strip():
        sec.pop(0)
    if start is None:
        while lines and not lines[-1].strip():
            lines.pop()
        return "\n".join(lines + ([""] if lines else []) + sec) + "\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    tail = lines[end:]
    body = lines[:start] + sec
    if tail:
        while body and not body[-1].strip():
            body.pop()
        body += [""] + tail
    return "\n".join(body).rstrip("\n") + "\n"


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
