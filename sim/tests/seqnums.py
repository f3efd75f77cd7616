#!/usr/bin/env python3
"""Checks that one side's MsgSeqNums in a QuickFIX message log are continuous, as FIX requires.

Usage: seqnums.py LOG SENDER  (LOG: a QuickFIX/J messages.log, SOH-separated; SENDER: the SenderCompID (49))

Every number from the first to the last must be used exactly once by an original message (no PossDupFlag),
except that a SequenceReset-GapFill (35=4, 123=Y) with 34=N and NewSeqNo 36=M stands for N..M-1, and a
resent message (43=Y, PossDup) may repeat a number already used. A number that nothing covers is a gap; a
number two original messages use is a duplicate. Prints a one-line summary; exit 1 with the numbers on any
gap or duplicate.
"""
import sys


def fields(msg):
    out = {}
    for f in msg.split("\x01"):
        if "=" in f:
            k, v = f.split("=", 1)
            out.setdefault(k, v)
    return out


def check(lines, sender):
    covered = {}   # number -> how many original messages (or gap fills) stand for it
    resent = 0
    for line in lines:
        i = line.find("8=FIX")
        if i < 0:
            continue
        f = fields(line[i:])
        if f.get("49") != sender or "34" not in f:
            continue
        n = int(f["34"])
        if f.get("35") == "4" and f.get("123") == "Y":
            numbers = range(n, int(f["36"]))
        else:
            numbers = [n]
        if f.get("43") == "Y":      # a resend (or a gap fill sent as one): it may repeat what was sent
            resent += 1
            for k in numbers:
                covered.setdefault(k, 0)
                if covered[k] == 0:
                    covered[k] = 1
            continue
        for k in numbers:
            covered[k] = covered.get(k, 0) + 1
    if not covered:
        return None, "no message from " + sender
    lo, hi = min(covered), max(covered)
    gaps = [k for k in range(lo, hi + 1) if k not in covered]
    dups = sorted(k for k, c in covered.items() if c > 1)
    summary = f"MsgSeqNums {lo}..{hi} from {sender}: {len(gaps)} gap(s), {len(dups)} duplicate(s), {resent} resent/gap-filled"
    ok = not gaps and not dups
    if not ok:
        summary += f"; gaps {gaps[:10]}, duplicates {dups[:10]}"
    return ok, summary


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], errors="replace") as f:
        ok, summary = check(f.read().splitlines(), sys.argv[2])
    print(summary)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
