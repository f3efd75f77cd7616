"""Tests for tools/bench/linux_baseline.py: pairing and capture reading on small synthetic pcaps.

Run from the repository root:  python3 -m unittest tools/bench/test_linux_baseline.py
No root, no Java: the captures are written here the way tcpdump writes them on the exchange's veth
(nanosecond pcap, Ethernet, IPv4, TCP), with known time stamps.
"""
import contextlib
import io
import json
import os
import shutil
import struct
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import linux_baseline as lb  # noqa: E402

EXCH_MAC, CLI_MAC = bytes.fromhex("0a0000000001"), bytes.fromhex("0a0000000002")
EXCH_IP, CLI_IP = bytes([10, 79, 0, 1]), bytes([10, 79, 0, 2])
EXCH_PORT, CLI_PORT = 9876, 40123
T0 = 1_795_000_000_000_000_000   # ns since the epoch
STOPS = lb.parse_stops(lb.DEFAULT_STOPS)   # buy 1170.50, sell 1169.50, round robin


def fix(*fields):
    body = "".join(f"{t}={v}\x01" for t, v in fields).encode()
    m = b"8=FIX.4.4\x019=" + str(len(body)).encode() + b"\x01" + body
    return m + f"10={sum(m) % 256:03d}\x01".encode()


def md(seq, trade=None, bid="1170.75", offer="1171.25", sym="MSFT"):
    """A 35=W as the exchange sends it: bid, offer, and the trade entry when there is one."""
    f = [("35", "W"), ("34", seq), ("49", "EXCH"), ("52", "20261122-08:00:00.000"), ("56", "BASE1"), ("55", sym),
         ("262", "BL-MD1"), ("268", 3 if trade else 2), ("269", 0), ("270", bid), ("271", 100), ("290", 1),
         ("269", 1), ("270", offer), ("271", 100), ("290", 1)]
    if trade:
        f += [("269", 2), ("270", trade), ("271", 100)]
    return fix(*f)


def nos(clordid, side, seq, possdup=False, sym="MSFT"):
    f = [("35", "D"), ("34", seq)] + ([("43", "Y"), ("122", "20261122-08:00:00.000")] if possdup else []) + [
        ("49", "BASE1"), ("52", "20261122-08:00:00.000"), ("56", "EXCH"), ("1", "BASE"), ("11", clordid),
        ("21", 1), ("38", 10), ("40", 2), ("44", "1171.50" if side == 1 else "1168.50"), ("54", side),
        ("55", sym), ("59", 0), ("60", "20261122-08:00:00.000")]
    return fix(*f)


def heartbeat(seq):
    return fix(("35", "0"), ("34", seq), ("49", "EXCH"), ("52", "20261122-08:00:00.000"), ("56", "BASE1"))


class Pcap:
    """Builds a capture of one connection: exchange -> client ("x") and client -> exchange ("c") segments.
    Checksums are left at zero, as a capture of a veth (checksum offload) shows them."""

    def __init__(self):
        self.recs = []
        self.seq = {"x": 1000, "c": 5000}

    def seg(self, who, ts_us, payload, flags=0x18, seq=None, advance=True):
        s = self.seq[who] if seq is None else seq
        a = self.seq["c" if who == "x" else "x"]
        sport, dport = (EXCH_PORT, CLI_PORT) if who == "x" else (CLI_PORT, EXCH_PORT)
        sip, dip = (EXCH_IP, CLI_IP) if who == "x" else (CLI_IP, EXCH_IP)
        tcp = struct.pack("!HHIIBBHHH", sport, dport, s, a, 5 << 4, flags, 65535, 0, 0) + payload
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0x4000, 64, 6, 0, sip, dip)
        eth = (CLI_MAC + EXCH_MAC) if who == "x" else (EXCH_MAC + CLI_MAC)
        self.recs.append((T0 + int(ts_us * 1000), eth + b"\x08\x00" + ip + tcp))
        if advance and seq is None:
            self.seq[who] = (s + len(payload) + (1 if flags & 2 else 0)) & 0xFFFFFFFF
        return self

    def handshake(self):
        self.seg("c", 0, b"", flags=0x02)
        self.seg("x", 10, b"", flags=0x12)
        return self

    def write(self, path):
        with open(path, "wb") as f:
            f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, 1))
            for ts, data in self.recs:
                f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data), len(data)) + data)
        return path


class PairingTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="linux-baseline-test-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def pcap(self, p, name="t.pcap"):
        return p.write(os.path.join(self.dir, name))

    def test_steady_state_pairs_each_order_with_its_trigger(self):
        p = Pcap().handshake()
        p.seg("x", 1000, md(2))                              # quotes only
        p.seg("x", 2000, md(3, trade="1170.25"))             # below the buy stop
        p.seg("x", 3000, md(4, trade="1171"))                # crosses buy 1170.50
        p.seg("c", 3412.345, nos("BL1", 1, 2))               # 412.345 µs later
        p.seg("x", 3600, md(5, trade="1171.25"))             # its fill: no sell cross
        p.seg("x", 13000, md(6, trade="1169.50", bid="1169.25", offer="1169.75"))   # equal crosses sell
        p.seg("c", 13250, nos("BL2", 2, 3))
        p.seg("x", 23000, md(7, trade="1171"))
        p.seg("c", 23100.001, nos("BL3", 1, 4))
        res = lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL", warmup=0, want=3)
        self.assertEqual(res["count"], 3)
        self.assertEqual([q["ns"] for q in pairs_of(res)], [412345, 250000, 100001])
        self.assertEqual([q["trade"] for q in pairs_of(res)], ["1171", "1169.50", "1171"])
        self.assertEqual(res["ns"]["min"], 100001)
        self.assertEqual(res["ns"]["median"], 250000)
        self.assertEqual(res["ns"]["max"], 412345)
        self.assertEqual(res["ns"]["mean"], round((412345 + 250000 + 100001) / 3, 1))
        self.assertEqual(res["behind"], 0)
        self.assertEqual(res["orders"], 3)
        self.assertEqual(res["market_data"], 6)
        self.assertEqual(res["capture"]["tcp_connections"], 1)
        self.assertEqual(res["warnings"], [])   # zero checksums (offload) are not reported

    def test_warmup_is_left_out_of_the_figures(self):
        p = Pcap().handshake()
        for k in range(6):
            buy = k % 2 == 0
            p.seg("x", 1000 + 10000 * k, md(2 + k, trade="1171" if buy else "1169"))
            p.seg("c", 1000 + 10000 * k + 100 * (k + 1), nos(f"BL{k + 1}", 1 if buy else 2, 2 + k))
        res = lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL", warmup=2, want=4)
        self.assertEqual(res["count"], 4)
        self.assertEqual(res["warmup"], 2)
        self.assertEqual(res["ns"]["min"], 300000)
        self.assertEqual(res["all"]["count"], 6)
        self.assertEqual(res["all"]["ns"]["min"], 100000)
        with self.assertRaises(lb.BaselineError) as e:
            lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL", warmup=2, want=5)
        self.assertIn("only 4 orders measured after 2 warm-up fires, 5 wanted", e.exception.args[0])

    def test_a_client_behind_the_market_is_paired_with_the_w_it_acted_on(self):
        # three crossing Ws arrive before the (slow) client sends its first order: it fires on each in turn
        p = Pcap().handshake()
        p.seg("x", 1000, md(2, trade="1171"))
        p.seg("x", 2000, md(3, trade="1169"))
        p.seg("x", 3000, md(4, trade="1171"))
        p.seg("c", 5000, nos("BL1", 1, 2))
        p.seg("c", 5100, nos("BL2", 2, 3))
        p.seg("c", 5200, nos("BL3", 1, 4))
        res = lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL")
        self.assertEqual([q["ns"] for q in pairs_of(res)], [4000000, 3100000, 2200000])
        self.assertEqual([q["w_frame"] for q in pairs_of(res)], [3, 4, 5])
        # "the last crossing W before the D" would have taken W 3 (frame 5) for BL1
        self.assertEqual([q["behind"] for q in pairs_of(res)], [True, False, False])
        self.assertEqual(res["behind"], 1)

    def test_split_and_coalesced_segments_retransmissions_and_resends(self):
        p = Pcap().handshake()
        w = md(2, trade="1171")
        p.seg("x", 1000, w[:40])                             # a W split over two segments:
        p.seg("x", 1030, w[40:] + heartbeat(3))              # its time is the segment that completes it
        d = nos("BL1", 1, 2)
        p.seg("c", 1500, d)
        p.seg("c", 1900, d, seq=p.seq["c"] - len(d))         # a TCP retransmission: the same order
        p.seg("c", 2000, nos("BL1", 1, 2, possdup=True))     # a FIX resend (43=Y): not an order
        p.seg("x", 9000, md(4, trade="1169") + md(5, trade="1168.75"))   # two Ws in one segment
        p.seg("c", 9700, nos("BL2", 2, 3))
        res = lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL", want=2)
        self.assertEqual([q["ns"] for q in pairs_of(res)], [470000, 700000])
        self.assertEqual(res["orders"], 2)

    def test_an_order_without_a_trigger_fails_the_run(self):
        p = Pcap().handshake()
        p.seg("x", 1000, md(2, trade="1170.25"))             # does not cross buy 1170.50
        p.seg("c", 1500, nos("BL1", 1, 2))
        with self.assertRaises(lb.BaselineError) as e:
            lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL")
        self.assertIn("order 1 (ClOrdID BL1, frame 4): no 35=W crossing buy:MSFT:1170.50", e.exception.args[0])

    def test_a_trigger_after_the_order_is_no_trigger(self):
        p = Pcap().handshake()
        p.seg("c", 900, nos("BL1", 1, 2))
        p.seg("x", 1000, md(2, trade="1171"))
        with self.assertRaises(lb.BaselineError):
            lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL")

    def test_stops_that_are_not_the_clients_are_refused(self):
        p = Pcap().handshake()
        p.seg("x", 1000, md(2, trade="1169"))
        p.seg("c", 1500, nos("BL1", 2, 2))                   # a sell first: the default list starts with a buy
        with self.assertRaises(lb.BaselineError) as e:
            lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL")
        self.assertIn("the stop list does not match the client's", e.exception.args[0])
        sell_first = lb.parse_stops("sell:MSFT:1169.50:10:1168.50,buy:MSFT:1170.50:10:1171.50")
        self.assertEqual(lb.evaluate(self.pcap(p), sell_first, EXCH_PORT, "BL")["count"], 1)

    def test_no_orders_is_a_failure(self):
        p = Pcap().handshake()
        p.seg("x", 1000, md(2, trade="1171"))
        with self.assertRaises(lb.BaselineError) as e:
            lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL")
        self.assertIn("no orders", e.exception.args[0])

    def test_command_line_analyse_mode(self):
        p = Pcap().handshake()
        p.seg("x", 1000, md(2, trade="1171"))
        p.seg("c", 1250, nos("BL1", 1, 2))
        pcap = self.pcap(p)
        out, err = io.StringIO(), io.StringIO()
        js = os.path.join(self.dir, "r.json")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = lb.main(["--analyze", pcap, "--warmup", "0", "--json", js, "--csv", os.path.join(self.dir, "p.csv")])
        self.assertEqual(rc, 0, err.getvalue())
        self.assertIn("linux baseline: 1 fires (after 0 warm-up)", out.getvalue())
        self.assertIn("median 250.0 µs", out.getvalue())
        with open(js) as f:
            res = json.load(f)
        self.assertEqual(res["count"], 1)
        self.assertEqual(res["ns"], {"min": 250000, "median": 250000, "max": 250000, "mean": 250000.0,
                                     "p90": 250000, "p99": 250000})
        self.assertEqual(res["pcap"], os.path.abspath(pcap))
        with open(os.path.join(self.dir, "p.csv")) as f:
            self.assertEqual(f.read().splitlines()[1], f"1,BL1,buy,1170.50,1171,3,4,{T0 + 1000000},{T0 + 1250000},250000,0")
        # input errors: status 2 with a message
        bad = os.path.join(self.dir, "bad.pcap")
        with open(bad, "wb") as f:
            f.write(b"not a capture at all, clearly")
        for argv in (["--analyze", bad], ["--analyze", pcap, "--stops", "buy:MSFT:1170"],
                     ["--analyze", pcap, "--stops", "hold:MSFT:1:1:1"]):
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                self.assertEqual(lb.main(argv), 2, argv)
            self.assertTrue(err.getvalue().startswith("linux_baseline: "), err.getvalue())
        # a run failure: status 1
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            self.assertEqual(lb.main(["--analyze", pcap, "--stops", "sell:MSFT:1169.50:10:1168.50"]), 1)
        self.assertIn("FAILED", err.getvalue())

    def test_generated_market(self):
        tpl = os.path.join(self.dir, "t.path")
        with open(tpl, "w") as f:
            f.write("# header\n0 MSFT 1169.75 1170.25\n10 MSFT 1170.75 1171.25 trade 1171 100  # up\n"
                    "\n12 MSFT 1168.75 1169.25 trade 1169 100\n")
        steps = lb.read_template(tpl)
        self.assertEqual(steps, [(0, "MSFT 1169.75 1170.25"), (10, "MSFT 1170.75 1171.25 trade 1171 100"),
                                 (12, "MSFT 1168.75 1169.25 trade 1169 100")])
        out = os.path.join(self.dir, "market.path")
        info = lb.make_market(steps, 2000, 1000, 2, out, "t.path")
        # warm-up: 2000 - 100 (5%) fires = 950 passes of 2 trades; measured: (1000 + 100) * 1.5 + 100 -> 875 passes
        self.assertEqual((info["warmup_passes"], info["measure_passes"]), (950, 875))
        with open(out) as f:
            lines = [ln for ln in f.read().splitlines() if not ln.startswith("#")]
        self.assertEqual(len(lines), 3 * (950 + 875))
        self.assertEqual(lines[:3], ["2 MSFT 1169.75 1170.25", "2 MSFT 1170.75 1171.25 trade 1171 100",
                                     "2 MSFT 1168.75 1169.25 trade 1169 100"])
        self.assertEqual(lines[3 * 950:3 * 950 + 3], ["0 MSFT 1169.75 1170.25", "10 MSFT 1170.75 1171.25 trade 1171 100",
                                                      "12 MSFT 1168.75 1169.25 trade 1169 100"])
        info = lb.make_market(steps, 10, 5, 1, out, "t.path", measure_step_ms=4)   # small warm-up: margin is all of it
        self.assertEqual((info["warmup_passes"], info["measure_step_ms"]), (0, [4, 4, 4]))
        with open(tpl, "w") as f:
            f.write("0 MSFT 1169.75 1170.25\n")
        with self.assertRaises(lb.InputError):   # nothing would ever fire
            lb.read_template(tpl)
        with self.assertRaises(lb.InputError):
            lb.read_template(os.path.join(self.dir, "missing.path"))

    def test_the_committed_template_fits_the_default_stops(self):
        steps = lb.read_template(lb.DEFAULT_PATH)
        trades = [lb.Decimal(r.split()[r.split().index("trade") + 1]) for _d, r in steps if " trade " in f" {r} "]
        self.assertEqual(len(trades), len(STOPS))
        for i, px in enumerate(trades):   # trade step i crosses stop i and no other
            for j, stop in enumerate(STOPS):
                self.assertEqual(lb.crosses(stop, px), i == j, (i, j))

    def test_report_figures_from_a_capture(self):
        # what bench.py's report quotes: the measured orders' min / median / mean / p99 / max in µs
        p = Pcap().handshake()
        lat_us = [900.0, 65.75, 311.85, 1492.65, 120.0]     # W -> D of orders 1..5
        for k, lat in enumerate(lat_us):
            buy = k % 2 == 0
            p.seg("x", 1000 + 10000 * k, md(2 + k, trade="1171" if buy else "1169"))
            p.seg("c", 1000 + 10000 * k + lat, nos(f"BL{k + 1}", 1 if buy else 2, 2 + k))
        res = lb.evaluate(self.pcap(p), STOPS, EXCH_PORT, "BL", warmup=1, want=4)
        fig = lb.report_figures(json.loads(json.dumps(res)))   # as bench.py reads it back from the JSON
        measured = sorted(lat_us[1:])                          # the warm-up fire (900 µs) is left out
        self.assertEqual((fig["count"], fig["warmup"], fig["behind"]), (4, 1, 0))
        self.assertEqual(fig["us"]["min"], 65.8)               # 65.750 µs, rounded to 0.1 µs
        self.assertEqual(fig["us"]["max"], 1492.7)
        self.assertEqual(fig["us"]["median"], round((measured[1] + measured[2]) / 2, 1))
        self.assertEqual(fig["us"]["mean"], round(sum(measured) / 4, 1))
        self.assertEqual(fig["us"]["p99"], 1492.7)

    def test_report_figures_refuse_a_result_without_orders(self):
        for res in ({}, {"count": 0, "ns": lb.stats([])}, {"count": 3, "ns": {"min": 1, "median": 2}}, [1]):
            with self.assertRaises(lb.InputError) as e:
                lb.report_figures(res)
            self.assertIn("Linux baseline result", str(e.exception))

    def test_stats(self):
        s = lb.stats(list(range(1, 101)))
        self.assertEqual((s["min"], s["median"], s["max"], s["mean"], s["p90"], s["p99"]), (1, 50.5, 100, 50.5, 90, 99))
        self.assertEqual(lb.stats([])["median"], None)


def pairs_of(res):
    return res["pairs"]


if __name__ == "__main__":
    unittest.main()
