"""Whole-SoC measurement of the firmware's 35=W receive path, in sys clock cycles (cycle-accurate: the SoC's cycle
counter read by the firmware). The QuickFIX/J exchange sends 60 steps of market data, each one 35=W with bid, offer
and trade (about 180 bytes), one per TCP segment (--step-sync); the firmware times each one from the cycle it takes
the frame's receive slot (netif_poll) to the entry of its market data callback and keeps count / min / avg / max and
a histogram, which the `fix` command's counters events (w_cost, w_cost_170_190) carry through tfctl
(sim/tests/soc.py). This test checks that the figure is there and consistent with what the exchange sent, and
prints it. W_COST_MAX=<cycles> also fails the test when the average for the 170-190-byte W is above it (the target
of issue 15 is 4500).
"""
import os
import time
from collections import Counter
from datetime import datetime, timezone

from soc import Rig

STEPS = 60
rig = Rig("w-cost", root=True)
with rig:
    net = rig.netns()
    rig.start_exchange("--path", "sim/tests/w_cost.path", "--wait-subscriber", "--step-sync")
    tf = rig.start_soc(*net, cycles=4000000000)
    tf.set_utc(datetime.now(timezone.utc))
    tf.session.configure(heartbeat=30)
    rig.console("fix start")
    logon = rig.wait("logon", 60, "the logon")
    rig.check("MSFT" in logon["symbols"].split(",") and logon["md_req"] >= 0,
              f"no market data subscription for MSFT at the logon: {logon.data}")
    # The path is done when the exchange has sent its last step's TestRequest and the SoC answered it.
    rig.step = f"waiting for the {STEPS} steps of market data"
    for _ in range(1200):
        if sum(1 for m in rig.exchange_msgs() if "|35=0|" in m and "|49=TFISH1|" in m and "|112=STEP-" in m) >= STEPS:
            break
        time.sleep(0.5)
    msgs = rig.exchange_msgs()
    ws = [m for m in msgs if "|35=W|" in m and "|49=EXCH|" in m]
    rig.check(len(ws) > STEPS, f"the exchange sent {len(ws)} 35=W, want more than {STEPS} (the snapshot and the steps)")
    # FIX message lengths of the W sent (the log line without its timestamp prefix), for the report
    lens = ", ".join(f"{n} x {k} B" for k, n in sorted(Counter(len(m.split(" ", 1)[-1]) for m in ws).items()))
    c = rig.counters("fix")
    w, w180 = c["w_cost"], c["w_cost_170_190"]
    n, mn, avg, mx = w180["count"], w180["min"], w180["avg"], w180["max"]
    rig.check(n > 0, "no 35=W cost for 170-190-byte messages in the fix counters")
    # Each measured W is one the exchange sent: at most as many as it sent, and most of the steps (a step whose W
    # shared a segment with another message is not measured).
    rig.check(n <= len(ws), f"{n} 35=W measured, more than the {len(ws)} the exchange sent")
    rig.check(n >= STEPS * 3 // 4, f"only {n} of the {STEPS} steps' 35=W were measured")
    rig.check(n <= w["count"], f"{n} 35=W of 170-190 bytes measured, but {w['count']} of all sizes")
    # A cycle per byte is a floor no receive path can beat (the frame is copied out of the MAC's slot at least once).
    rig.check(180 <= mn <= avg <= mx, f"inconsistent figures: min {mn} / avg {avg} / max {mx} over {n}")
    limit = os.environ.get("W_COST_MAX")
    if limit and avg > int(limit):
        rig.fail(f"average {avg} cycles per 170-190-byte 35=W, above W_COST_MAX={limit}")
    info = rig.counters("info")["info"]
    rig.check_events_complete()
    print(f"   | exchange sent {len(ws)} 35=W: {lens}")
    print(f"   | firmware, every 35=W alone in its frame: min {w['min']} / avg {w['avg']} / max {w['max']} cycles over {w['count']}")
    print(f"   | firmware, 35=W of 170-190 bytes: min {mn} / avg {avg} / max {mx} cycles over {n}")
    print(f"   | stack: {info['stack_used']} of {info['stack_size']} bytes used at most; RAM free {info['ram_free']} bytes")
    if "prof" in c:  # a firmware built with -DTF_PROF (FW=build/fw/prof/firmware): the last W's marks (fw/lib/prof.h)
        print("   | marks of the last 35=W (fw/lib/prof.h):", " ".join(str(c["prof"][f"m{i}"]) for i in range(8)))
    rig.ok(f"w-cost ({n} 35=W of 170-190 bytes, receive slot to callback: min {mn} / avg {avg} / max {mx} cycles)")
