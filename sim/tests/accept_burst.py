"""Acceptance test of issue 15 ("The hardware owns the wire"), its "Done when" bullet: a whole-SoC test sends a
2,000-W burst through the QuickFIX/J exchange with stops armed: the session stays up, the stops crossed inside
the burst fire once each and are filled, the exchange's log shows no Reject, no ResendRequest, no gap, no Logout
but the final one.

NOT in `make test` (run.sh's default list is test_*) until issue 15's redesign lands; then rename it
test_burst.py. Run it explicitly:  sim/tests/run.sh burst
Issue 15 expected today's design to fail it (a 1,000-W burst killed the session). On the design of commit 49e6e24
(2026-11-25, 2 loaded vCPUs, 15 to 35 minutes a run) it passed twice: 2,000 W acknowledged and digested, the four
stops fired once each (T2T 410 to 1,306 cycles: each waits for the end of its full segment) and filled, no Reject,
ResendRequest, gap or early Logout, the TestRequest after the last W answered 0.78 to 0.85 s (simulated) after the
burst was written, 2.6 to 2.8 s at the boards' clock. The session deaths come from the exchange's wall-clock checks against a SoC simulated about
1,000 times slower than real time: with BURST_STOCK_EXCHANGE=1 they end it (a 200-W burst: "SendingTime accuracy
problem" after two minutes of wall time). What the test does not check, and today's design does not meet: the
issue's measured targets (100,000 W/s at the boards' clock: 2,350 here; 0 RX drops: 11 in 1,000 coalesced W).

 1. The SoC (TAP in a private namespace: the kernel's TCP) logs on (HeartBtInt 30 s) and four one-shot hardware
    stops are armed: buy 100.10, sell 99.90, buy 100.20, sell 99.80 (tools/bench/burst.py STOPS).
 2. The exchange is told `burst 2000 coalesced ...` on its control FIFO (tools/exchange/README.md): 2,000 35=W
    written at once with Nagle on, so the kernel sends full segments; messages 20, 500, 1000 and 1500 trade at
    100.15, 99.85, 100.25 and 99.75, each crossing exactly one stop not yet fired; every other one trades at
    99.99 or 100.01 (bid 99.95, ask 100.05, where the exchange rests liquidity so the orders fill); a TestRequest
    follows message 1000.
 3. Waits until the exchange says every burst byte was acknowledged (BURST ACKED), or the session ended.
Checks (every one is run and reported; the test fails if any fails):
 - session: the exchange wrote all 2,000 and the SoC acknowledged them, the exchange did not log the SoC out,
   the burst's TestRequest was answered, and the console says the session is active after the burst;
 - stops: each of the four fired once (by hardware) and its order was filled (the exchange's FILL lines), and
   analyze.py pairs each order with a burst message that crossed its stop;
 - the exchange's log: no Reject (35=3, 35=j, 39=8), no ResendRequest (35=2) either way, no gap in either side's
   MsgSeqNums (sim/tests/seqnums.py), and the only Logouts are the SoC's final one and its answer.
 - liveness (issue 15: "a burst cannot make the session miss its HeartBtInt"): the TestRequests sent after the
   middle and the last burst message are answered, each within HeartBtInt (30 s) of simulated time at the boards'
   37.5 MHz sys clock (the delay in 125 MHz simulated time x 125 / 37.5: same cycles), from the capture: from the
   burst's first byte on the wire (the exchange wrote the whole burst and its TestRequests then) to the Heartbeat.
The exchange runs with CheckLatency=N and its heartbeat timers 1,000 times longer (as tools/bench/burst.py's): the
SoC's clock, set once from the host, runs in simulated time, 100 to 1,000 times slower than the exchange's wall
clock, so QuickFIX/J's SendingTime check and heartbeat timeout would end the session on the simulator's speed, not
the SoC's. Liveness is judged in simulated time instead (above). BURST_STOCK_EXCHANGE=1 runs the exchange with its
own settings, wall-clock timers and all (BURST_MESSAGES=N sets the burst's size, BURST_WAIT_S the wait for its end).
The SoC is driven through tfctl (sim/tests/soc.py): typed requests, events and the status reply.
"""
import os
import re
import subprocess
import sys
import time
from datetime import datetime, timezone

from soc import OUT, PY, ROOT, Rig, md_problem, md_row

