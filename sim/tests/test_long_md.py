"""Whole-SoC test of market data longer than the firmware's receive buffer (FIX_MAX_MSG_LEN, 1,024 bytes): a full-depth
35=W snapshot from the QuickFIX/J exchange. Before, the framer dropped such a message as garbled; the exchange's next
message then looked like a gap, the firmware asked for a resend, the exchange resent the same long message, and
the session stalled there. Now the firmware keeps the message's first 1,024 bytes, sums and skips the rest, checks
its CheckSum, and answers it with a Reject (373=99, 58 saying why); its MsgSeqNum is counted.

 1. The SoC (TAP in a private namespace: the kernel's TCP) logs on.
 2. The exchange's control FIFO (tools/exchange/README.md) sends 3 W of 20 bid and 20 offer levels (about 1,300
    bytes each) one per TCP segment, then 3 more written at once with Nagle on, so that the kernel cuts them
    across segments anywhere, then 2 ordinary W. A TestRequest follows the last message of each burst.
Checks:
 - the SoC answered each long W with one Reject that names it (45 = its MsgSeqNum, 372=W, 373=99, the text), and
   nothing else: no ResendRequest, no Logout, no gap in either side's MsgSeqNums (the exchange's message log);
 - every TestRequest was answered; the session is active at the end; the firmware took every W that is not long
   (the subscription's, the market maker's quotes and the two ordinary ones), and none of the long ones;
 - the console said why for each (`fix: rejected a message (reason 99: Message longer than 1024 bytes: not
   processed)`), and the session events hold no resend request or disconnection.
With LONG_MD_DIGEST=1 (sim/tests/test_long_md_digest.py) digestion is on: the hardware takes a long W of the session
whole (its BodyLength has 4 digits), and firmware gives up what it kept of one whose owner was undecided (a head it
held; the counts are printed). Then every W the exchange sent is taken exactly once, by the hardware or by firmware, and a long one that
firmware took is answered with the Reject; at least the three sent one per segment are the hardware's; no
ResendRequest, gap or early Logout; `md` (the hardware's top of book) counts every W and shows the last one's prices.
"""
import os
import re
import sys
import time
from datetime import datetime, timezone

from soc import Rig, md_problem, md_row

TEXT = "Message longer than 1024 bytes: not processed"
DIGEST = os.environ.get("LONG_MD_DIGEST") == "1"
rig = Rig("long-md-digest" if DIGEST else "long-md", root=True)
problems = []


def problem(text):
    problems.append(text)
    print(f"   | FAILED CHECK: {text}", flush=True)


