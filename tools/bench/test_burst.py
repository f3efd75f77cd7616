"""Tests for tools/bench/burst.py: the burst phase's parsing and figures.

- where the stops cross (cross_points, STOPS / CROSSES checked with the stops' own rule), the exchange's command;
- the exchange's stdout (BURST lines as tools/exchange's Burst.java prints them) and the console's counters (lines as
  fw/app/fixclient.c, fw/app/netif.c and fw/app/offload.c print them);
- the capture: synthetic pcap + frame log (tools/latency/test_analyze.py's builders, cycles chosen here): segments,
  W per segment, the SoC's ACKs, the digestion time, TestRequest -> Heartbeat delays;
- the rates, the fires inside the burst, the session verdict and report.md's section.

Run from the repository root:  python3 -m unittest tools/bench/test_burst.py
"""
import os
import shutil
import sys
import tempfile
import unittest
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "latency"))
import burst  # noqa: E402
import analyze  # noqa: E402
import test_analyze as ta  # noqa: E402  (capture builders)


class TestPlan(unittest.TestCase):
    def test_cross_points_of_10000(self):
        self.assertEqual(burst.cross_points(10000), [100, 2500, 5000, 7500])

    def test_cross_points_of_2000(self):
        self.assertEqual(burst.cross_points(2000), [20, 500, 1000, 1500])

    def test_cross_points_small_bursts_stay_inside_and_increasing(self):
        self.assertEqual(burst.cross_points(1), [1])
        self.assertEqual(burst.cross_points(3), [1, 2, 3])
        self.assertEqual(burst.cross_points(4), [1, 2, 3, 4])

    def test_each_crossing_fires_exactly_its_own_stop(self):
        # one-shot stops: a buy stop fires at trade >= stop, a sell stop at trade <= stop (fw/app/stops.c)
        fired = set()
        for i, px in enumerate(burst.CROSSES):
            p = Decimal(px)
            now = {j for j, (side, stop, _) in enumerate(burst.STOPS) if j not in fired and
                   (p >= Decimal(stop) if side == "buy" else p <= Decimal(stop))}
            self.assertEqual(now, {i}, f"crossing {px}")
            fired |= now

    def test_other_prices_cross_nothing(self):
        # the burst's ordinary trades and the fills at the rested quotes
        for px in ("99.99", "100.01", "99.95", "100.05"):
            p = Decimal(px)
            for side, stop, _ in burst.STOPS:
                self.assertFalse(p >= Decimal(stop) if side == "buy" else p <= Decimal(stop), (px, stop))

    def test_limits_cross_the_rested_quotes(self):
        for side, _, limit in burst.STOPS:
            self.assertTrue(Decimal(limit) >= Decimal("100.05") if side == "buy" else Decimal(limit) <= Decimal("99.95"))

    def test_command(self):
        self.assertEqual(burst.burst_command(10000, "segment", 0),
                         "burst 10000 segment symbol=MSFT bid=99.95 ask=100.05 "
                         "cross=100:100.15,2500:99.85,5000:100.25,7500:99.75 testreq=5000,10000 inflight=0")
        self.assertEqual(burst.burst_command(2000, "coalesced"),
                         "burst 2000 coalesced symbol=MSFT bid=99.95 ask=100.05 "
                         "cross=20:100.15,500:99.85,1000:100.25,1500:99.75 testreq=1000,2000")


