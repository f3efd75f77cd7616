"""Tests for tools/latency/analyze.py on synthetic captures with known cycles.

Run from the repository root:  python3 -m unittest tools/latency/test_analyze.py
No root, no simulator. The captures are written the way sim/eth writes them: pcap records in SOF order
(ns magic, time stamp = sof_ns = 8 * cycle + 4), frame-log rows in completion order.
"""
import contextlib
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import analyze  # noqa: E402

SOC_MAC = bytes.fromhex("025446000002")
EXCH_MAC = bytes.fromhex("025446000001")
SOC_IP, EXCH_IP = bytes([10, 77, 0, 2]), bytes([10, 77, 0, 1])
SOC_PORT, EXCH_PORT = 51044, 9876
HDR = 14 + 20 + 20  # Ethernet + IPv4 + TCP (no options): FIX payload offset in the frame
WIRE_OFFSET = 8     # preamble + SFD
# the fire log's count (tx stamp - rx stamp) to T2T on the pins: the rx stamp is 6 cycles after the RX pins, TX_EN
# rises 3 after the tx stamp (hw/src/triggerfish/offload/README.md, README-tx.md "Fire log")
FIRE_LOG_PIPE = 9
ROOT = os.path.dirname(os.path.dirname(HERE))  # the checkout this file is in
REAL = os.path.join(ROOT, "build", "sim", "tests")  # `make test` writes the whole-SoC tests' captures here


# ---------------------------------------------------------------------------------------------
# builders

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def tcp_frame(src_mac, dst_mac, sip, dip, sport, dport, seq, ack, payload, flags=0x18):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0) + payload
    c = csum(sip + dip + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0x4000, 64, 6, 0, sip, dip)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dst_mac + src_mac + b"\x08\x00" + ip + tcp


def fix(*fields):
    body = "".join(f"{t}={v}\x01" for t, v in fields).encode()
    m = b"8=FIX.4.4\x019=" + str(len(body)).encode() + b"\x01" + body
    return m + f"10={sum(m) % 256:03d}\x01".encode()


def md(sym, seqnum, trades, bid="99.75", offer="100.25"):
    """A 35=W in the paper's field order; trades: list of trade prices (269=2 entries)."""
    f = [("35", "W"), ("34", seqnum), ("49", "EXCH"), ("52", "20261122-05:48:19.407"), ("56", "TFISH1"),
         ("55", sym), ("262", "MD1"), ("268", 2 + len(trades)),
         ("269", 0), ("270", bid), ("271", 100), ("290", 1), ("269", 1), ("270", offer), ("271", 100), ("290", 1)]
    for t in trades:
        f += [("269", 2), ("270", t), ("271", 100)]
    return fix(*f)


def nos(clordid, sym, side, seqnum, px="100", possdup=False):
    f = [("35", "D"), ("34", seqnum)] + ([("43", "Y")] if possdup else []) + [
        ("49", "TFISH1"), ("52", "20261122-05:48:19.766"), ("56", "EXCH"), ("1", "TFISH"), ("11", clordid),
        ("21", 1), ("38", 100), ("40", 2), ("44", px), ("54", side), ("55", sym), ("59", 0),
        ("60", "20261122-05:48:19.766")]
    return fix(*f)


def heartbeat(seqnum):
    return fix(("35", "0"), ("34", seqnum), ("49", "EXCH"), ("52", "20261122-05:48:27.700"), ("56", "TFISH1"))


def test_request(seqnum, req_id):
    """The exchange's TestRequest (35=1) with TestReqID 112."""
    return fix(("35", "1"), ("34", seqnum), ("49", "EXCH"), ("52", "20261122-05:48:27.700"), ("56", "TFISH1"),
               ("112", req_id))


def heartbeat_answer(seqnum, req_id):
    """The SoC's Heartbeat (35=0) answering the TestRequest 112=req_id."""
    return fix(("35", "0"), ("34", seqnum), ("49", "TFISH1"), ("52", "20261122-05:48:27.710"), ("56", "EXCH"),
               ("112", req_id))


def soh_after(data, needle, start=0):
    """Index of the SOH that ends the first occurrence of needle (e.g. b'270=100.5') at or after start."""
    i = data.index(needle + b"\x01", start)
    return i + len(needle)


