#!/usr/bin/env python3
"""Fills in BodyLength (9) and CheckSum (10) in FIX messages written with '|' for SOH, as the FIX
specification defines them, for writing test cases by hand (fw/tests/fix_session_cases.txt).

Reads a case file on stdin and writes it to stdout with, in every `in`/`out` line's message:
  9=?   -> the number of bytes after "9=n|" up to and including the SOH before the last "10=" field
  10=?  -> the sum of every byte before the last "10=" field, modulo 256, as three digits
  10=+  -> that checksum plus one (a deliberately wrong CheckSum)
Values written as digits are left as they are (a deliberately wrong BodyLength stays wrong).
It shares no code with the firmware's codec: it is the independent side of the comparison."""
import re
import sys


def fill(msg: str) -> str:
    last = msg.rfind("|10=")
    if last < 0:
        return msg
    head = msg[: last + 1]
    m = re.match(r"(8=[^|]*\|9=)\?\|", head)
    if m:
        body = head[m.end():]
        head = f"{m.group(1)}{len(body.encode())}|{body}"
    total = sum(head.replace("|", "\x01").encode()) % 256
    tail = msg[last + 1:]
    if tail == "10=?|":
        tail = f"10={total:03d}|"
    elif tail == "10=+|":
        tail = f"10={(total + 1) % 256:03d}|"
    return head + tail


for line in sys.stdin:
    m = re.match(r"^(in \d+ |out )(.*?)(\n?)$", line)
    sys.stdout.write(m.group(1) + fill(m.group(2)) + m.group(3) if m else line)