EXCHANGE_OUT = """EXCHANGE symbols=MSFT
EXCHANGE READY port=9876
LOGON TFISH1 (FIX.4.4:EXCH->TFISH1)
MD SUBSCRIBE TFISH1 reqId=MD1 [MSFT]
CONTROL burst 200 coalesced symbol=MSFT
BURST START n=200 shape=coalesced symbol=MSFT session=TFISH1 local_port=9876 remote_port=49152 inflight=0 nodelay_before=true
BURST CROSS index=2 seq=6 px=100.15
ORDER TFISH1/TTP2FX1-1 buy 100 MSFT @ 100.40 -> 3
FILL MSFT 100 @ 100.05 buyer=TFISH1/TTP2FX1-1 seller=MM/MM2
BURST CROSS index=50 seq=55 px=99.85
FILL MSFT 100 @ 99.95 buyer=MM/MM1 seller=TFISH1/TTP2FX1-2
BURST TESTREQ id=BURST-TR-100 after=100 seq=106
BURST SENT n=200 first_seq=5 last_seq=206 wall_ms=41
BURST HEARTBEAT id=BURST-TR-100 delay_ms=5210
LOGOUT TFISH1
BURST LOST n=200 wall_ms=61234 reason=session_logged_out
"""


class TestExchange(unittest.TestCase):
    def test_parse(self):
        r = burst.parse_exchange(EXCHANGE_OUT.splitlines())
        self.assertEqual(r["start"]["n"], 200)
        self.assertEqual(r["start"]["shape"], "coalesced")
        self.assertEqual(r["crosses"], [{"index": 2, "seq": 6, "px": "100.15"}, {"index": 50, "seq": 55, "px": "99.85"}])
        self.assertEqual(r["testreqs"], [{"id": "BURST-TR-100", "after": 100, "seq": 106}])
        self.assertEqual(r["heartbeats"], {"BURST-TR-100": 5210})
        self.assertEqual(r["end"], "sent")
        self.assertEqual((r["sent"]["first_seq"], r["sent"]["last_seq"]), (5, 206))
        self.assertEqual(r["drain"], "lost")
        self.assertEqual(r["drain_info"]["reason"], "session_logged_out")
        self.assertEqual(r["logouts"], 1)
        self.assertEqual(r["fills"], {"TTP2FX1-1": ["100.05"], "TTP2FX1-2": ["99.95"]})

    def test_logon_before_the_burst_is_no_logout(self):
        r = burst.parse_exchange(["LOGOUT TFISH1", "LOGON TFISH1", "BURST START n=1 shape=segment",
                                  "BURST SENT n=1 first_seq=3 last_seq=3 wall_ms=0", "BURST ACKED n=1 wall_ms=9"])
        self.assertEqual(r["logouts"], 0)
        self.assertEqual(r["drain"], "acked")

    def test_aborted(self):
        r = burst.parse_exchange(["BURST START n=10 shape=segment",
                                  "BURST ABORTED sent=4 first_seq=3 last_seq=6 wall_ms=100 reason=session_logged_out"])
        self.assertEqual(r["end"], "aborted")
        self.assertEqual(r["sent"]["sent"], 4)


CONSOLE_BEFORE = """fix: client online, session active, next out 3, next in 4
fix: TCP ESTABLISHED local port 49152, rto 200 ms, unacked 0 bytes
fix: connects 1, logons 1, disconnects 0, market data 2, execution reports 0
offload rx: segments 5 (in order 5, out of order 0, bad 0, ignored 0)
offload rx: 35=W parsed by hardware 2, by firmware 2; FIX errors 0, fires 0
mac: rx_frames 20 rx_bytes 3000 crc_errors 0 runts 0 oversize 0 rx_drops_full 0
mac: tx_frames 15 tx_bytes 2000 tx_errors 0 rx_too_long 0
net: eth_rx               20
net: tcp_out_of_order     0
offload: orders sent by hardware 0, triggered but not sent 0, errors 0, late cancels 0
offload: this connection's fires of the trigger table 0: sent 0, logged not sent 0, ignored 0, template not armed 0, log full 0, fire queue full 0
"""
CONSOLE_AFTER = """tf> fix: client online, session active, next out 5, next in 220
fix: connects 1, logons 1, disconnects 0, market data 198, execution reports 4
offload rx: 35=W parsed by hardware 202, by firmware 198; FIX errors 0, fires 2
mac: rx_frames 80 rx_bytes 33000 crc_errors 0 runts 0 oversize 0 rx_drops_full 7
net: tcp_out_of_order     5
offload: orders sent by hardware 2, triggered but not sent 1, errors 0, late cancels 1
offload: this connection's fires of the trigger table 4: sent 2, logged not sent 1, ignored 0, template not armed 0, log full 0, fire queue full 1
"""