DIGEST = os.environ.get("BURST_DIGEST") == "1"  # sim/tests/test_digest.py: the same burst with digestion on
N = int(os.environ.get("BURST_MESSAGES", "2000"))   # the 2,000 W, digestion on or off
WAIT_S = int(os.environ.get("BURST_WAIT_S", "3000"))
NAME = "digest" if DIGEST else "burst"
rig = Rig(NAME, root=True)
problems = []


def problem(text):
    problems.append(text)
    print(f"   | FAILED CHECK: {text}", flush=True)


with rig:
    if os.environ.get("BURST_STOCK_EXCHANGE"):  # the exchange's own wall-clock timers, to see what they do to a simulation
        cfg = ROOT / "tools/exchange/exchange.cfg"
    else:
        cfg = rig.sim_time_exchange_cfg()
    ctl = rig.control_fifo()
    frames = OUT / f"{NAME}.frames"
    net = rig.netns()
    tf = rig.start_soc(*net, f"+eth-frame-log={frames}", cycles=40000000000)
    rig.start_exchange("--settings", str(cfg), "--control", str(ctl))

    def exch_out():
        return rig.exch_out.read_text(errors="replace")

    tf.set_utc(datetime.now(timezone.utc))
    tf.session.configure(heartbeat=30)
    rig.console("fix start")
    logon = rig.wait("logon", 120, "the logon")
    rig.check("MSFT" in logon["symbols"].split(",") and logon["md_req"] >= 0, f"no market data subscription for MSFT: {logon.data}")

    # 1. four one-shot hardware stops
    tf.stops.mode("hw")
    for i, (side, stop, limit) in enumerate([("buy", "100.10", "100.40"), ("sell", "99.90", "99.60"),
                                             ("buy", "100.20", "100.50"), ("sell", "99.80", "99.50")]):
        n = tf.stops.arm(side, "MSFT", 100, stop, limit)
        rig.check(n == i, f"stop {side} {stop} got number {n}, want {i}")
    for i in range(4):
        rig.wait("stop.loaded", 60, f"stop {i} loaded into the hardware", lambda e: e["stop"] == i)
    if DIGEST:
        rig.console("offload digest on")
        rig.wait("offload.digest", 120, "digestion switched on", lambda e: e["on"])
        dg0 = rig.counters("offload")["digest"]
    md_before = tf.status()["md_msgs"]

    # 2. the burst
    c1, c2, c3, c4 = N // 100, N // 4, N // 2, N * 3 // 4
    # (with digestion on, two levels a side: the hardware's top of book must keep the first, the best)
    rig.exch_ctl(f"burst {N} coalesced symbol=MSFT bid=99.95 ask=100.05 cross={c1}:100.15,{c2}:99.85,{c3}:100.25,{c4}:99.75 testreq={c3},{N}"
                 + (" depth=2" if DIGEST else ""))
    rig.step = f"waiting up to {WAIT_S} s for the exchange's BURST ACKED (or the end of the session)"
    start = time.monotonic()
    end_re = re.compile(r"(?m)^BURST (ACKED|LOST|ABORTED|ERROR)|^LOGOUT TFISH1|^CONTROL ERROR")
    while time.monotonic() - start < WAIT_S:
        if end_re.search(exch_out()):
            break
        rig.check(rig.sim.poll() is None, "the simulation ended during the burst")
        rig.pump(1.0)
    time.sleep(2)
    out = exch_out()
    print(f"   | after {time.monotonic() - start:.0f} s: " + ";".join(re.findall(r"(?m)^(?:BURST (?:SENT|ACKED|LOST|ABORTED|HEARTBEAT)|LOGOUT|CONTROL ERROR).*$", out)))
    if not re.search(rf"(?m)^BURST SENT n={N} ", out):
        problem(f"the exchange did not write all {N} W: {re.findall(r'(?m)^(?:BURST (?:ABORTED|ERROR)|CONTROL ERROR).*$', out)[:1]}")
    if not re.search(rf"(?m)^BURST ACKED n={N} ", out):
        problem(f"the SoC did not acknowledge the burst: {re.findall(r'(?m)^BURST (?:LOST|ABORTED).*$', out)[:1]}")
    if re.search(r"(?m)^LOGOUT TFISH1", out):
        problem("the exchange ended the session during the burst")
    for k in (c3, N):
        if not re.search(rf"(?m)^BURST HEARTBEAT id=BURST-TR-{k} ", out):
            problem(f"the burst's TestRequest after message {k} got no Heartbeat")
    rig.step = "reading the SoC's status after the burst"
    st = tf.status()
    if st["session"] != "active":
        problem(f"the SoC's session after the burst: client {st['client']}, session {st['session']}")
    digested = st["md_msgs"] - md_before
    if DIGEST:
        dg1 = rig.counters("offload")["digest"]
        hw = dg1["hw_msgs"] - dg0["hw_msgs"]
        print(f"   | digestion: {hw} W by the hardware ({dg1['digested'] - dg0['digested']} segments digested, "
              f"{dg1['passed'] - dg0['passed']} passed, {dg1['trimmed'] - dg0['trimmed']} trimmed; undecided heads "
              f"{dg1['held'] - dg0['held']}: {dg1['held_taken'] - dg0['held_taken']} taken by the hardware, "
              f"{dg1['held_fw'] - dg0['held_fw']} firmware's), {digested} by firmware; "
              f"refused by TCP {dg1['skip_refused']}, by the session {dg1['msg_refused']}; syncs {dg1['syncs']}, "
              f"descriptors lost {dg1['fifo_drops']}")
        # A floor, not a figure: firmware parses the W that follow a message of its own in a passed segment (the
        # burst's TestRequests) and the rest of a segment after a descriptor lost; a head cut before its 35=W is
        # undecided and taken by the hardware when it verifies (DESIGN.md). Before that rule about one W in five
        # went to firmware (1,580 of 2,000 taken); with it, 1,992.
        if hw < N * 49 // 50:
            problem(f"the hardware digested {hw} of the {N} W (want at least 98 %)")
        if dg1["skip_refused"] or dg1["msg_refused"]:
            problem(f"TCP refused {dg1['skip_refused']} and the session {dg1['msg_refused']} of digestion's descriptors")
    elif digested < N:
        problem(f"the firmware digested {digested} of the {N} W")
    bad = rig.find("session", lambda e: e["what"] in ("resend_requested", "reject_sent", "disconnecting"))
    if bad:
        problem(f"session events: {[e.data for e in bad[:2]]}")

    # stops: each fired once and was filled
    for i in range(4):
        fired = rig.find("stop.fired", lambda e: e["stop"] == i)
        if len(fired) != 1 or not fired[0]["by_hw"]:
            problem(f"stop {i} fired {len(fired)} times, by hardware: {[e['by_hw'] for e in fired]} (want once, by hardware)")
        cid = fired[0]["clordid"] if fired else ""
        if cid and not re.search(rf"(?m)^FILL MSFT 100 @ .*TFISH1/{re.escape(cid)}( |$)", out):
            problem(f"stop {i}'s order {cid} was not filled")
    rig.console("fix stop")
    rig.step = "waiting for the session to end after fix stop"
    deadline = time.monotonic() + 120
    while tf.status()["client"] != "off" and time.monotonic() < deadline:
        time.sleep(1)
    if tf.status()["client"] != "off":
        problem("the session did not end after fix stop")
    rig.pump()
    gaps = list(rig.tf.gaps)
    if gaps:
        problem(f"events missed (sequence numbers skipped): {gaps}")

    # the exchange's log
    msgs = rig.exchange_msgs()
    if DIGEST:  # `md` from the hardware's top of book: every W of the session counted, the last one's best levels
        row = md_row(tf, "MSFT")
        print(f"   | md after the session: {row}")
        why = md_problem(row, msgs, "MSFT", "hw")
        if why:
            problem(why)
        # every W the exchange sent on this session exactly once: the hardware's and firmware's together
        w_sent = sum(1 for m in msgs if "|35=W|" in m and "|49=EXCH|" in m)
        if dg1["hw_msgs"] + st["md_msgs"] != w_sent:
            problem(f"the hardware digested {dg1['hw_msgs']} W and firmware parsed {st['md_msgs']}: "
                    f"{dg1['hw_msgs'] + st['md_msgs']}, want the {w_sent} the exchange sent")
    rej = [m for m in msgs if re.search(r"\|35=(3|j)\|", m)]
    if rej:
        problem(f"exchange log: {len(rej)} Reject(s): {rej[0][:200]}")
    orej = sum(1 for m in msgs if "|35=8|" in m and "|49=EXCH|" in m and "|39=8|" in m)
    if orej:
        problem(f"exchange log: {orej} order(s) rejected")
    rr = [m for m in msgs if "|35=2|" in m]
    if rr:
        problem(f"exchange log: {len(rr)} ResendRequest(s): {rr[0][:160]}")
    for text in rig.session_log_problems(msgs):
        problem(text)

    # the fires' triggers, from the capture (checked against the stop.fired events)
    rig.close()
    stops_json = OUT / f"{NAME}.stops.json"
    stops_json.write_text('[{"symbol":"MSFT","side":"buy","stop":"100.10"},{"symbol":"MSFT","side":"sell","stop":"99.90"},'
                          '{"symbol":"MSFT","side":"buy","stop":"100.20"},{"symbol":"MSFT","side":"sell","stop":"99.80"}]')
    lat = OUT / f"{NAME}.latency.json"
    r = subprocess.run([PY, str(ROOT / "tools/latency/analyze.py"), "--pcap", str(rig.pcap), "--frames", str(frames),
                        "--stops", str(stops_json), "--events", str(OUT / f"{NAME}.events.jsonl"), "--json", str(lat), "--quiet",
                        "--soc-header", str(ROOT / "build/hw/sim/soc.h")],
                       capture_output=True, text=True)
    (OUT / f"{NAME}.latency.txt").write_text(r.stdout + r.stderr)
    if r.returncode == 0:
        import json
        o = [x for x in json.loads(lat.read_text())["orders"] if x.get("trigger_price") in ("100.15", "99.85", "100.25", "99.75")]
        if len(o) != 4:
            problem(f"analyze.py pairs {len(o)} orders with a crossing burst message (want 4)")
        print("   | fires' T2T (cycles, 125 MHz Ethernet clock): " + (",".join(str(x["t2t_cycles"]) for x in o) or "-"))
    else:
        problem(f"analyze.py failed: {(r.stdout + r.stderr).strip().splitlines()[-2:]}")
    # the delay the exchange sees, in simulated time: the burst was written at once, so each TestRequest was in the
    # exchange's kernel when the burst's first byte went out (tools/bench/burst.py capture_figures)
    sys.path.insert(0, str(ROOT / "tools" / "bench"))
    try:
        import burst  # noqa: E402 (it puts tools/latency on the path)
        import analyze  # noqa: E402
        sent = burst.parse_exchange(out.splitlines())["sent"] or {}
        frs, _ = burst.load_frames(str(rig.pcap), str(frames))
        cap = analyze.Capture(frs, analyze.Warnings())
        f = burst.capture_figures(cap, sent.get("first_seq", -1), sent.get("last_seq", -1), burst.sim_sys_mhz(), written_at_once=True)
        live = {t["id"]: t["exchange_delay_ms"] for t in f["testreqs"]}
    except Exception as e:  # reported as a failed check, like the shell test's
        live = None
        problem(f"could not read the TestRequest delays from the capture: {e}")
    if live is not None:
        shown = []
        for k in (c3, N):
            d = live.get(f"BURST-TR-{k}", "missing")
            if d == "missing":
                problem(f"the TestRequest after message {k} is not in the capture")
            elif d is None:
                problem(f"the TestRequest after message {k} was not answered (capture)")
            else:
                board = d * burst.sim_sys_mhz() / burst.BOARD_MHZ
                shown.append(f"BURST-TR-{k} {d:.3f} {board:.3f}")
                if board > 30000:
                    problem(f"the TestRequest after message {k} waited {board:.3f} ms at the boards' clock: more than HeartBtInt 30 s")
        print("   | TestRequest written -> Heartbeat, simulated (ms at 125 MHz, ms at the boards' 37.5 MHz): " + ";".join(shown))
    print(f"   | the firmware digested {digested} of {N} W; disconnections: {[e.data for e in rig.find('disconnected')][:2]}")
    if problems:
        print(f"FAIL {NAME}: {len(problems)} check(s) failed: {problems[0]}")
        sys.exit(1)
    rig.ok(f"{NAME} ({N} W through the exchange with four hardware stops armed{', digestion on' if DIGEST else ''}: session kept, "
           "each stop fired once and filled, no Reject, ResendRequest, gap or early Logout)")