with rig:
    cfg = rig.sim_time_exchange_cfg()  # (the SoC's clock runs in simulated time: sim/tests/soc.py)
    ctl = rig.control_fifo()
    net = rig.netns()
    tf = rig.start_soc(*net, cycles=20000000000)
    rig.start_exchange("--settings", str(cfg), "--control", str(ctl))

    def burst(n, shape, extra, what):
        before = len(re.findall(r"(?m)^BURST (ACKED|LOST|ABORTED|ERROR)", rig.exch_out.read_text(errors="replace")))
        rig.exch_ctl(f"burst {n} {shape} symbol=MSFT testreq={n} {extra}".strip())
        rig.step = f"waiting for the exchange's BURST ACKED after {what}"
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            out = rig.exch_out.read_text(errors="replace")
            ends = re.findall(r"(?m)^BURST (ACKED|LOST|ABORTED|ERROR).*$", out)
            if len(ends) > before or re.search(r"(?m)^LOGOUT TFISH1|^CONTROL ERROR", out):
                break
            rig.check(rig.sim.poll() is None, f"the simulation ended during {what}")
            rig.pump(1.0)
        out = rig.exch_out.read_text(errors="replace")
        ends = re.findall(r"(?m)^BURST (?:ACKED|LOST|ABORTED|ERROR).*$", out)
        if len(ends) <= before or not ends[-1].startswith(f"BURST ACKED n={n} "):
            problem(f"{what}: the SoC did not acknowledge it: {ends[before:] or 'no end line'}")
        if len(re.findall(rf"(?m)^BURST HEARTBEAT id=BURST-TR-{n} ", out)) < 1:
            problem(f"{what}: its TestRequest got no Heartbeat")

    tf.set_utc(datetime.now(timezone.utc))
    tf.session.configure(heartbeat=30)
    rig.console("fix start")
    logon = rig.wait("logon", 120, "the logon")
    rig.check("MSFT" in logon["symbols"].split(",") and logon["md_req"] >= 0, f"no market data subscription for MSFT: {logon.data}")
    if DIGEST:
        rig.console("offload digest on")
        rig.wait("offload.digest", 120, "digestion switched on", lambda e: e["on"])

    # 2. long W one per segment, long W cut anywhere, then ordinary W
    burst(3, "segment", "depth=20", "3 long W, one per segment")
    burst(3, "coalesced", "depth=20", "3 long W written at once")
    burst(2, "segment", "", "2 ordinary W")
    time.sleep(2)
    rig.pump()

    st = tf.status()
    if st["session"] != "active":
        problem(f"the session at the end: client {st['client']}, session {st['session']}")
    rej = rig.find("session", lambda e: e["what"] == "reject_sent")
    # (with digestion, the count is the long W firmware took: checked against the exchange's log below)
    if (not DIGEST and len(rej) != 6) or any(e["arg"] != 99 or e["text"] != TEXT for e in rej):
        problem(f"session events: {len(rej)} reject_sent (want {'as many as the log shows' if DIGEST else 6}, reason 99, "
                f"'{TEXT}'): {[e.data for e in rej[:2]]}")
    bad = rig.find("session", lambda e: e["what"] in ("resend_requested", "disconnecting", "garbled"))
    if bad:
        problem(f"session events: {[e.data for e in bad[:2]]}")
    said = rig.sim_log().count(f"fix: rejected a message (reason 99: {TEXT})")
    want_said = len(rej) if DIGEST else 6   # (one line per Reject sent)
    if said != want_said:
        problem(f"the console said 'fix: rejected a message (reason 99: {TEXT})' {said} times, want {want_said}")
    dg = rig.counters("offload")["digest"] if DIGEST else {}   # (this connection's)
    hw = dg.get("hw_msgs", 0)

    rig.console("fix stop")
    rig.step = "waiting for the session to end after fix stop"
    deadline = time.monotonic() + 120
    while tf.status()["client"] != "off" and time.monotonic() < deadline:
        time.sleep(1)
    rig.pump()
    row = md_row(tf, "MSFT")   # (no market data after the session's end)

    # the exchange's log: each long W answered by one Reject naming it, nothing else
    msgs = rig.exchange_msgs()
    long_w = [m for m in msgs if "|35=W|" in m and "|49=EXCH|" in m and m.count("|269=") > 40]
    seqs = [re.search(r"\|34=(\d+)\|", m).group(1) for m in long_w]
    if len(long_w) != 6:
        problem(f"exchange log: {len(long_w)} W of more than 40 entries (want 6)")
    short_w = [m for m in msgs if "|35=W|" in m and "|49=EXCH|" in m and m.count("|269=") <= 40]
    if DIGEST:
        # every W once: the hardware's, firmware's parsed, firmware's long ones answered
        if hw + st["md_msgs"] + len(rej) != len(long_w) + len(short_w):
            problem(f"the hardware took {hw} W, firmware parsed {st['md_msgs']} and rejected {len(rej)} long ones: "
                    f"{hw + st['md_msgs'] + len(rej)}, the exchange sent {len(long_w) + len(short_w)}")
        if len(rej) > 3:
            problem(f"firmware took {len(rej)} of the long W; the 3 sent one per segment must be the hardware's")
        why = md_problem(row, msgs, "MSFT", "hw")
        if why:
            problem(why)
    elif st["md_msgs"] != len(short_w) or len(short_w) < 2:
        problem(f"the firmware took {st['md_msgs']} W; the exchange sent {len(short_w)} that are not long (want them all, "
                "at least the 2 ordinary ones of the last burst)")
    sizes = [len(m) for m in long_w]
    if sizes and min(sizes) <= 1024:
        problem(f"exchange log: a long W of {min(sizes)} bytes, not longer than 1,024")
    ours = [m for m in msgs if "|49=TFISH1|" in m]
    rejects = [m for m in ours if "|35=3|" in m]
    refs = [re.search(r"\|45=(\d+)\|", m).group(1) for m in rejects if re.search(r"\|45=(\d+)\|", m)]
    if DIGEST and not set(refs) <= set(seqs):
        problem(f"exchange log: the SoC's Rejects refer to {refs}, not all of them long W ({seqs})")
    elif not DIGEST and sorted(refs, key=int) != sorted(seqs, key=int):
        problem(f"exchange log: the SoC's Rejects refer to {refs}, the long W were {seqs}")
    for m in rejects:
        if not ("|372=W|" in m and "|373=99|" in m and f"|58={TEXT}|" in m):
            problem(f"exchange log: a Reject without 372=W, 373=99 and the text: {m[:200]}")
            break
    for what, pat in (("ResendRequest", "|35=2|"), ("business reject", "|35=j|")):
        found = [m for m in ours if pat in m]
        if found:
            problem(f"exchange log: the SoC sent {len(found)} {what}(s): {found[0][:160]}")
    theirs_rej = [m for m in msgs if "|49=EXCH|" in m and "|35=3|" in m]
    if theirs_rej:
        problem(f"exchange log: the exchange rejected {len(theirs_rej)} message(s): {theirs_rej[0][:200]}")
    for text in rig.session_log_problems(msgs):
        problem(text)
    gaps = list(rig.tf.gaps)
    if gaps:
        problem(f"events missed (sequence numbers skipped): {gaps}")
    print(f"   | long W: {len(long_w)} of {min(sizes) if sizes else 0} to {max(sizes) if sizes else 0} bytes, MsgSeqNums "
          f"{','.join(seqs)}; the SoC's Rejects refer to {','.join(refs)}"
          + (f"; the hardware took {hw} W (segments digested {dg['digested']}, passed {dg['passed']}; undecided heads "
             f"{dg['held']}: {dg['held_taken']} taken by the hardware), firmware parsed {st['md_msgs']}; md {row}" if DIGEST else ""))
    if problems:
        print(f"FAIL {rig.name}: {len(problems)} check(s) failed: {problems[0]}")
        sys.exit(1)
    if DIGEST:
        rig.ok(f"long-md-digest (6 W of about 1,300 bytes with digestion on: {6 - len(rej)} taken whole by the hardware, "
               f"{len(rej)} by firmware and answered by a Reject, every W once, md from the hardware's top of book, "
               "no ResendRequest or gap, the session kept)")
    else:
        rig.ok("long-md (6 W of about 1,300 bytes, one per segment and cut across segments: each answered by a Reject "
               "naming it, its MsgSeqNum counted, no ResendRequest or gap, TestRequests answered, the session kept)")
