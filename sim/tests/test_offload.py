"""Whole-SoC stop-order offload test: the hardware fires orders on the live FIX session with the QuickFIX/J
exchange (TAP in a private namespace), and the session goes on with consistent numbers. The SoC is driven through
tfctl (sim/tests/soc.py): every step is a typed request, every check an event or a counter.
 1. Four hardware stops are armed: a buy and a sell that the scripted market crosses, a buy on a symbol that never
    trades and a buy far above the market (these two must never fire); each one's stop.loaded event comes.
 2. The hardware fires the two crossed stops (stop.fired, by the hardware); their orders are filled (order.fill of
    the ClOrdID the fire names, 100 at 100.x and 99.x).
 3. The harness drops the next order frame on the wire; a third stop fires, the firmware's TCP retransmits the
    adopted bytes and the exchange receives that order exactly once (filled: cum 200, leaves 0).
 4. Stop 3 (in the hardware, never crossed) is canceled: the offload's counters show only stop 2 loaded and its
    template alone armed, no late cancel. A firmware order after the fires is accepted (order.new; its MsgSeqNum
    and TCP bytes follow on, so the cancel gave the lease back right); the stop table's events show the three
    hardware fires, stop 2 still armed and stop 3 canceled; the offload's counters say the trigger table fired 3
    times and the engine sent 3 orders, none triggered but not sent, no error.
 5. A stop loaded with a MsgSeqNum field of one digit (`offload digits 1`; the session is past 9) fires: the engine
    cannot send it (record not sent, no number taken), firmware sends the stop's order (stop.fired by firmware), it is
    filled, the template and its TCP lease are given back (a firmware order after it is accepted with the numbers
    that follow); then `fix stop` (logout, the connection closed). No event was missed over the run.
Checked on the exchange's own message log: every order from the SoC accepted (no 35=3/35=j, no Reject execution
report), no ResendRequest, no Logout but the SoC's, the SoC's MsgSeqNums without a gap, each ClOrdID once. The
hardware orders' latencies come from the pcap (tools/latency/analyze.py, checked against the stop.fired events):
EOF2SOF exactly 12 cycles for every fire, and T2T exactly 31 for every fire with the market's layout (one message per
segment, trade entry last; a fire in a segment the exchange's kernel joined is counted, its T2T = EOF2SOF + the wire
time after its price) (pinned figures; DESIGN.md's target is EOF2SOF at most 16).
"""
import re
from datetime import datetime, timezone

from soc import OUT, Rig