class TestConsole(unittest.TestCase):
    def test_counters(self):
        b = burst.parse_counters(CONSOLE_BEFORE.splitlines())
        a = burst.parse_counters(CONSOLE_AFTER.splitlines())
        self.assertEqual(b["session"], "active")
        self.assertEqual(a["next_in"], 220)
        self.assertEqual(burst.counter_delta(b, a, "md_msgs"), 196)
        self.assertEqual(burst.counter_delta(b, a, "hw_w_msgs"), 200)
        self.assertEqual(burst.counter_delta(b, a, "rx_drops_full"), 7)
        self.assertEqual(burst.counter_delta(b, a, "tcp_out_of_order"), 5)
        self.assertEqual((a["hw_orders"], a["hw_not_sent"], a["hw_errors"], a["hw_late_cancels"]), (2, 1, 0, 1))
        self.assertEqual(burst.counter_delta(b, a, "table_fires"), 4)
        self.assertEqual((a["table_fires_sent"], a["table_fires_logged_not_sent"], a["table_fires_ignored"],
                          a["table_fires_not_armed"], a["table_fires_log_drops"], a["table_fires_rx_overflow"]),
                         (2, 1, 0, 0, 0, 1))
        self.assertIsNone(burst.counter_delta(b, a, "no_such"))
        # the line of the firmware of the lock ("..., locks N") is not today's: no late cancels, no figure
        e = burst.parse_counters(["offload: orders sent by hardware 4, triggered but not sent 0, errors 0, locks 3"])
        self.assertNotIn("hw_orders", e)
        w = burst.parse_counters(["fix: client waiting to reconnect, session disconnected, next out 9, next in 300"])
        self.assertEqual((w["client"], w["session"], w["next_in"]), ("waiting to reconnect", "disconnected", 300))

    def test_the_firmwares_digestion_line_parses(self):
        """`offload`'s digestion line as fw/app/digestion.c's printf format makes it, filled with distinct numbers."""
        import re
        import test_bench
        fmts = [f for f in test_bench.fw_printf_formats(os.path.join(HERE, "..", "..", "fw", "app", "digestion.c"))
                if f.startswith("offload: digestion %s%s%s")]
        self.assertEqual(len(fmts), 1, fmts)
        strs = iter(["on", "", ", synchronised"])
        nums = iter(range(101, 200))
        line = re.sub(r"%l?[uds]", lambda m: next(strs) if m.group(0) == "%s" else str(next(nums)), fmts[0])
        c = burst.parse_counters([line])
        self.assertEqual(c["digest"], "on")
        self.assertEqual([c[k] for k in ("dg_segments", "dg_passed", "dg_trimmed", "dg_hw_msgs", "dg_bytes", "dg_garbled",
                                         "dg_held", "dg_held_taken", "dg_held_fw", "dg_skip_refused", "dg_msg_refused",
                                         "dg_fifo_drops")],
                         [101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 114])

    def test_events(self):
        lines = ["md: MSFT bid 1", "fix: gap detected, resend requested from 12",
                 "fix: disconnecting: no Heartbeat", "fix: connection reset by the peer; stopped", "stops"]
        self.assertEqual(burst.session_events(lines), lines[1:4])


def test_request(seqnum, tid):
    return ta.fix(("35", "1"), ("34", seqnum), ("49", "EXCH"), ("52", "20261122-05:48:27.700"), ("56", "TFISH1"),
                  ("112", tid))


def heartbeat_answer(seqnum, tid):
    return ta.fix(("35", "0"), ("34", seqnum), ("49", "TFISH1"), ("52", "20261122-05:48:27.800"), ("56", "EXCH"),
                  ("112", tid))