class Capture:
    """One connection exchange <-> SoC; frames placed at chosen SOF cycles on one 125 MHz clock."""

    def __init__(self):
        self.frames = []  # dicts: dir, sof, data (padded to 60)
        self.rx_seq = 1000
        self.tx_seq = 5000

    def _add(self, d, sof, data):
        data = data + bytes(max(0, 60 - len(data)))
        self.frames.append({"dir": d, "sof": sof, "data": data, "status": "ok"})
        return data

    def rx(self, sof, payload, seq=None):
        s = self.rx_seq if seq is None else seq
        if seq is None:
            self.rx_seq += len(payload)
        return self._add("rx", sof, tcp_frame(EXCH_MAC, SOC_MAC, EXCH_IP, SOC_IP, EXCH_PORT, SOC_PORT, s,
                                              self.tx_seq, payload))

    def syn(self, sof):
        """The exchange's SYN-ACK: the RX stream starts at rx_seq."""
        return self._add("rx", sof, tcp_frame(EXCH_MAC, SOC_MAC, EXCH_IP, SOC_IP, EXCH_PORT, SOC_PORT,
                                              self.rx_seq - 1, self.tx_seq, b"", flags=0x12))

    def tx(self, sof, payload, seq=None):
        s = self.tx_seq if seq is None else seq
        if seq is None:
            self.tx_seq += len(payload)
        return self._add("tx", sof, tcp_frame(SOC_MAC, EXCH_MAC, SOC_IP, EXCH_IP, SOC_PORT, EXCH_PORT, s,
                                              self.rx_seq, payload))

    @staticmethod
    def eof(f):
        return f["sof"] + WIRE_OFFSET + len(f["data"]) + 4 - 1

    def write(self, tmp, name="cap", us=False, drop_row=None):
        fl = sorted(self.frames, key=lambda f: f["sof"])
        seqs = {"rx": 0, "tx": 0}
        for f in fl:
            seqs[f["dir"]] += 1
            f["seq"] = seqs[f["dir"]]
        for d in ("rx", "tx"):  # one direction's frames never overlap on the pins
            same = [f for f in fl if f["dir"] == d]
            for a, b in zip(same, same[1:]):
                assert self.eof(a) + 12 < b["sof"], f"test bug: {d} frames overlap"
        # completion: RX row at its last byte, TX row one edge later (tx_en low); tx_edge runs first
        done = sorted(fl, key=lambda f: (self.eof(f) + (1 if f["dir"] == "tx" else 0), 0 if f["dir"] == "tx" else 1))
        pcap_order = sorted(done, key=lambda f: f["sof"])  # stable: ties stay in completion order
        pcap = os.path.join(tmp, name + ".pcap")
        log = os.path.join(tmp, name + ".frames.csv")
        with open(pcap, "wb") as p:
            p.write(struct.pack("<IHHiIII", 0xA1B2C3D4 if us else 0xA1B23C4D, 2, 4, 0, 0, 262144, 1))
            for f in pcap_order:
                ns = f["sof"] * 8 + 4
                frac = (ns % 1_000_000_000) // 1000 if us else ns % 1_000_000_000
                p.write(struct.pack("<IIII", ns // 1_000_000_000, frac, len(f["data"]), len(f["data"])) + f["data"])
        with open(log, "w") as lg:
            lg.write("dir,seq,sof_ns,eof_ns,sof_cycle,eof_cycle,len,status,source\n")
            for f in done:
                if drop_row is not None and (f["dir"], f["seq"]) == drop_row:
                    continue
                e = self.eof(f)
                lg.write(f"{f['dir']},{f['seq']},{f['sof'] * 8 + 4},{e * 8 + 4},{f['sof']},{e},{len(f['data'])},"
                         f"{f['status']},{'soc' if f['dir'] == 'tx' else 'inject'}\n")
        return pcap, log


def run(args):
    out, err = io.StringIO(), io.StringIO()
    rc = analyze.main(args, out=out, err=err)
    return rc, out.getvalue(), err.getvalue()


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tf-latency-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def analyze_json(self, cap, *extra, us=False, expect_rc=0):
        pcap, log = cap.write(self.tmp, us=us)
        js = os.path.join(self.tmp, "out.json")
        rc, out, err = run(["--pcap", pcap, "--frames", log, "--json", js, *extra])
        self.assertEqual(rc, expect_rc, out + err)
        with open(js) as f:
            doc = json.load(f)
        return doc, out, err

    def order(self, doc, clordid):
        rs = [r for r in doc["orders"] if r["clordid"] == clordid]
        self.assertEqual(len(rs), 1, f"{clordid}: {len(rs)} records")
        return rs[0]

    def assert_metrics(self, r, t2t, eof2sof, sof2sof):
        self.assertEqual((r["t2t_cycles"], r["eof2sof_cycles"], r["sof2sof_cycles"]), (t2t, eof2sof, sof2sof))
        self.assertEqual(r["t2t_ns"], t2t * 8.0)


# ---------------------------------------------------------------------------------------------

class TestTrigger(Base):
    def test_basic_w_then_d(self):
        c = Capture()
        w = md("MSFT", 4, ["100.5"])
        fw = c.rx(1000, w)
        c.tx(1600, nos("ORD1", "MSFT", 1, 3))
        doc, out, _ = self.analyze_json(c)
        k = HDR + soh_after(w, b"269=2\x01270=100.5")
        self.assertEqual(k, soh_after(fw, b"269=2\x01270=100.5"))
        r = self.order(doc, "ORD1")
        self.assertEqual(r["trigger_rx_seq"], 1)
        self.assertEqual(r["trigger_k"], k)
        eof = 1000 + 8 + len(fw) + 4 - 1
        self.assert_metrics(r, 1600 - (1000 + 8 + k), 1600 - eof, 600)
        self.assertEqual(k, 54 + 167)  # the W's trade price SOH: 167 bytes into the payload (counted by hand)
        self.assertEqual(r["t2t_cycles"], 1600 - 1008 - 221)
        self.assertIn("ORD1", out)
        self.assertIn("T2T 371", out)

    def test_microsecond_pcap_same_result(self):
        c = Capture()
        c.rx(1000, md("MSFT", 4, ["100.5"]))
        c.tx(1060 + 200, nos("ORD1", "MSFT", 1, 3))
        c.rx(1500, heartbeat(5))
        c.tx(1580, heartbeat(6))  # within the same microsecond as the previous RX frame
        ns_doc, _, _ = self.analyze_json(c)
        us_doc, _, _ = self.analyze_json(c, us=True)
        self.assertEqual(ns_doc["orders"], us_doc["orders"])
        self.assertEqual(ns_doc["orders"][0]["sof2sof_cycles"], 260)

    def test_w_split_inside_price(self):
        c = Capture()
        w = md("MSFT", 4, ["100.75"])
        cut = w.index(b"269=2\x01270=100.") + len(b"269=2\x01270=100.")
        c.rx(1000, w[:cut])
        f2 = c.rx(1400, w[cut:])
        c.tx(1800, nos("ORD1", "MSFT", 1, 3))
        doc, out, _ = self.analyze_json(c)
        r = self.order(doc, "ORD1")
        self.assertEqual(r["trigger_rx_seq"], 2)  # the segment with the SOH
        k = HDR + w[cut:].index(b"\x01")
        self.assertEqual(k, f2.index(b"75\x01") + 2)
        self.assertEqual(k, 54 + 2)
        self.assertTrue(r["trigger_split"])
        self.assert_metrics(r, 1800 - (1400 + 8 + k), 1800 - Capture.eof({"sof": 1400, "data": f2}), 400)

    def test_w_split_right_after_the_soh(self):
        c = Capture()
        w = md("MSFT", 4, ["100.75"])
        cut = soh_after(w, b"269=2\x01270=100.75") + 1  # the SOH is the last byte of segment 1
        f1 = c.rx(1000, w[:cut])
        c.rx(1400, w[cut:])
        c.tx(1800, nos("ORD1", "MSFT", 1, 3))
        doc, _, _ = self.analyze_json(c)
        r = self.order(doc, "ORD1")
        self.assertEqual(r["trigger_rx_seq"], 1)
        self.assertEqual(r["trigger_k"], HDR + cut - 1)
        self.assertEqual(r["trigger_k"], 54 + 168)
        self.assert_metrics(r, 1800 - (1000 + 8 + HDR + cut - 1), 1800 - Capture.eof({"sof": 1000, "data": f1}), 800)

    def test_out_of_order_segments_first_copy_of_the_soh(self):
        c = Capture()
        w = md("MSFT", 4, ["100.75"])
        cut = w.index(b"271=100", w.index(b"269=2"))
        base = c.rx_seq
        c.syn(500)                           # the handshake fixes where the stream starts
        c.rx(1000, w[cut:], seq=base + cut)  # the second half (without the 270 SOH) arrives first
        c.rx(1300, w[:cut], seq=base)        # the first half, with the SOH
        c.rx_seq = base + len(w)
        c.tx(1600, nos("ORD1", "MSFT", 1, 3))
        doc, _, _ = self.analyze_json(c)
        r = self.order(doc, "ORD1")
        self.assertEqual(r["trigger_rx_seq"], 3)
        self.assertEqual(r["trigger_k"], HDR + cut - 1)
        self.assertEqual(r["sof2sof_cycles"], 300)

    def test_several_messages_per_segment(self):
        c = Capture()
        wa, wm = md("AAPL", 5, ["150.25"]), md("MSFT", 6, ["100.5"])
        payload = heartbeat(4) + wa + wm
        f = c.rx(1000, payload)
        c.tx(1700, nos("A1", "AAPL", 2, 3) + nos("M1", "MSFT", 1, 4))  # two orders in one TX segment
        doc, _, _ = self.analyze_json(c)
        ka = HDR + soh_after(payload, b"270=150.25")
        km = HDR + soh_after(payload, b"269=2\x01270=100.5", payload.index(b"55=MSFT"))
        eof = Capture.eof({"sof": 1000, "data": f})
        self.assert_metrics(self.order(doc, "A1"), 1700 - 1008 - ka, 1700 - eof, 700)
        self.assert_metrics(self.order(doc, "M1"), 1700 - 1008 - km, 1700 - eof, 700)
        self.assertEqual(doc["meta"]["orders"], 2)

    def test_w_spanning_two_segments_with_other_messages(self):
        c = Capture()
        w1, w2 = md("MSFT", 4, ["100.5"]), md("MSFT", 5, ["101.25"])
        stream = heartbeat(3) + w1 + w2
        cut = stream.index(b"55=MSFT", len(heartbeat(3)) + len(w1))  # w2 starts in seg 1, price in seg 2
        c.rx(1000, stream[:cut])
        f2 = c.rx(2000, stream[cut:])
        c.tx(2500, nos("O", "MSFT", 1, 3))
        doc, _, _ = self.analyze_json(c)
        r = self.order(doc, "O")
        self.assertEqual(r["trigger_rx_seq"], 2)
        self.assertEqual(r["trigger_price"], "101.25")
        self.assertEqual(r["trigger_k"], soh_after(f2, b"270=101.25"))

    def test_retransmitted_w_first_copy_counts(self):
        c = Capture()
        w = md("MSFT", 4, ["100.5"])
        seq = c.rx_seq
        f = c.rx(1000, w)
        c.rx(3000, w, seq=seq)  # TCP retransmission of the same bytes
        c.tx(4000, nos("ORD1", "MSFT", 1, 3))
        doc, _, _ = self.analyze_json(c)
        r = self.order(doc, "ORD1")
        self.assertEqual(r["trigger_rx_seq"], 1)
        k = soh_after(f, b"269=2\x01270=100.5")
        self.assert_metrics(r, 4000 - 1008 - k, 4000 - Capture.eof({"sof": 1000, "data": f}), 3000)

    def test_retransmitted_d_counted_once(self):
        c = Capture()
        c.rx(1000, md("MSFT", 4, ["100.5"]))
        d = nos("ORD1", "MSFT", 1, 3)
        seq = c.tx_seq
        c.tx(1500, d)
        c.tx(5000, d, seq=seq)
        c.tx(6000, nos("ORD1", "MSFT", 1, 3, possdup=True))  # a FIX resend is not a new order either
        doc, out, err = self.analyze_json(c)
        self.assertEqual(len(doc["orders"]), 1)
        self.assertEqual(doc["orders"][0]["sof2sof_cycles"], 500)
        self.assertEqual(doc["meta"]["retransmitted_tx_segments"], 1)
        self.assertIn("PossDupFlag", err)

    def test_bad_fcs_rx_frame_is_no_trigger(self):
        c = Capture()
        c.rx(1000, md("MSFT", 4, ["100.5"]))
        c.rx(2000, md("MSFT", 5, ["101"]))
        c.frames[-1]["status"] = "bad-fcs"
        c.tx(2500, nos("ORD1", "MSFT", 1, 3))
        doc, _, _ = self.analyze_json(c)
        self.assertEqual(self.order(doc, "ORD1")["trigger_rx_seq"], 1)

    def test_bad_tcp_checksum_copy_is_no_trigger(self):
        # a W whose first copy arrives with a bad TCP checksum (the receiver drops it) and then its retransmission:
        # with --drop-bad-checksums (a wire capture) the retransmission is the trigger
        c = Capture()
        w = md("MSFT", 4, ["100.5"])
        seq = c.rx_seq
        bad = bytearray(c.rx(1000, w))
        bad[-1] ^= 1
        c.frames[-1]["data"] = bytes(bad)
        f = c.rx(3000, w, seq=seq)
        c.tx(4000, nos("ORD1", "MSFT", 1, 3))
        doc, _, err = self.analyze_json(c, "--drop-bad-checksums")
        r = self.order(doc, "ORD1")
        self.assertEqual(r["trigger_rx_seq"], 2)
        self.assertIn("bad TCP checksum", err)
        # without the option (a host's capture, checksums left to the NIC) the first copy's bytes are the stream's: its
        # W, corrupted, is no trade, and the order finds no trigger
        doc, _, err = self.analyze_json(c)
        self.assertIsNone(self.order(doc, "ORD1")["trigger_rx_seq"])
        self.assertEqual(r["trigger_k"], soh_after(f, b"269=2\x01270=100.5"))
        self.assertIn("bad TCP checksum", err)

    def test_negative_eof2sof(self):
        c = Capture()
        w = md("MSFT", 4, ["100.5"])
        payload = w + heartbeat(5) * 6  # a long frame: the order starts before it has ended
        f = c.rx(1000, payload)
        k = HDR + soh_after(payload, b"269=2\x01270=100.5")
        sof = 1000 + 8 + k + 30
        c.tx(sof, nos("HW1", "MSFT", 1, 3))
        eof = Capture.eof({"sof": 1000, "data": f})
        self.assertLess(sof + 8 + 60, eof)  # TX completes first: frame log rows not in pcap order
        doc, _, _ = self.analyze_json(c)
        r = self.order(doc, "HW1")
        self.assert_metrics(r, 30, sof - eof, sof - 1000)
        self.assertLess(r["eof2sof_cycles"], 0)

    def test_without_stops_last_trade_entry_of_most_recent_frame(self):
        c = Capture()
        c.rx(1000, md("MSFT", 4, ["100.5"]))
        payload = md("MSFT", 5, ["99.5", "100.7", "100.8"])
        f = c.rx(2000, payload)
        c.rx(3000, md("AAPL", 6, ["150"]))  # another symbol: not this order's trigger
        c.tx(3500, nos("O", "MSFT", 1, 3))
        doc, _, _ = self.analyze_json(c)
        r = self.order(doc, "O")
        self.assertEqual((r["trigger_rx_seq"], r["trigger_price"]), (2, "100.8"))
        self.assertEqual(r["trigger_k"], soh_after(f, b"270=100.8"))


class TestStops(Base):
    def build(self):
        c = Capture()
        self.f1 = c.rx(1000, md("MSFT", 4, ["100.6"]))   # crosses the buy stop 100.50
        self.f2 = c.rx(2000, md("MSFT", 5, ["100.00"]))  # crosses nothing
        self.f3 = c.rx(3000, md("MSFT", 6, ["98.5"]))    # crosses the sell stop 99
        c.tx(3400, nos("BUY1", "MSFT", 1, 3))
        c.tx(3750, nos("SELL1", "MSFT", 2, 4))
        p = md("MSFT", 7, ["99.5", "100.7", "100.8"])    # the first crossing entry counts
        self.f4 = c.rx(4000, p)
        c.tx(4400, nos("BUY2", "MSFT", 1, 5))
        c.tx(4700, nos("SELL2", "MSFT", 2, 6))           # 99.5 does not cross 99, and rx#3 fired SELL1 already
        stops = os.path.join(self.tmp, "stops.json")
        with open(stops, "w") as f:
            json.dump([{"symbol": "MSFT", "side": "buy", "stop": "100.50", "repeat": True},
                       {"symbol": "MSFT", "side": "sell", "stop": "99", "repeat": True}], f)
        return c, stops

    def test_buy_and_sell_stops(self):
        c, stops = self.build()
        doc, _, _ = self.analyze_json(c, "--stops", stops)
        b1, s1, b2, s2 = (self.order(doc, x) for x in ("BUY1", "SELL1", "BUY2", "SELL2"))
        self.assertEqual(b1["trigger_rx_seq"], 1)
        k1 = soh_after(self.f1, b"269=2\x01270=100.6")
        self.assert_metrics(b1, 3400 - 1008 - k1, 3400 - Capture.eof({"sof": 1000, "data": self.f1}), 2400)
        self.assertEqual(s1["trigger_rx_seq"], 3)
        k3 = soh_after(self.f3, b"270=98.5")
        self.assert_metrics(s1, 3750 - 3008 - k3, 3750 - Capture.eof({"sof": 3000, "data": self.f3}), 750)
        self.assertEqual((b2["trigger_rx_seq"], b2["trigger_price"]), (4, "100.7"))
        self.assertEqual(b2["trigger_k"], soh_after(self.f4, b"270=100.7"))
        self.assertEqual(b2["t2t_cycles"], 4400 - 4008 - b2["trigger_k"])
        # the old rule ("the latest crossing W before the order") gave SELL2 rx#3 again, the trade that fired SELL1
        self.assertIsNone(s2["trigger"])
        self.assertIn("no trade of MSFT crossing its sell stop(s) (99)", s2["no_trigger"])

    def test_same_capture_without_stops(self):
        c, _ = self.build()
        doc, _, _ = self.analyze_json(c)
        self.assertEqual(self.order(doc, "BUY1")["trigger_rx_seq"], 3)
        self.assertEqual(self.order(doc, "SELL2")["trigger_price"], "100.8")

    def test_no_stop_for_side(self):
        c = Capture()
        c.rx(1000, md("MSFT", 4, ["100.6"]))
        c.tx(1500, nos("S", "MSFT", 2, 3))
        stops = os.path.join(self.tmp, "stops.json")
        with open(stops, "w") as f:
            json.dump([{"symbol": "MSFT", "side": "buy", "stop": 100}], f)
        doc, out, _ = self.analyze_json(c, "--stops", stops)
        self.assertIsNone(self.order(doc, "S")["trigger"])
        self.assertIn("no sell stop for MSFT", out)

    def test_bad_stops_file(self):
        c = Capture()
        pcap, log = c.write(self.tmp)
        stops = os.path.join(self.tmp, "stops.json")
        with open(stops, "w") as f:
            json.dump([{"symbol": "MSFT", "side": "up", "stop": "1"}], f)
        rc, _, err = run(["--pcap", pcap, "--frames", log, "--stops", stops])
        self.assertEqual(rc, 2)
        self.assertIn("side must be buy or sell", err)


class TestRealTrigger(Base):
    """Issue 14: the order is paired with the trade that fired its stop (the first crossing after arming or the
    last fire), not with the latest crossing market data before the order. The layout of the `make demo` run:
    seven W in one coalesced TCP segment, the sell stop's trade 4th, a later message crossing again, the
    hardware's order starting after the segment's end (it sends only once the whole segment is verified)."""

    PRICES = ["1170.00", "1170.60", "1169.75", "1169.00", "1169.50", "1169.20", "1170.75"]
    # a synthetic order 13 cycles after the frame's end (the SoC's EOF2SOF until its MAC lost the TX CRC buffer; 12 now)
    EOF2SOF_HW = 13

    def build(self, repeat=False):
        c = Capture()
        self.ws = [md("MSFT", 10 + i, [p]) for i, p in enumerate(self.PRICES)]
        self.L = len(self.ws[0])
        self.assertTrue(all(len(w) == self.L for w in self.ws))  # prices of equal length: equal messages
        payload = b"".join(self.ws)
        self.s1 = c.rx(1000, payload)
        self.assertEqual(len(self.s1), HDR + 7 * self.L)
        self.eof1 = Capture.eof({"sof": 1000, "data": self.s1})
        # buy stop 1170.50: the 2nd message (1170.60) fires it; sell stop 1169.25: the 4th (1169.00), the 6th
        # (1169.20) crosses too. The engine sends the buy order at EOF+13 and the sell order right after it.
        a = c.tx(self.eof1 + self.EOF2SOF_HW, nos("A1", "MSFT", 1, 3, px="1171"))
        self.sof_a = self.eof1 + self.EOF2SOF_HW
        self.sof_b = Capture.eof({"sof": self.sof_a, "data": a}) + 16
        c.tx(self.sof_b, nos("B1", "MSFT", 2, 4, px="1169"))
        # the exchange's next segment, back to back with the first: its trade crosses the sell stop again
        # before the sell order starts (the old rule's pick)
        self.w2 = md("MSFT", 17, ["1169.10"])
        self.sof2 = self.eof1 + 13
        self.s2 = c.rx(self.sof2, self.w2)
        self.stops = os.path.join(self.tmp, "stops.json")
        with open(self.stops, "w") as f:
            json.dump([{"symbol": "MSFT", "side": "buy", "stop": "1170.50", "repeat": repeat},
                       {"symbol": "MSFT", "side": "sell", "stop": "1169.25", "repeat": repeat}], f)
        return c

    def k_of(self, n):
        """Frame offset of the SOH ending the n-th (1-based) message's trade price, from the bytes built here."""
        return HDR + (n - 1) * self.L + soh_after(self.ws[n - 1], b"269=2\x01270=" + self.PRICES[n - 1].encode())

    def console(self, lines):
        path = os.path.join(self.tmp, "soc.log")
        with open(path, "w") as f:
            f.write("tf> fix start\nmd: MSFT bid 1169.75 x 100 offer 1170.25 x 100 trade 1170.00 x 100\n")
            f.write("".join(l + "\n" for l in lines))
        return path

    def test_coalesced_segment_pairs_the_4th_message(self):
        c = self.build()
        doc, out, _ = self.analyze_json(c, "--stops", self.stops, "--path", "hw")
        a, b = self.order(doc, "A1"), self.order(doc, "B1")
        # by hand: the trade SOH is 170 bytes into each message (167 for "100.5" with 34=4; two more for
        # "1169.00", one more for the two-digit 34=1x); 186-byte messages
        self.assertEqual(self.L, 186)
        self.assertEqual(self.k_of(4), 54 + 3 * 186 + 170)
        self.assertEqual(self.k_of(2), 54 + 186 + 170)
        self.assertEqual(self.eof1, 1000 + 8 + 54 + 7 * 186 + 4 - 1)  # 2367
        self.assertEqual((b["trigger_rx_seq"], b["trigger_price"], b["trigger_msgseqnum"]), (1, "1169.00", "13"))
        self.assertEqual(b["trigger_k"], self.k_of(4))
        t2t_b = self.sof_b - (1000 + 8 + self.k_of(4))
        self.assert_metrics(b, t2t_b, self.sof_b - self.eof1, self.sof_b - 1000)
        # B1 starts 16 cycles after A1's last byte (a 212-byte frame): 2367 + 13 + (8 + 212 + 4 - 1) + 16 = 2619
        self.assertEqual(self.sof_b, 2619)
        self.assertEqual(t2t_b, 2619 - (1000 + 8 + 54 + 3 * 186 + 170))  # 829
        self.assertEqual((a["trigger_price"], a["trigger_k"]), ("1170.60", self.k_of(2)))
        self.assert_metrics(a, self.sof_a - (1008 + self.k_of(2)), self.EOF2SOF_HW, self.sof_a - 1000)
        self.assertEqual(a["t2t_cycles"], 2380 - (1000 + 8 + 54 + 186 + 170))  # 962
        # what the old rule gave: the next segment's crossing trade, 7 cycles before the order
        soh2 = self.sof2 + 8 + HDR + soh_after(self.w2, b"269=2\x01270=1169.10")
        self.assertEqual(self.sof_b - soh2, 7)
        self.assertIn("T2T 829", out)

    def test_fire_log_agrees(self):
        c = self.build()
        log = self.console([
            f"stop 0: fired by hardware on trade 1170.60: order 2 A1 sent, MsgSeqNum 3, {962 - FIRE_LOG_PIPE} cycles from the price to the MAC",
            f"tf> stop 1: fired by hardware on trade 1169.00: order 3 B1 sent, MsgSeqNum 4, {829 - FIRE_LOG_PIPE} cycles from the price to the MAC",
            "stop 5: fired by firmware on trade ?: order NOT sent (-1)"])  # no order on the wire
        doc, out, err = self.analyze_json(c, "--stops", self.stops, "--console", log, "--strict")
        self.assertNotIn("fire lines not in the capture", err)
        a, b = self.order(doc, "A1"), self.order(doc, "B1")
        self.assertEqual((a["check"], b["check"]), ("agrees", "agrees"))
        self.assertEqual((a["path"], a["path_from"], b["fire_stop"]), ("hw", "console", 1))
        self.assertEqual((a["fire_log_t2t_cycles"], b["fire_log_t2t_cycles"]), (962, 829))
        self.assertEqual(doc["meta"]["disagrees_with_fire_log"], 0)
        self.assertEqual(doc["meta"]["checked_against_fire_log"], 2)
        self.assertEqual(doc["hw"]["disagrees_with_fire_log"], 0)
        self.assertIn("2 order(s) checked, 0 disagree", out)

    def test_fire_log_offset_from_the_socs_header(self):
        # The simulation's SoC reads the lean tap: its fire log's stamp is 1 cycle after the RX pins, not 6, so the same
        # orders show counts 5 higher, and agree only with its header's OFFLOAD_RX_STAMP_TO_PINS
        c = self.build()
        lean = FIRE_LOG_PIPE - 5
        log = self.console([
            f"stop 0: fired by hardware on trade 1170.60: order 2 A1 sent, MsgSeqNum 3, {962 - lean} cycles from the price to the MAC",
            f"stop 1: fired by hardware on trade 1169.00: order 3 B1 sent, MsgSeqNum 4, {829 - lean} cycles from the price to the MAC"])
        hdr = os.path.join(self.tmp, "soc.h")
        with open(hdr, "w") as f:
            f.write("#define OFFLOAD_RX_LOG_SLOTS 15U\n#define OFFLOAD_RX_STAMP_TO_PINS         1U             /* lean */\n")
        doc, out, err = self.analyze_json(c, "--stops", self.stops, "--console", log, "--soc-header", hdr, "--strict")
        a, b = self.order(doc, "A1"), self.order(doc, "B1")
        self.assertEqual((a["check"], b["check"]), ("agrees", "agrees"))
        self.assertEqual((a["fire_log_t2t_cycles"], b["fire_log_t2t_cycles"]), (962, 829))
        self.assertEqual(doc["meta"]["hw_offset"], 4)
        doc, out, err = self.analyze_json(c, "--stops", self.stops, "--console", log)   # the default: LiteEth's stream
        self.assertEqual((self.order(doc, "A1")["check"], self.order(doc, "B1")["check"]), ("disagrees", "disagrees"))
        pcap, frames = c.write(self.tmp)
        rc, _, err = run(["--pcap", pcap, "--frames", frames, "--console", log, "--soc-header", hdr, "--hw-offset", "4"])
        self.assertEqual(rc, 2)
        self.assertIn("--hw-offset or --soc-header, not both", err)
        with open(hdr, "w") as f:
            f.write("#define OFFLOAD_RX_LOG_SLOTS 15U\n")
        rc, _, err = run(["--pcap", pcap, "--frames", frames, "--console", log, "--soc-header", hdr])
        self.assertEqual(rc, 2)
        self.assertIn("defines no OFFLOAD_RX_STAMP_TO_PINS", err)
        rc, _, err = run(["--pcap", pcap, "--frames", frames, "--console", log, "--soc-header", hdr + ".missing"])
        self.assertEqual(rc, 2)
        self.assertIn("cannot read SoC header", err)

    def test_fire_events_do_what_the_fire_lines_do(self):
        c = self.build()
        path = os.path.join(self.tmp, "events.jsonl")
        with open(path, "w") as f:  # as tfctl watch --json writes them, and as console machine lines
            f.write('{"ev":"stop.armed","seq":3,"stop":0}\n'
                    '{"ev":"stop.fired","seq":7,"stop":0,"by_hw":true,"trade":"1170.6","order":2,"clordid":"A1","msgseq":3,"cycles":%d}\n'
                    'not json\n'
                    '@{"ev":"stop.fired","seq":8,"stop":1,"by_hw":true,"trade":"1169","order":3,"clordid":"B1","msgseq":4,"cycles":%d}\n'
                    '{"ev":"stop.fired","seq":9,"stop":5,"by_hw":true,"trade":"1169","order":-1,"clordid":"","msgseq":0,"cycles":0}\n'
                    % (962 - FIRE_LOG_PIPE, 829 - FIRE_LOG_PIPE))
        doc, out, err = self.analyze_json(c, "--stops", self.stops, "--events", path, "--strict")
        a, b = self.order(doc, "A1"), self.order(doc, "B1")
        self.assertEqual((a["check"], b["check"]), ("agrees", "agrees"))
        self.assertEqual((a["path"], b["fire_stop"]), ("hw", 1))
        self.assertEqual((a["fire_log_t2t_cycles"], b["fire_log_t2t_cycles"]), (962, 829))
        self.assertEqual(doc["meta"]["disagrees_with_fire_log"], 0)
        self.assertIn("2 order(s) checked, 0 disagree", out)
        log = self.console([])
        pcap, frames = c.write(self.tmp)
        rc, _, err = run(["--pcap", pcap, "--frames", frames, "--events", path, "--console", log])
        self.assertEqual(rc, 2)
        self.assertIn("--console or --events", err)

    def test_fire_log_disagreement_is_reported(self):
        c = self.build()
        # the engine's count for B1 points 40 cycles after the 4th message's trade price, where no trade price ends:
        # the rule's pairing (the 4th) disagrees, and no other crossing trade explains the count
        cycles = 829 - FIRE_LOG_PIPE - 40
        soh = self.sof_b - cycles - FIRE_LOG_PIPE
        self.assertEqual(soh, 1000 + 8 + self.k_of(4) + 40)
        log = self.console([
            f"stop 0: fired by hardware on trade 1170.60: order 2 A1 sent, MsgSeqNum 3, {962 - FIRE_LOG_PIPE} cycles from the price to the MAC",
            f"stop 1: fired by hardware on trade 1169.00: order 3 B1 sent, MsgSeqNum 4, {cycles} cycles from the price to the MAC"])
        doc, out, err = self.analyze_json(c, "--stops", self.stops, "--console", log)
        b = self.order(doc, "B1")
        self.assertEqual(b["check"], "disagrees")
        self.assertEqual((b["t2t_cycles"], b["fire_log_t2t_cycles"]), (829, 789))  # kept in the records, flagged
        self.assertIn(f"the fire log's {cycles} cycles mean T2T 789, paired T2T 829", b["check_note"])
        self.assertIn(f"points to cycle {soh}, where no trade price ends", b["check_note"])
        self.assertIsNone(b["armed_from"])
        self.assertEqual(self.order(doc, "A1")["check"], "agrees")
        self.assertEqual(doc["meta"]["disagrees_with_fire_log"], 1)
        self.assertEqual(doc["meta"]["disagreeing_orders"], ["B1"])
        # not in the figures: the hardware's T2T is A1's alone, and the summary says which order is left out
        self.assertEqual(doc["hw"]["disagrees_with_fire_log"], 1)
        self.assertEqual(doc["hw"]["disagreeing_orders"], ["B1"])
        self.assertEqual(doc["hw"]["orders"], 2)
        self.assertEqual(doc["hw"]["t2t"]["count"], 1)
        self.assertEqual(doc["hw"]["t2t"]["cycles"]["max"], 962)
        self.assertIn("1 disagree", out)
        self.assertIn("PAIRING DISAGREES: order B1", out)
        self.assertIn("1 PAIRED AGAINST THE FIRE LOG (not in the figures: B1)", out)
        pcap, frames = c.write(self.tmp)
        rc, _, err = run(["--pcap", pcap, "--frames", frames, "--stops", self.stops, "--console", log, "--strict"])
        self.assertEqual(rc, 3)
        self.assertIn("1 pairing(s) disagree with the fire log", err)

    def test_stop_armed_late_in_the_segment(self):
        c = self.build()
        # the engine's count for B1 points at the 6th message (1169.20), a later trade crossing the same sell stop:
        # the stop's arming is not in the capture, and a hardware stop fires on the first crossing trade it sees
        # armed, so it was armed after the 4th; the fire log places the arm point, the price is still checked
        soh6 = 1000 + 8 + self.k_of(6)
        cycles = self.sof_b - soh6 - FIRE_LOG_PIPE
        self.assertEqual(cycles, 829 - FIRE_LOG_PIPE - 2 * 186)
        log = self.console([
            f"stop 0: fired by hardware on trade 1170.60: order 2 A1 sent, MsgSeqNum 3, {962 - FIRE_LOG_PIPE} cycles from the price to the MAC",
            f"stop 1: fired by hardware on trade 1169.20: order 3 B1 sent, MsgSeqNum 4, {cycles} cycles from the price to the MAC"])
        doc, out, _ = self.analyze_json(c, "--stops", self.stops, "--console", log, "--strict")
        b = self.order(doc, "B1")
        self.assertEqual((b["trigger_rx_seq"], b["trigger_k"], b["trigger_price"]), (1, self.k_of(6), "1169.20"))
        self.assertEqual(b["t2t_cycles"], 829 - 2 * 186)
        self.assertEqual((b["check"], b["armed_from"]), ("agrees", "fire log"))
        self.assertIn(f"armed after rx#1 k={self.k_of(4)} 270=1169.00", b["check_note"])
        self.assertIsNone(self.order(doc, "A1")["armed_from"])
        self.assertEqual(doc["meta"]["armed_from_fire_log"], ["B1"])
        self.assertEqual(doc["meta"]["disagrees_with_fire_log"], 0)
        self.assertIn("1 arm point(s) from the fire log (B1: a stop's first arming", out)
        self.assertIn("270=1169.20): T2T 457 EOF2SOF 252 SOF2SOF 1619 cycles [fire log agrees: T2T 457; ARM POINT FROM "
                      "THE FIRE LOG: the stop's arming is not in the capture", out)
        # a price that is not the 6th's: the fire log's count is no evidence then, the rule's pairing stands
        log = self.console([
            f"stop 1: fired by hardware on trade 1169.00: order 3 B1 sent, MsgSeqNum 4, {cycles} cycles from the price to the MAC"])
        doc, _, _ = self.analyze_json(c, "--stops", self.stops, "--console", log)
        b = self.order(doc, "B1")
        self.assertEqual((b["trigger_k"], b["check"], b["armed_from"]), (self.k_of(4), "disagrees", None))

    def test_fire_log_tolerance_and_price_only(self):
        c = self.build()
        for off, want in ((2, "agrees"), (3, "disagrees")):
            log = self.console([
                f"stop 0: fired by hardware on trade 1170.60: order 2 A1 sent, MsgSeqNum 3, {962 - FIRE_LOG_PIPE + off} cycles from the price to the MAC",
                "stop 1: fired by firmware on trade 1169.0: order 3 B1 sent"])  # firmware: price only (decimal compare)
            doc, _, _ = self.analyze_json(c, "--stops", self.stops, "--console", log)
            self.assertEqual((self.order(doc, "A1")["check"], self.order(doc, "B1")["check"]), (want, "agrees"))
            self.assertEqual(self.order(doc, "B1")["path"], "fw")
        log = self.console(["stop 1: fired by firmware on trade 1169.10: order 3 B1 sent"])
        doc, _, _ = self.analyze_json(c, "--stops", self.stops, "--console", log)
        self.assertEqual(self.order(doc, "B1")["check"], "disagrees")
        a = self.order(doc, "A1")  # no fire line: not a stop's order
        self.assertEqual((a["trigger"], a["check"]), (None, "unchecked"))
        self.assertIn("no fire line", a["no_trigger"])

    def test_repeat_firmware_fires_again_in_the_same_segment(self):
        c = self.build(repeat=True)
        c.tx(self.sof_b + 3000, nos("B2", "MSFT", 2, 5, px="1169"))  # firmware: re-armed at once, fires on the 6th
        doc, _, _ = self.analyze_json(c, "--stops", self.stops, "--path", "fw")
        self.assertEqual(self.order(doc, "B1")["trigger_k"], self.k_of(4))
        b2 = self.order(doc, "B2")
        self.assertEqual((b2["trigger_rx_seq"], b2["trigger_k"]), (1, self.k_of(6)))
        self.assertEqual(b2["t2t_cycles"], self.sof_b + 3000 - 1008 - self.k_of(6))

    def test_repeat_hardware_rearmed_after_its_order(self):
        c = self.build(repeat=True)
        # hardware: firmware loads the trigger entry again only after B1 left; the 6th message and the next
        # segment's trade (rx#2) crossed before that, so B2's trigger is the segment after B1 (rx#3)
        w3 = md("MSFT", 18, ["1169.15"])
        c.rx(self.sof_b + 1000, w3)
        sof = self.sof_b + 3000
        c.tx(sof, nos("B2", "MSFT", 2, 5, px="1169"))
        doc, _, _ = self.analyze_json(c, "--stops", self.stops, "--path", "hw")
        b2 = self.order(doc, "B2")
        k = HDR + soh_after(w3, b"269=2\x01270=1169.15")
        self.assertEqual(k, 54 + 170)
        self.assertEqual((b2["trigger_rx_seq"], b2["trigger_price"], b2["trigger_k"]), (3, "1169.15", k))
        self.assertEqual(b2["t2t_cycles"], 3000 - 1000 - 8 - 224)

    def test_one_shot_and_armed_after(self):
        c = self.build()
        c.rx(self.sof_b + 2000, md("MSFT", 18, ["1169.15"]))
        c.tx(self.sof_b + 3000, nos("B2", "MSFT", 2, 5, px="1169"))
        doc, _, _ = self.analyze_json(c, "--stops", self.stops)
        self.assertIn("fired already (one-shot", self.order(doc, "B2")["no_trigger"])
        with open(self.stops) as f:
            st = json.load(f)
        st.append({"symbol": "MSFT", "side": "sell", "stop": "1169.25", "armed_after": "B1"})  # a new stop, armed later
        with open(self.stops, "w") as f:
            json.dump(st, f)
        doc, _, _ = self.analyze_json(c, "--stops", self.stops)
        b2 = self.order(doc, "B2")
        self.assertEqual((b2["trigger_rx_seq"], b2["trigger_price"]), (3, "1169.15"))  # not rx#2, before B1 left
        self.assertEqual(self.order(doc, "B1")["trigger_price"], "1169.00")
        st[-1]["armed_after"] = "NOPE"
        with open(self.stops, "w") as f:
            json.dump(st, f)
        pcap, frames = c.write(self.tmp)
        rc, _, err = run(["--pcap", pcap, "--frames", frames, "--stops", self.stops])
        self.assertEqual(rc, 2)
        self.assertIn("armed_after 'NOPE' is not an order", err)

    def test_bad_console_log(self):
        c = self.build()
        pcap, frames = c.write(self.tmp)
        log = self.console(["stop 0: fired by hardware on trade 1170.60: order 2 A1 sent",
                            "stop 0: fired by hardware on trade 1170.60: order 2 A1 sent"])
        rc, _, err = run(["--pcap", pcap, "--frames", frames, "--stops", self.stops, "--console", log])
        self.assertEqual(rc, 2)
        self.assertIn("ClOrdID A1 fired twice", err)
        rc, _, err = run(["--pcap", pcap, "--frames", frames, "--console", os.path.join(self.tmp, "none.log")])
        self.assertEqual(rc, 2)
        self.assertIn("cannot read console log", err)


class TestArming(Base):
    """The whole-SoC bench's layout (tools/bench/soc_latency.py): one W a step, its trade crossing the buy stop
    (100.15) and the sell stop (99.85) in turn, each step ended by a TestRequest the SoC answers before the next step.
    The bench arms its stops from the console while the market already moves, so a trade crosses a stop before the
    stop is armed; the capture does not show the arming."""

    BUY, SELL = "100.15", "99.85"

    def stops_file(self):
        path = os.path.join(self.tmp, "stops.json")
        with open(path, "w") as f:
            json.dump([{"symbol": "MSFT", "side": "buy", "stop": "100.10", "repeat": True},
                       {"symbol": "MSFT", "side": "sell", "stop": "99.90", "repeat": True}], f)
        return path

    def console(self, fires):
        """fires: (stop, ClOrdID, trade, cycles or None): the firmware's fire lines (fw/app/stops.c)."""
        path = os.path.join(self.tmp, "soc.log")
        with open(path, "w") as f:
            f.write("tf> stop buy MSFT 100 100.10 100.40 repeat\n")
            for n, (stop, cid, trade, cycles) in enumerate(fires):
                by = "hardware" if cycles is not None else "firmware"
                tail = f", MsgSeqNum {4 + 2 * n}, {cycles} cycles from the price to the MAC" if cycles is not None else ""
                f.write(f"stop {stop}: fired by {by} on trade {trade}: order {n} {cid} sent{tail}\n")
        return path

    def hw_step(self, c, sof, seqnum, price, order=None, rx_seq=None):
        """One step: the W at sof; with order (ClOrdID, side), the engine's order at the W's EOF + 13. Returns
        (the W's frame, the order's SOF, the T2T by hand: the 15 bytes after the price's SOH, the 4 FCS bytes,
        EOF2SOF 13)."""
        w = md("MSFT", seqnum, [price])
        f = c.rx(sof, w)
        soh = sof + 8 + HDR + soh_after(w, b"269=2\x01270=" + price.encode())
        self.assertEqual(len(w) - 1 - soh_after(w, b"269=2\x01270=" + price.encode()), len("271=100\x0110=000\x01"))
        if order is None:
            return f, None, None
        o = Capture.eof({"sof": sof, "data": f}) + 13
        c.tx(o, nos(order[0], "MSFT", order[1], seqnum, px="100.4" if order[1] == 1 else "99.6"))
        self.assertEqual(o - soh, 15 + 4 + 13)
        return f, o, o - soh

    def test_hw_stop_armed_after_a_crossing_trade(self):
        # the smoke run's TTP57D2-1: rx#1 crosses the buy stop before it is armed (no order), rx#2 fires the sell
        # stop, rx#3 the buy stop. The rule alone (armed at the capture's start) paired B1 with rx#1.
        c = Capture()
        self.hw_step(c, 1000, 3, self.BUY)
        _, _, t2t_s = self.hw_step(c, 40_000, 5, self.SELL, ("S1", 2))
        _, sof_b, t2t_b = self.hw_step(c, 80_000, 10, self.BUY, ("B1", 1))
        self.assertEqual((t2t_s, t2t_b), (32, 32))
        log = self.console([(1, "S1", self.SELL, t2t_s - FIRE_LOG_PIPE), (0, "B1", self.BUY, t2t_b - FIRE_LOG_PIPE)])
        doc, out, _ = self.analyze_json(c, "--stops", self.stops_file(), "--console", log, "--strict")
        b, s = self.order(doc, "B1"), self.order(doc, "S1")
        self.assertEqual((b["trigger_rx_seq"], b["trigger_msgseqnum"], b["t2t_cycles"]), (3, "10", 32))
        self.assertEqual((b["check"], b["armed_from"]), ("agrees", "fire log"))
        self.assertEqual((s["trigger_rx_seq"], s["t2t_cycles"], s["check"], s["armed_from"]), (2, 32, "agrees", None))
        self.assertEqual(doc["hw"]["t2t"]["cycles"], {"min": 32, "median": 32, "max": 32, "mean": 32})
        self.assertEqual(doc["meta"]["disagrees_with_fire_log"], 0)
        self.assertEqual(doc["meta"]["armed_from_fire_log"], ["B1"])
        # without the fire log there is nothing to say the stop was armed late: the rule's pairing is rx#1
        doc, _, _ = self.analyze_json(c, "--stops", self.stops_file(), "--path", "hw")
        b = self.order(doc, "B1")
        self.assertEqual((b["trigger_rx_seq"], b["t2t_cycles"]), (1, sof_b - (1000 + 8 + HDR + soh_after(
            md("MSFT", 3, [self.BUY]), b"269=2\x01270=100.15"))))

    def test_a_rearmed_stop_is_checked_not_repaired(self):
        # B1 fired; the stop is armed again once B1 went out (firmware reloads the entry), so rx#3 is the next
        # crossing trade. A fire log pointing at rx#4 disagrees: reported, left out of the figures, never re-paired.
        c = Capture()
        _, _, t2t_1 = self.hw_step(c, 1000, 3, self.BUY, ("B1", 1))
        self.hw_step(c, 40_000, 5, self.BUY)
        _, sof_2, t2t_2 = self.hw_step(c, 80_000, 7, self.BUY, ("B2", 1))
        log = self.console([(0, "B1", self.BUY, t2t_1 - FIRE_LOG_PIPE), (0, "B2", self.BUY, t2t_2 - FIRE_LOG_PIPE)])
        doc, out, _ = self.analyze_json(c, "--stops", self.stops_file(), "--console", log)
        b1, b2 = self.order(doc, "B1"), self.order(doc, "B2")
        self.assertEqual((b1["trigger_rx_seq"], b1["check"]), (1, "agrees"))
        self.assertEqual((b2["trigger_rx_seq"], b2["check"], b2["armed_from"]), (2, "disagrees", None))
        self.assertEqual(b2["t2t_cycles"], sof_2 - (40_000 + 8 + HDR + soh_after(md("MSFT", 5, [self.BUY]),
                                                                                 b"269=2\x01270=100.15")))
        self.assertIn("points to rx#3", b2["check_note"])
        self.assertEqual(doc["hw"]["disagreeing_orders"], ["B2"])
        self.assertEqual((doc["hw"]["t2t"]["count"], doc["hw"]["t2t"]["cycles"]["max"]), (1, 32))

    def test_fw_stop_armed_after_a_trade_firmware_had_handled(self):
        # firmware fires while it handles the W and sends the order before it handles the next message, so an
        # order's trigger comes after every TestRequest the firmware answered before the order. Step 1 crosses the
        # buy stop before it is armed (answered, no order); steps 2 and 3 fire it, each order long after its W
        # (firmware latency), but before the Heartbeat of its step.
        c = Capture()
        rx_sof = {}
        tx = []
        for n, sof in enumerate((1000, 100_000, 200_000), start=1):
            w = md("MSFT", 10 * n, [self.BUY])
            c.rx(sof, w)
            rx_sof[n] = (sof, soh_after(w, b"269=2\x01270=100.15"))
            c.rx(sof + 1000, test_request(10 * n + 1, f"STEP-{n}"))
            if n > 1:
                tx.append((sof + 60_000, nos(f"F{n - 1}", "MSFT", 1, 10 * n)))
            tx.append((sof + 61_000, heartbeat_answer(10 * n + 1, f"STEP-{n}")))
        for sof, payload in tx:  # the SoC's stream in the order firmware wrote it
            c.tx(sof, payload)
        doc, out, _ = self.analyze_json(c, "--stops", self.stops_file(), "--path", "fw")
        f1, f2 = self.order(doc, "F1"), self.order(doc, "F2")
        # rx#1 W1, rx#2 TestRequest 1, rx#3 W2, ...
        self.assertEqual((f1["trigger_rx_seq"], f1["trigger_msgseqnum"]), (3, "20"))
        self.assertEqual(f1["t2t_cycles"], 160_000 - (100_000 + 8 + HDR + rx_sof[2][1]))
        self.assertEqual(f1["answered_before"], "rx#2 112=STEP-1")
        self.assertEqual((f2["trigger_rx_seq"], f2["trigger_msgseqnum"]), (5, "30"))  # not W2 again: one step each
        self.assertEqual(f2["t2t_cycles"], 260_000 - (200_000 + 8 + HDR + rx_sof[3][1]))
        self.assertEqual(doc["fw"]["t2t"]["cycles"]["max"], 60_000 - 8 - HDR - rx_sof[2][1])
        # an order that no trade after the last answered TestRequest explains has no trigger, said why
        c2 = Capture()
        c2.rx(1000, md("MSFT", 10, [self.BUY]))
        c2.rx(2000, test_request(11, "STEP-1"))
        c2.tx(30_000, heartbeat_answer(11, "STEP-1"))
        c2.tx(40_000, nos("F9", "MSFT", 1, 12))
        doc, _, _ = self.analyze_json(c2, "--stops", self.stops_file(), "--path", "fw")
        f9 = self.order(doc, "F9")
        self.assertIsNone(f9["trigger"])
        self.assertIn("firmware answered rx#2 112=STEP-1 before this order", f9["no_trigger"])


class TestNoTrigger(Base):
    def build(self):
        c = Capture()
        c.rx(1000, md("MSFT", 4, ["100.5"]))
        c.tx(1500, nos("OK1", "MSFT", 1, 3))
        c.tx(1900, nos("LOST", "ZZZ", 1, 4))
        c.tx(2300, nos("EARLY", "AAPL", 1, 5))
        c.rx(2700, md("AAPL", 5, ["150"]))  # after the order: not its trigger
        return c

    def test_counted_and_reported(self):
        doc, out, err = self.analyze_json(self.build(), "--path", "hw")
        self.assertEqual(doc["meta"]["without_trigger"], 2)
        self.assertEqual(doc["hw"]["orders"], 3)
        self.assertEqual(doc["hw"]["without_trigger"], 2)
        self.assertEqual(doc["hw"]["t2t"]["count"], 1)
        self.assertIsNone(self.order(doc, "LOST")["t2t_cycles"])
        self.assertIn("NO TRIGGER", out)
        self.assertIn("2 order(s) WITHOUT TRIGGER", out)
        self.assertIn("LOST", out.split("WITHOUT TRIGGER")[-1])
        self.assertIn("EARLY", out.split("WITHOUT TRIGGER")[-1])

    def test_strict(self):
        pcap, log = self.build().write(self.tmp)
        rc, _, err = run(["--pcap", pcap, "--frames", log, "--strict", "--quiet"])
        self.assertEqual(rc, 3)
        self.assertIn("without trigger", err)


class TestInputs(Base):
    def simple(self):
        c = Capture()
        c.rx(1000, md("MSFT", 4, ["100.5"]))
        c.tx(1500, nos("ORD1", "MSFT", 1, 3))
        return c

    def test_unreadable_pcap(self):
        rc, _, err = run(["--pcap", os.path.join(self.tmp, "nope.pcap"), "--frames", "x.csv"])
        self.assertEqual(rc, 2)
        self.assertIn("cannot read pcap", err)
        junk = os.path.join(self.tmp, "junk.pcap")
        with open(junk, "wb") as f:
            f.write(b"this is not a pcap file at all")
        rc, _, err = run(["--pcap", junk, "--dump"])
        self.assertEqual(rc, 2)
        self.assertIn("not a pcap file", err)
        with open(junk, "wb") as f:
            f.write(b"\x0a\x0d\x0d\x0a" + bytes(40))
        rc, _, err = run(["--pcap", junk, "--dump"])
        self.assertIn("pcapng", err)

    def test_frame_log_missing_row(self):
        pcap, log = self.simple().write(self.tmp, drop_row=("rx", 1))
        rc, _, err = run(["--pcap", pcap, "--frames", log])
        self.assertEqual(rc, 2)
        self.assertIn("do not match", err)

    def test_frame_log_from_another_run(self):
        pcap, log = self.simple().write(self.tmp)
        other = Capture()
        other.rx(1000, md("MSFT", 4, ["100.5"]))
        other.tx(1504, nos("ORD1", "MSFT", 1, 3))
        _p2, log2 = other.write(self.tmp, name="other")
        rc, _, err = run(["--pcap", pcap, "--frames", log2])
        self.assertEqual(rc, 2)
        self.assertIn("do not match", err)

    def test_frames_required_for_latency(self):
        pcap, _ = self.simple().write(self.tmp)
        rc, _, err = run(["--pcap", pcap])
        self.assertEqual(rc, 2)
        self.assertIn("--frames", err)

    def test_not_a_frame_log(self):
        pcap, _ = self.simple().write(self.tmp)
        bad = os.path.join(self.tmp, "bad.csv")
        with open(bad, "w") as f:
            f.write("a,b,c\n1,2,3\n")
        rc, _, err = run(["--pcap", pcap, "--frames", bad])
        self.assertEqual(rc, 2)
        self.assertIn("not a frame log", err)


class TestPathsAndOutputs(Base):
    def build(self):
        c = Capture()
        self.t = []
        for i, (gap, sym) in enumerate([(100, "MSFT"), (140, "MSFT"), (20000, "MSFT"), (120, "MSFT")]):
            base = 1000 + i * 50000
            w = md(sym, 4 + i, ["100.5"])
            c.rx(base, w)
            k = HDR + soh_after(w, b"269=2\x01270=100.5")
            c.tx(base + 8 + k + gap, nos(f"C{i}", sym, 1, 3 + i))
            self.t.append(gap)
        return c

    def test_fires_csv_and_summary(self):
        c = self.build()
        fires = os.path.join(self.tmp, "fires.csv")
        with open(fires, "w") as f:
            f.write("clordid,path\nC0,hw\nC1,hw\nC2,fw\nC3,hw\n")
        doc, out, _ = self.analyze_json(c, "--fires", fires, "--quiet")
        self.assertEqual([r["path"] for r in doc["orders"]], ["hw", "hw", "fw", "hw"])
        self.assertEqual([r["t2t_cycles"] for r in doc["orders"]], self.t)
        hw = doc["hw"]["t2t"]
        self.assertEqual(hw["count"], 3)
        self.assertEqual(hw["cycles"], {"min": 100, "median": 120, "max": 140, "mean": 120.0})
        self.assertEqual(hw["ns"], {"min": 800.0, "median": 960.0, "max": 1120.0, "mean": 960.0})
        self.assertEqual(doc["fw"]["t2t"]["cycles"]["min"], 20000)
        self.assertEqual(doc["fw"]["sof2sof"]["count"], 1)
        self.assertNotIn("unknown", doc)
        self.assertNotIn("order 11=", out)  # --quiet
        self.assertIn("T2T", out)

    def test_fires_json_wins_over_path_and_clock(self):
        c = self.build()
        fires = os.path.join(self.tmp, "fires.json")
        with open(fires, "w") as f:
            json.dump([{"clordid": "C2", "path": "fw"}], f)
        doc, _, _ = self.analyze_json(c, "--fires", fires, "--path", "hw", "--clock-mhz", "100")
        self.assertEqual(doc["hw"]["t2t"]["count"], 3)
        self.assertEqual(doc["fw"]["t2t"]["ns"]["max"], 200000.0)
        self.assertEqual(doc["hw"]["t2t"]["ns"]["min"], 1000.0)
        self.assertEqual(doc["meta"]["clock_mhz"], 100.0)

    def test_unknown_path_without_labels(self):
        doc, out, _ = self.analyze_json(self.build())
        self.assertEqual(doc["hw"]["orders"], 0)
        self.assertIsNone(doc["hw"]["t2t"]["cycles"]["min"])
        self.assertEqual(doc["unknown"]["t2t"]["count"], 4)
        self.assertEqual(doc["unknown"]["t2t"]["cycles"]["median"], 130)  # (120 + 140) / 2

    def test_csv(self):
        c = self.build()
        pcap, log = c.write(self.tmp)
        out_csv = os.path.join(self.tmp, "o.csv")
        rc, _, _ = run(["--pcap", pcap, "--frames", log, "--csv", out_csv, "--path", "fw", "--quiet"])
        self.assertEqual(rc, 0)
        import csv
        with open(out_csv) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([int(r["t2t_cycles"]) for r in rows], self.t)
        self.assertEqual(rows[0]["path"], "fw")

    def test_plot(self):
        c = self.build()
        pcap, log = c.write(self.tmp)
        fires = os.path.join(self.tmp, "fires.csv")
        with open(fires, "w") as f:
            f.write("C2,fw\n")
        png = os.path.join(self.tmp, "h.png")
        args = ["--pcap", pcap, "--frames", log, "--plot", png, "--path", "hw", "--fires", fires, "--quiet"]
        try:
            import matplotlib  # noqa: F401
            rc, _, err = run(args)
        except ImportError:
            venv = os.path.expanduser("~/.cache/triggerfish/venv/bin/python")
            if not os.path.exists(venv):
                self.skipTest("no matplotlib")
            p = subprocess.run([venv, os.path.join(HERE, "analyze.py")] + args, capture_output=True, text=True)
            rc, err = p.returncode, p.stderr
        self.assertEqual(rc, 0, err)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


class TestSummaryImport(unittest.TestCase):
    def test_summarize_records(self):
        recs = [{"path": "hw", "t2t_cycles": 10, "eof2sof_cycles": -5, "sof2sof_cycles": 200},
                {"path": "hw", "t2t_cycles": 13, "eof2sof_cycles": -2, "sof2sof_cycles": 203},
                {"path": "fw", "t2t_cycles": None, "eof2sof_cycles": None, "sof2sof_cycles": None},
                {"path": "lab", "t2t_cycles": 1, "eof2sof_cycles": 1, "sof2sof_cycles": 1}]
        s = analyze.summarize(recs, clock_mhz=50)
        self.assertEqual(s["hw"]["t2t"]["cycles"], {"min": 10, "median": 11.5, "max": 13, "mean": 11.5})
        self.assertEqual(s["hw"]["eof2sof"]["ns"]["min"], -100.0)
        self.assertEqual((s["fw"]["orders"], s["fw"]["without_trigger"], s["fw"]["t2t"]["count"]), (1, 1, 0))
        self.assertIn("lab", s)
        text = analyze.format_summary(s, 50)
        self.assertIn("EOF2SOF", text)
        self.assertIn("WITHOUT TRIGGER", text)


class TestDump(Base):
    def test_dump_synthetic(self):
        c = Capture()
        w = md("MSFT", 4, ["100.5"])
        c.rx(1000, w[:100])
        c.rx(1300, w[100:])
        c.tx(1600, nos("ORD1", "MSFT", 1, 3))
        pcap, log = c.write(self.tmp)
        rc, out, _ = run(["--pcap", pcap, "--dump"])  # direction from the MAC address
        self.assertEqual(rc, 0)
        self.assertIn("FIX W", out)
        self.assertIn("continues to rx#2", out)
        self.assertIn("tx#3", out)
        self.assertIn("11=ORD1", out)
        rc, out, _ = run(["--pcap", pcap, "--frames", log, "--dump"])
        self.assertIn("tx#1", out)


@unittest.skipUnless(os.path.exists(os.path.join(REAL, "eth-latency.frames.csv")),
                     f"no whole-SoC test output in {REAL}: `make test` writes it (needs the Verilator SoC model)")
class TestRealHarnessOutput(unittest.TestCase):
    """The harness's own pcap + frame log (build/sim/tests, from `make test`) match as assumed."""

    def test_eth_latency_pair(self):
        w = analyze.Warnings()
        res, recs = analyze.read_pcap(os.path.join(REAL, "eth-latency.pcap"), w)
        rows = analyze.read_frame_log(os.path.join(REAL, "eth-latency.frames.csv"))
        frames = analyze.match_frames(res, recs, rows, "p", "f")
        self.assertEqual(res, "ns")
        self.assertEqual(analyze.check_clock(frames, w), 8.0)
        self.assertEqual(w.items, [])
        for f in frames:
            self.assertEqual(f.sof_ns, f.sof_cycle * 8 + 4)

    @unittest.skipUnless(os.path.exists(os.path.join(REAL, "fix-session.pcap")),
                         f"no fix-session.pcap in {REAL}: `make test` as root writes it (network namespace, exchange)")
    def test_fix_session_dump(self):
        rc, out, err = run(["--pcap", os.path.join(REAL, "fix-session.pcap"), "--dump"])
        self.assertEqual(rc, 0, err)
        self.assertIn("FIX D", out)
        self.assertIn("FIX W", out)
        self.assertNotIn("BAD CheckSum", out)


if __name__ == "__main__":
    unittest.main()