rig = Rig("offload", root=True)
with rig:
    frames = OUT / "offload.frames"
    net = rig.netns()
    rig.start_exchange("--path", "sim/tests/offload.path", "--loop", "--wait-subscriber")
    tf = rig.start_soc(*net, f"+eth-frame-log={frames}", cycles=4000000000)
    tf.set_utc(datetime.now(timezone.utc))
    tf.session.configure(heartbeat=5)  # the simulator may run slower than wall time: keep the exchange's timers fed
    rig.console("fix start")
    logon = rig.wait("logon", 60, "the logon")
    rig.check("MSFT" in logon["symbols"].split(",") and logon["md_req"] >= 0,
              f"no market data subscription for MSFT at the logon: {logon.data}")

    # 1. hardware stops
    armed = [("buy", "MSFT", 100, "100.10", "100.40"), ("sell", "MSFT", 100, "99.60", "99.30"),
             ("buy", "AAPL", 100, "1.00", "2.00"), ("buy", "MSFT", 100, "150.00", "150.50")]
    for i, (side, sym, qty, stop, limit) in enumerate(armed):
        n = tf.stops.arm(side, sym, qty, stop, limit)
        rig.check(n == i, f"stop {side} {sym} got number {n}, want {i}")
        ev = rig.wait("stop.armed", 10, f"stop {i}'s stop.armed", lambda e: e["stop"] == i)
        rig.check(ev["hw"] is True, f"stop {i} was not armed in the hardware: {ev.data}")
    for i in range(4):
        rig.wait("stop.loaded", 20, f"stop {i} loaded into the hardware", lambda e: e["stop"] == i)

    # 2. the market crosses stops 0 and 1: fired by the hardware, filled
    def fired(i, timeout=60):
        ev = rig.wait("stop.fired", timeout, f"stop {i}'s fire", lambda e: e["stop"] == i)
        rig.check(ev["by_hw"] is True and ev["cycles"] > 0 and ev["clordid"] and ev["msgseq"] > 0,
                  f"stop {i} was not fired by the hardware with a tracked order: {ev.data}")
        return ev

    def filled(fire, what, qty, px_prefix=None, timeout=30):
        ev = rig.wait("order.fill", timeout, what, lambda e: e["clordid"] == fire["clordid"] and e["state"] == "filled",
                      since=fire.seq)
        rig.check(ev["cum"] == qty and ev["leaves"] == 0, f"{what}: {ev.data}")
        if px_prefix:
            rig.check(ev["last_qty"] == qty and ev["last_px"].startswith(px_prefix), f"{what}: {ev.data}")
        return ev
    f0, f1 = fired(0), fired(1)
    filled(f0, "the buy stop's order filled 100 @ 100.x", 100, "100.")
    filled(f1, "the sell stop's order filled 100 @ 99.x", 100, "99.")

    # 3. the next order frame is lost on the wire
    rig.ctl("drop-tx-match 1 35=D")
    n4 = tf.stops.arm("buy", "MSFT", 200, "100.10", "100.40")
    rig.check(n4 == 4, f"the fifth stop got number {n4}")
    rig.wait("stop.loaded", 20, "stop 4 loaded", lambda e: e["stop"] == 4)
    f4 = fired(4)
    # the harness's own report of the drop (its line in the simulation's output, not the console's)
    for _ in range(100):
        if "dropped by drop-tx-match" in rig.sim_log():
            break
        rig.pump(0.1)
    rig.check("dropped by drop-tx-match" in rig.sim_log(), "the harness did not drop the order frame")
    filled(f4, "the retransmitted order filled (cum 200, leaves 0)", 200, timeout=60)

    # 4. stop 3 (loaded in the hardware, never crossed) canceled: the trigger table says it was still armed, so the
    #    engine's template is disarmed and its bytes leave the TCP lease (no lock: the cancel races the fire and the
    #    hardware decides); then a firmware order after the hardware ones, the stop table, the counters, the end
    since = rig.last_seq()
    tf.stops.disarm(3)
    rig.wait("stop.canceled", 10, "stop 3's stop.canceled", lambda e: e["stop"] == 3, since)
    ofl = rig.counters("offload")["offload"]
    rig.check((ofl["loaded"], ofl["armed"], ofl["late_cancels"]) == (1 << 2, 1 << 2, 0),
              f"after the cancel of stop 3: stops loaded 0x{ofl['loaded']:x}, templates armed 0x{ofl['armed']:x}, late "
              f"cancels {ofl['late_cancels']} (want 0x4, 0x4, 0: only stop 2 left in the hardware)")
    k = tf.orders.send("buy", "MSFT", 10, "90.00")
    rig.wait("order.new", 30, "the New of the firmware order after the hardware fires", lambda e: e["order"] == k, since)
    stops = {s["stop"]: s for s in tf.stops.list()}
    hw_fires = sum(s["fires"] for s in stops.values() if s["by_hw"])
    fw_fires = sum(s["fires"] for s in stops.values() if not s["by_hw"])
    rig.check((fw_fires, hw_fires) == (0, 3), f"the stop table shows {fw_fires} firmware and {hw_fires} hardware fires (want 0 and 3)")
    s = stops.get(2, {})
    rig.check(s.get("state") == "armed" and s.get("hw") is True and s.get("fires") == 0, f"stop 2 (AAPL, never traded) is not armed any more: {s}")
    s = stops.get(3, {})
    rig.check(s.get("state") == "canceled" and s.get("fires") == 0, f"stop 3 (above the market) is not canceled: {s}")
    ofl = rig.counters("offload")["offload"]
    rig.check((ofl["table_fires"], ofl["sent"], ofl["not_sent"], ofl["errors"]) == (3, 3, 0, 0),
              f"offload counters: fires of the trigger table {ofl['table_fires']}, sent by hardware {ofl['sent']}, "
              f"triggered but not sent {ofl['not_sent']}, errors {ofl['errors']} (want 3, 3, 0, 0)")

    # 5. a fire the engine cannot send: the next stop's order is loaded with a MsgSeqNum field of one digit (`offload
    #    digits 1`), and the session's number is past 9 by now. The trigger table fires, the engine logs the record
    #    not sent (WIDTH) and takes no number; firmware sends the stop's order itself, and the template and its bytes
    #    of the TCP lease are given back (else every later firmware message's numbers would be off).
    extra = 0  # console orders of this step, each one a MsgSeqNum: until the session's next one is past 9
    while tf.status()["next_out"] < 10:
        since = rig.last_seq()
        k = tf.orders.send("buy", "MSFT", 10, "90.00")
        rig.wait("order.new", 30, "the New of a firmware order", lambda e: e["order"] == k, since)
        extra += 1
    rig.console("offload digits 1")
    n5 = tf.stops.arm("buy", "MSFT", 100, "100.10", "100.40")
    rig.wait("stop.loaded", 20, f"stop {n5} loaded (one-digit MsgSeqNum)", lambda e: e["stop"] == n5)
    f5 = rig.wait("stop.fired", 60, f"stop {n5}'s fire", lambda e: e["stop"] == n5)
    rig.check(f5["by_hw"] is False and f5["clordid"], f"stop {n5}'s order did not go out through firmware: {f5.data}")
    filled(f5, f"stop {n5}'s order, sent by firmware after the engine could not, filled", 100)
    ofl = rig.counters("offload")["offload"]
    rig.check((ofl["loaded"], ofl["armed"], ofl["not_sent"], ofl["errors"]) == (1 << 2, 1 << 2, 1, 1),
              f"after the fire the engine could not send: stops loaded 0x{ofl['loaded']:x}, templates armed "
              f"0x{ofl['armed']:x}, triggered but not sent {ofl['not_sent']}, errors {ofl['errors']} (want 0x4, 0x4, 1, 1)")
    rig.console("offload digits 8")
    k2 = tf.orders.send("buy", "MSFT", 10, "90.00")
    rig.wait("order.new", 30, "the New of a firmware order after it", lambda e: e["order"] == k2, f5.seq)
    extra += 1

    since = rig.last_seq()
    rig.console("fix stop")
    rig.wait("logout", 30, "the Logout answer", since=since)
    rig.wait("disconnected", 30, "the TCP connection's end after the Logout",
             lambda e: e["why"] in ("closed", "reset by the peer") and e["reconnecting"] is False, since)
    info = rig.counters("info")["info"]
    rig.check_events_complete()
    fires = rig.find("stop.fired")
    rig.check(sorted(e["stop"] for e in fires) == sorted([0, 1, 4, n5]),
              f"stop.fired events for stops {[e['stop'] for e in fires]} (want 0, 1, 4, {n5})")

    # the exchange's log
    msgs = rig.check_exchange_log()   # (no Reject, no ResendRequest, the SoC's MsgSeqNums continuous)
    orej = [m for m in msgs if "|35=8|" in m and "|49=EXCH|" in m and "|39=8|" in m]
    rig.check(not orej, f"exchange log: {len(orej)} order(s) rejected")
    lo = [re.search(r"\|49=([A-Z0-9]*)\|", m).group(1) for m in msgs if "|35=5|" in m]
    rig.check(lo == ["TFISH1", "EXCH"], f"exchange log: Logouts {lo} (want the SoC's, then the answer)")
    ids = [re.search(r"\|11=([^|]*)\|", m).group(1) for m in msgs if "|35=D|" in m and "|49=TFISH1|" in m]
    want = 5 + extra  # 3 hardware, step 4's console order, stop 5's and step 5's console orders from firmware
    rig.check(len(ids) == want and len(set(ids)) == want, f"exchange log: {len(ids)} orders with {len(set(ids))} "
              f"ClOrdIDs (want {want} and {want}: 3 hardware, stop 5's and {1 + extra} console orders, each once)")
    rig.check({f0["clordid"], f1["clordid"], f4["clordid"], f5["clordid"]} <= set(ids),
              "exchange log: an order of a stop.fired event is missing")
    nfills = sum(1 for m in msgs if "|35=8|" in m and "|49=EXCH|" in m and "|39=2|" in m)
    rig.check(nfills >= 4, f"exchange log: {nfills} fills (want the 3 hardware orders and stop 5's filled)")

    # latency of the hardware orders from the capture, checked against the stop.fired events
    rig.close()
    # stops are one-shot per arm: stop 4 is a second buy stop at 100.10, armed after stop 1's order went out
    hw, hw_orders, text = rig.hw_latency(frames, [{"symbol": "MSFT", "side": "buy", "stop": "100.10"},
                                                  {"symbol": "MSFT", "side": "sell", "stop": "99.60"},
                                                  {"symbol": "MSFT", "side": "buy", "stop": "100.10", "armed_after": f1["clordid"]}],
                                         [e["clordid"] for e in fires if e["by_hw"]])
    m = re.search(r"(\d+) retransmitted TX segment\(s\) ignored", text)
    retx = int(m.group(1)) if m else 0
    rig.check(retx >= 1, "no TCP retransmission in the capture, but an order frame was dropped")
    e, t, s2 = hw["eof2sof"]["cycles"], hw["t2t"]["cycles"], hw["sof2sof"]["cycles"]
    # every order's trigger (the first crossing trade after its stop was armed) is the one the fire event names
    rig.check(hw["disagrees_with_fire_log"] == 0, f"latency: {hw['disagrees_with_fire_log']} hardware order(s) paired "
              "with another trade than their stop.fired event's")
    # the firmware's order (a console order, no stop) has no trigger; the 3 hardware orders have one
    rig.check(hw["eof2sof"]["count"] == 3, f"latency: {hw['eof2sof']['count']} hardware orders with a trigger in the capture (want 3)")
    # Exact figures, measured at this hardware: a change in the datapath's latency must be a deliberate edit here.
    # EOF2SOF 12 for every fire, whatever the layout (the hardware sends after the frame's end; the DESIGN.md target
    # of at most 16 met; 13 and 32 until the MAC lost the buffer in front of its TX CRC inserter). T2T 31 for every
    # fire whose trade price is 19 cycles before its frame's end: the market's
    # layout, one message per segment with the trade entry last. The exchange's kernel sometimes joins two steps'
    # messages into one segment (Nagle, while an ACK is outstanding: more often on a loaded machine); that fire then
    # waits for the frame's end, T2T = 12 + the wire time after the price, and it is counted, not failed.
    EXPECT_EOF2SOF, EXPECT_T2T, EXPECT_PRICE_TO_EOF = 12, 31, 19
    rig.check(e["min"] == e["max"] == EXPECT_EOF2SOF, f"latency: hardware EOF2SOF {e['min']}..{e['max']} cycles (expected exactly {EXPECT_EOF2SOF})")
    paper = [o for o in hw_orders if o["trigger_eof_cycle"] - o["trigger_byte_cycle"] == EXPECT_PRICE_TO_EOF]
    joined = [o for o in hw_orders if o not in paper]
    rig.check(paper and all(o["t2t_cycles"] == EXPECT_T2T for o in paper),
              f"latency: hardware T2T of the fires with the market's layout {[o['t2t_cycles'] for o in paper]} (expected exactly {EXPECT_T2T} each, at least one)")
    rig.check(all(o["t2t_cycles"] == o["eof2sof_cycles"] + o["trigger_eof_cycle"] - o["trigger_byte_cycle"] for o in joined),
              f"latency: a fire in a joined segment whose T2T is not EOF2SOF + the wire time after its price: {joined}")
    print(f"   | exchange log: {want} orders (3 from hardware, one of them retransmitted by TCP after a drop; {retx} TCP "
          f"retransmission(s) in the capture), {nfills} fills, 0 Rejects, 0 ResendRequests, MsgSeqNums without gaps")
    print(f"   | hardware orders: EOF2SOF {e['min']}..{e['max']} cycles, T2T {t['min']}..{t['max']} ({len(paper)} with the market's "
          f"layout, {len(joined)} in a segment the exchange's kernel joined), SOF2SOF {s2['min']}..{s2['max']} "
          f"(125 MHz Ethernet cycles); stack: {info['stack_used']} of {info['stack_size']} bytes used at most; RAM free {info['ram_free']} bytes")
    rig.ok("offload (3 hardware fires accepted and filled, 2 stops that must not fire did not (one canceled in the hardware), a dropped order frame "
           f"retransmitted once, firmware order after them, stop {n5}'s fire the engine could not send sent by firmware)")