class TestCapture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tf-burst-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def capture(self, c):
        pcap, log = c.write(self.tmp)
        frames, _ = burst.load_frames(pcap, log)
        return analyze.Capture(frames, analyze.Warnings())

    def build(self, ack_all=True, tr="TR1"):
        """W 9 before the burst; the burst is W 10..15 (3 + 1 + 2 per segment) with a TestRequest after W 13 in
        W 13's segment; the SoC ACKs the first segment at cycle 2000 and the rest at 9000 (or W 13 only)."""
        c = ta.Capture()
        c.syn(100)
        c.rx(300, ta.md("MSFT", 9, ["99.99"]))
        c.tx(400, b"")
        c.rx(1000, ta.md("MSFT", 10, ["99.99"]) + ta.md("MSFT", 11, ["100.01"]) + ta.md("MSFT", 12, ["100.15"]))
        c.tx(2000, b"")
        self.w13 = ta.md("MSFT", 13, ["100.01"])
        c.rx(3000, self.w13 + test_request(14, tr))
        if not ack_all:
            c.tx(6000, b"")
        c.rx(5000, ta.md("MSFT", 15, ["99.99"]) + ta.md("MSFT", 16, ["100.01"]))
        if ack_all:
            c.tx(7000, heartbeat_answer(3, tr))
            c.tx(9000, b"")
        return c

    def test_segments_acks_and_digest_time(self):
        f = burst.capture_figures(self.capture(self.build()), 10, 16, 125.0)
        self.assertEqual(f["w_on_wire"], 6)
        self.assertEqual(f["segments"], 3)
        self.assertEqual(f["msgs_per_segment"], {"min": 1, "median": 2, "max": 3})
        self.assertEqual(f["first_byte_ns"], 1000 * 8 + 4)
        self.assertEqual(f["acked"], 6)
        # the Heartbeat at 7000 carries the ACK of everything sent by then (the builder's ACK is the RX sequence so far)
        self.assertEqual(f["last_ack_ns"], 7000 * 8 + 4)
        self.assertEqual(f["digest_ns"], 6000 * 8)
        self.assertEqual(f["digest_sys_cycles"], 6000)          # 125 MHz: one cycle per 8 ns
        self.assertEqual(f["retransmitted"], 0)

    def test_testrequest_delay(self):
        c = self.build()
        f = burst.capture_figures(self.capture(c), 10, 16, 125.0)
        tr = [t for t in f["testreqs"] if t["id"] == "TR1"]
        self.assertEqual(len(tr), 1)
        seg = ta.tcp_frame(ta.EXCH_MAC, ta.SOC_MAC, ta.EXCH_IP, ta.SOC_IP, 1, 2, 0, 0, self.w13 + test_request(14, "TR1"))
        eof = 3000 + 8 + len(seg) + 4 - 1                       # the TestRequest's segment's last FCS byte
        self.assertEqual(tr[0]["rx_ns"], eof * 8 + 4)
        self.assertEqual(tr[0]["answer_ns"], 7000 * 8 + 4)
        self.assertAlmostEqual(tr[0]["delay_ms"], (7000 - eof) * 8 / 1e6, places=6)

    def test_testrequest_delay_as_the_exchange_sees_it(self):
        # BURST-TR-4 follows the 4th burst W (W 13). Written at once: queued when the burst's first byte went out (cycle
        # 1000); one W at a time: when W 13 went out (cycle 3000). The Heartbeat starts at cycle 7000.
        cap = self.capture(self.build(tr="BURST-TR-4"))
        for at_once, queued in ((True, 1000), (False, 3000)):
            f = burst.capture_figures(cap, 10, 16, 125.0, written_at_once=at_once)
            t = [t for t in f["testreqs"] if t["id"] == "BURST-TR-4"][0]
            self.assertEqual(t["queued_ns"], queued * 8 + 4)
            self.assertAlmostEqual(t["exchange_delay_ms"], (7000 - queued) * 8 / 1e6, places=9)
            self.assertLess(t["delay_ms"], t["exchange_delay_ms"])
        f = burst.capture_figures(cap, 10, 16, 125.0, written_at_once=True)
        fig = burst.burst_figures("coalesced", 6, TestFigures().exch(), {}, {"session": "active"}, [], f, [], [], 125.0, 30)
        self.assertEqual(fig["testreq"]["max_delay_sim_ms"], 0.048)              # 6000 cycles of 8 ns
        self.assertEqual(fig["testreq"]["max_delay_board_ms"], 0.16)             # x 125 / 37.5

    def test_partial_ack(self):
        f = burst.capture_figures(self.capture(self.build(ack_all=False)), 10, 16, 125.0)
        self.assertEqual(f["acked"], 4)                         # W 10..13: the last ACK covers W 13 and the TestRequest
        self.assertEqual(f["last_ack_ns"], 6000 * 8 + 4)
        self.assertEqual(f["digest_sys_cycles"], 5000)
        self.assertEqual([t["answer_ns"] for t in f["testreqs"]], [None])

    def test_ack_past_the_burst_covers_all_of_it(self):
        c = ta.Capture()
        c.syn(100)
        c.rx(1000, ta.md("MSFT", 10, ["99.99"]) + ta.md("MSFT", 11, ["100.01"]) + test_request(12, "END"))
        c.tx(4000, heartbeat_answer(2, "END"))                 # acknowledges the TestRequest after the last W too
        f = burst.capture_figures(self.capture(c), 10, 11, 125.0)
        self.assertEqual((f["acked"], f["last_ack_ns"], f["digest_sys_cycles"]), (2, 4000 * 8 + 4, 3000))

    def test_retransmitted_segment_counted_apart(self):
        c = ta.Capture()
        c.syn(100)
        w = ta.md("MSFT", 10, ["99.99"])
        seq = c.rx_seq
        c.rx(1000, w)
        c.rx(2000, w, seq=seq)                                  # the same bytes again
        c.tx(3000, b"")
        f = burst.capture_figures(self.capture(c), 10, 10, 125.0)
        self.assertEqual((f["segments"], f["retransmitted"], f["w_on_wire"]), (1, 1, 1))

    def test_book_w_in_the_burst_is_not_a_burst_message(self):
        c = ta.Capture()
        c.syn(100)
        book = ta.fix(("35", "W"), ("34", 11), ("49", "EXCH"), ("52", "20261122-05:48:19.407"), ("56", "TFISH1"),
                      ("55", "MSFT"), ("262", "MD1"), ("268", 3), ("269", 0), ("270", "99.95"), ("271", 1000000),
                      ("290", 1), ("269", 1), ("270", "100.05"), ("271", 999900), ("290", 1), ("269", 2),
                      ("270", "100.05"), ("271", 100))
        c.rx(1000, ta.md("MSFT", 10, ["99.99"]) + book + ta.md("MSFT", 12, ["100.01"]))
        c.tx(3000, b"")
        f = burst.capture_figures(self.capture(c), 10, 12, 125.0)
        self.assertEqual((f["w_on_wire"], f["other_w"], f["acked"]), (2, 1, 2))

    def test_no_burst_in_capture(self):
        c = ta.Capture()
        c.syn(100)
        c.rx(300, ta.md("MSFT", 9, ["99.99"]))
        f = burst.capture_figures(self.capture(c), 10, 16, 125.0)
        self.assertEqual(f["w_on_wire"], 0)
        self.assertIsNone(f["digest_ns"])


class TestFigures(unittest.TestCase):
    def test_rates(self):
        # 1,000 W in 60 million cycles of 125 MHz (0.48 s): 2,083.3 W/s, 60,000 cycles each; at 37.5 MHz 625 W/s
        r = burst.rates(1000, 60_000_000, 125.0, 37.5)
        self.assertEqual(r, {"w_per_s_sim": 2083.3, "sys_cycles_per_w": 60000, "w_per_s_board": 625.0})
        self.assertEqual(burst.rates(0, 100, 125.0)["w_per_s_sim"], None)
        self.assertEqual(burst.rates(5, None, 125.0)["w_per_s_board"], None)

    def test_fires_in_burst(self):
        records = [
            {"clordid": "A", "path": "hw", "trigger_msgseqnum": "6", "trigger_price": "100.15", "t2t_cycles": 31,
             "eof2sof_cycles": 13},
            {"clordid": "B", "path": "hw", "trigger_msgseqnum": "55", "trigger_price": "99.85", "t2t_cycles": 400,
             "eof2sof_cycles": 300},
            {"clordid": "C", "path": "hw", "trigger_msgseqnum": "3", "trigger_price": "100.15", "t2t_cycles": 31,
             "eof2sof_cycles": 13},                             # before the burst: not in it
            {"clordid": "D", "path": "fw", "trigger_msgseqnum": None, "t2t_cycles": None, "eof2sof_cycles": None},
        ]
        seqs = [5, 6] + list(range(8, 56))                      # W 7 is an execution report's number, not a W
        crosses = [{"index": 2, "seq": 6, "px": "100.15"}, {"index": 50, "seq": 55, "px": "99.85"},
                   {"index": 51, "seq": 56, "px": "100.25"}]
        fires, cross = burst.fires_in_burst(records, seqs, crosses, {"A": ["100.05"]})
        self.assertEqual([(f["clordid"], f["index"], f["filled"]) for f in fires], [("A", 2, True), ("B", 50, False)])
        self.assertEqual([c["orders"] for c in cross], [["A"], ["B"], []])

    def exch(self, **kw):
        e = {"end": "sent", "sent": {"n": 10, "first_seq": 5, "last_seq": 14}, "drain": "acked", "logouts": 0,
             "heartbeats": {"BURST-TR-5": 900}, "errors": []}
        e.update(kw)
        return e

    def capfig(self):
        return {"w_on_wire": 10, "segments": 10, "msgs_per_segment": {"min": 1, "median": 1, "max": 1}, "max_payload": 190,
                "retransmitted": 0, "acked": 10, "digest_ns": 4_000_000, "digest_sys_cycles": 500_000,
                "first_byte_ns": 1_000, "testreqs": [{"id": "TEST", "rx_ns": 500, "answer_ns": 600, "delay_ms": 0.0},
                                                     {"id": "BURST-TR-5", "rx_ns": 2_000_000, "answer_ns": 3_000_000,
                                                      "delay_ms": 1.0}]}

    def test_figures_kept(self):
        f = burst.burst_figures("segment", 10, self.exch(), {"md_msgs": 2, "rx_drops_full": 1, "session": "active"},
                                {"md_msgs": 12, "rx_drops_full": 1, "session": "active"}, [], self.capfig(), [], [],
                                125.0, 30, 0)
        self.assertEqual(f["digested_fw"], 10)
        self.assertEqual(f["w_per_s_sim"], 2500.0)             # 10 W in 500,000 cycles of 125 MHz (4 ms)
        self.assertEqual(f["w_per_s_board"], 750.0)
        self.assertEqual(f["rx_drops_full"], 0)
        self.assertEqual(f["testreq"]["in_burst"], 1)          # the TestRequest before the burst's first byte is not in it
        self.assertEqual(f["testreq"]["max_delay_sim_ms"], 1.0)
        self.assertTrue(f["session_survived"])
        self.assertIsNone(f["session_end"])
        self.assertEqual(f["testreq"]["max_delay_board_ms"], 3.333)   # 1 ms of 125 MHz cycles at 37.5 MHz
        self.assertTrue(f["liveness_ok"])
        cf = self.capfig()
        cf["testreqs"][1]["delay_ms"] = 9001.0                # 30,003 ms at the boards' clock: over HeartBtInt 30 s
        f = burst.burst_figures("segment", 10, self.exch(), {}, {"session": "active"}, [], cf, [], [], 125.0, 30, 0)
        self.assertFalse(f["liveness_ok"])
        cf["testreqs"][1]["delay_ms"] = 8999.0
        f = burst.burst_figures("segment", 10, self.exch(), {}, {"session": "active"}, [], cf, [], [], 125.0, 30, 0)
        self.assertTrue(f["liveness_ok"])
        self.assertEqual(f["inflight_bytes"], 0)

    def test_figures_with_digestion(self):
        """Digestion on: the hardware's W count beside firmware's, and the rate is over both."""
        before = {"md_msgs": 2, "digest": "on", "dg_hw_msgs": 5, "dg_segments": 1, "dg_passed": 0, "dg_trimmed": 0,
                  "dg_garbled": 0, "dg_skip_refused": 0, "dg_msg_refused": 0, "dg_fifo_drops": 0, "session": "active"}
        after = dict(before, md_msgs=4, dg_hw_msgs=13, dg_segments=4, dg_passed=2, dg_trimmed=1)
        f = burst.burst_figures("coalesced", 10, self.exch(), before, after, [], self.capfig(), [], [], 125.0, 30)
        self.assertTrue(f["digestion"])
        self.assertEqual((f["digested_fw"], f["digested_hw"], f["taken"]), (2, 8, 10))
        self.assertEqual(f["w_per_s_sim"], 2500.0)             # 10 W in 500,000 cycles of 125 MHz
        self.assertEqual(f["digest_segments"]["segments"], 3)
        self.assertEqual(f["digest_segments"]["passed"], 2)
        text = "\n".join(burst.burst_md({"coalesced": f}))
        self.assertIn("| coalesced | on (3 segments digested, 2 passed) | 10 of 10 | 10 (10, 1..1) | 2 | 8 |", text)
        self.assertIn("taken 10 (firmware 2, digested by the hardware 8)", burst.summary_line(f))
        # off (the console says so, or the SoC has no digestion): firmware's count alone
        f = burst.burst_figures("coalesced", 10, self.exch(), dict(before, digest="off"), dict(after, digest="off"), [],
                                self.capfig(), [], [], 125.0, 30)
        self.assertEqual((f["digestion"], f["digested_hw"], f["taken"]), (False, None, 2))

    def test_burst_seqs(self):
        """The burst's MsgSeqNums: from BURST SENT, else (cut short by the time limit) from a crossing and its size."""
        self.assertEqual(burst.burst_seqs({"sent": {"n": 10, "first_seq": 5, "last_seq": 14}}, 10), (5, 14))
        cut = {"sent": None, "crosses": [{"index": 100, "seq": 103, "px": "100.15"}]}
        self.assertEqual(burst.burst_seqs(cut, 10000), (4, 10003))
        self.assertEqual(burst.burst_seqs({"sent": None, "crosses": []}, 10), (-1, -1))
        f = burst.burst_figures("segment", 10, dict(self.exch(), sent=None, end=None, drain=None), {}, {"session": "active"},
                                [], self.capfig(), [], [], 125.0, 30)
        self.assertIsNone(f["messages_sent"])           # not said by the exchange: not 0
        self.assertEqual(f["w_on_wire"], 10)            # the capture's count
        self.assertIn("| segment | off | - of 10 | 10 (10, 1..1) |", "\n".join(burst.burst_md({"segment": f})))
        self.assertFalse(f["session_survived"])
        self.assertEqual(f["session_end"], "not over within the time limit (the session active then)")
        self.assertIn("| not over within the time limit (the session active then) |", "\n".join(burst.burst_md({"segment": f})))

    def test_figures_lost(self):
        before, after = {"md_msgs": 2, "session": "active"}, {"md_msgs": 5, "session": "disconnected"}
        f = burst.burst_figures("coalesced", 10, self.exch(drain="lost", logouts=1), before, after, [], self.capfig(),
                                [], [], 125.0, 30)
        self.assertFalse(f["session_survived"])
        self.assertEqual(f["session_end"], "the exchange logged the session out")
        self.assertIsNone(f["inflight_bytes"])
        f = burst.burst_figures("coalesced", 10, self.exch(drain=None), before, {"md_msgs": 5, "session": "active"}, [],
                                self.capfig(), [], [], 125.0, 30)
        self.assertEqual(f["session_end"], "the burst was not acknowledged within the time limit")

    def test_md(self):
        f = burst.burst_figures("segment", 10, self.exch(), {"md_msgs": 2}, {"md_msgs": 12, "session": "active"}, [],
                                self.capfig(), [{"index": 1, "t2t_cycles": 31, "filled": True}],
                                [{"index": 1, "px": "100.15", "orders": ["A"]}], 125.0, 30, 0)
        text = "\n".join(burst.burst_md({"segment": f}))
        self.assertIn("| segment | off | 10 of 10 | 10 (10, 1..1) | 10 | - |", text)
        self.assertIn("2,500 at 125 MHz | 750 at 37.5 MHz | 50,000 |", text)
        self.assertIn("#1 31", text)
        self.assertIn("#1 @ 100.15: A", text)


class TestMergeMd(unittest.TestCase):
    SEC = ["", "## Burst: new", "", "| a |"]

    def test_appended_when_absent(self):
        self.assertEqual(burst.merge_md("# R\n\n## Side\nx\n\n", self.SEC), "# R\n\n## Side\nx\n\n## Burst: new\n\n| a |\n")

    def test_replaced_in_the_middle(self):
        text = "# R\n\n## Burst: old\n\nold table\n\n## Next\ny\n"
        self.assertEqual(burst.merge_md(text, self.SEC), "# R\n\n## Burst: new\n\n| a |\n\n## Next\ny\n")

    def test_replaced_at_the_end(self):
        self.assertEqual(burst.merge_md("# R\n## Burst: old\nold\n", self.SEC), "# R\n## Burst: new\n\n| a |\n")

    def test_no_report_yet(self):
        self.assertEqual(burst.merge_md("", self.SEC), "## Burst: new\n\n| a |\n")


class TestBurstOnly(unittest.TestCase):
    """bench.py --burst-only: the burst's figures go into the report already there, the rest of it is kept."""

    def test_merge_into_existing_report(self):
        import json
        import bench
        tmp = tempfile.mkdtemp(prefix="tf-burst-only-")
        self.addCleanup(shutil.rmtree, tmp, True)
        with open(os.path.join(tmp, "report.json"), "w") as f:
            json.dump({"hw": {"orders": 3}, "burst": {"old": 1}}, f)
        with open(os.path.join(tmp, "report.md"), "w") as f:
            f.write("# Triggerfish benchmark report\n\n## Side by side\n\nrow\n")
        t = TestFigures()
        f = burst.burst_figures("coalesced", 10, t.exch(), {"md_msgs": 0}, {"md_msgs": 10, "session": "active"}, [],
                                t.capfig(), [], [], 125.0, 30)

        def fake_run(args, out):
            os.makedirs(os.path.join(out, "burst"), exist_ok=True)
            with open(os.path.join(out, "burst", "burst.json"), "w") as fh:
                json.dump({"coalesced": f}, fh)
        real = bench.run_burst
        bench.run_burst = fake_run
        try:
            import contextlib
            import io
            with contextlib.redirect_stdout(io.StringIO()):
                bench.main(["--burst-only", "--out", tmp])
        finally:
            bench.run_burst = real
        with open(os.path.join(tmp, "report.json")) as fh:
            rep = json.load(fh)
        self.assertEqual(rep["hw"], {"orders": 3})
        self.assertEqual(list(rep["burst"]), ["coalesced"])
        self.assertEqual(rep["burst"]["coalesced"]["digested_fw"], 10)
        with open(os.path.join(tmp, "report.md")) as fh:
            md = fh.read()
        self.assertTrue(md.startswith("# Triggerfish benchmark report\n\n## Side by side\n\nrow\n\n## Burst:"), md[:200])
        self.assertEqual(md.count("## Burst:"), 1)
        self.assertIn("| coalesced | off | 10 of 10 |", md)


if __name__ == "__main__":
    unittest.main()
