"""Tests for tools/bench/bench.py and soc_latency.py's report figures.

- the clock: which ECP5 build confirms the clock the report's ns are computed at (board summaries written here
  the way tools/fpga-report.py writes them);
- the whole SoC: how the console's lines label each order (hw, fw) and how the order engine's counters (the
  `offload` command) give the hardware phase's fires that sent no order and issue 15's target (console lines as
  fw/app/stops.c and fw/app/offload.c print them), and the per-path figures
  from analyze.py's per-order records;
- the Linux baseline's and the datapath's aggregates in report.json and report.md;
- `bench.py --report-only` on a previous run's files.

Run from the repository root:  python3 -m unittest tools/bench/test_bench.py  (the project venv: matplotlib)
"""
import contextlib
import io
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402
import soc_latency  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "latency"))
import test_analyze  # noqa: E402  (its synthetic capture builders)


def summary(offload="yes", met=(True, True), pnr=True, config=True):
    s = {"family": "ecp5", "title": "Colorlight i5", "pnr": pnr, "timing_met": all(met),
         "clocks": {"sys": {"achieved_mhz": 45.0, "required_mhz": 37.5, "met": True},
                    "eth_tx": {"achieved_mhz": 131.2 if met[0] else 118.0, "required_mhz": 125, "met": met[0]},
                    "eth_rx": {"achieved_mhz": 129.9 if met[1] else 121.0, "required_mhz": 125, "met": met[1]}}}
    if config:
        s["config"] = {"board": "colorlight-i5", "commit": "abcdef12", "offload": offload, "offload_entries": "32"}
    return s


class BoardClock(unittest.TestCase):
    def clock(self, s):
        with tempfile.TemporaryDirectory() as d:
            if s is not None:
                os.makedirs(os.path.join(d, "colorlight-i5"))
                with open(os.path.join(d, "colorlight-i5", "summary.json"), "w") as f:
                    json.dump(s, f)
            bc = bench.board_clock("colorlight-i5", d)
            return bc, bench.clock_note(bc)

    def test_build_with_the_offload_meeting_125_confirms_the_clock(self):
        bc, note = self.clock(summary())
        self.assertTrue(bc["with_offload_and_met"])
        self.assertEqual(bc["commit"], "abcdef12")
        self.assertIn("meets it: eth_tx 131.2 MHz, eth_rx 129.9 MHz achieved", note)

    def test_build_without_the_offload_does_not(self):
        bc, note = self.clock(summary(offload="no"))
        self.assertFalse(bc["with_offload_and_met"])
        self.assertIn("does NOT confirm", note)

    def test_a_domain_missing_125_does_not(self):
        for met in ((False, True), (True, False)):
            bc, note = self.clock(summary(met=met))
            self.assertFalse(bc["with_offload_and_met"], met)
            self.assertIn("does NOT confirm", note)

    def test_synthesis_only_or_no_build_says_so(self):
        for s in (None, summary(pnr=False)):
            bc, note = self.clock(s)
            self.assertIsNone(bc)
            self.assertIn("no ECP5 build was found", note)

    def test_build_from_before_the_config_was_recorded(self):
        bc, note = self.clock(summary(config=False))
        self.assertFalse(bc["with_offload_and_met"])
        self.assertIn("older than the record of its configuration", note)


class TextHistogram(unittest.TestCase):
    def test_power_of_two_bins_with_counts_per_path(self):
        recs = ([{"path": "hw", "t2t_cycles": 31}] * 10 + [{"path": "fw", "t2t_cycles": 70000}] * 3
                + [{"path": "fw", "t2t_cycles": 140000}] * 6 + [{"path": "fw", "t2t_cycles": None}])
        lines = bench.text_histogram(recs, "t2t", width=12)
        self.assertIn("hw (n=10)", lines[0])
        self.assertIn("fw (n=9)", lines[0])           # the order without a trigger is not counted
        self.assertEqual(len(lines), 4)               # 16..31, 65,536..131,071, 131,072..262,143
        self.assertTrue(lines[1].lstrip().startswith("16..31"))
        self.assertTrue(lines[1].rstrip().endswith("10"))
        self.assertIn("#" * 12, lines[1])             # the largest bin gets the whole width
        self.assertTrue(lines[2].rstrip().endswith("3") and "65,536..131,071" in lines[2])
        self.assertIn("#" * 7, lines[3])              # 6 of 10 -> 7 of 12 (rounded)

    def test_no_orders_no_lines(self):
        self.assertEqual(bench.text_histogram([], "t2t"), [])



# ---- the whole SoC's console, as the firmware prints it (fw/app/stops.c, fw/app/offload.c) -------------------------
def armed(i, hw, side="buy"):
    stop, limit = ("100.10", "100.40") if side == "buy" else ("99.90", "99.60")
    return f"stop {i}: armed {side} MSFT 100, stop {stop} limit {limit} ({'hardware' if hw else 'firmware'}, repeating)"


def hw_fire(i, idx, cid, px="100.15"):
    return (f"stop {i}: fired by hardware on trade {px}: order {idx} {cid} sent, MsgSeqNum {idx + 3}, 32 cycles from "
            "the price to the MAC")


def fw_fire(i, idx, cid, px="100.15"):
    return f"stop {i}: fired by firmware on trade {px}: order {idx} {cid} sent"


def offload_lines(fires, sent, logged_not_sent=0, ignored=0, not_armed=0, log_drops=0, rx_overflow=0, errors=0,
                  late_cancels=0, orders_sent=None):
    """The `offload` command's lines (fw/app/offload.c cmd_offload), as a console shows them after the command."""
    return ["tf> offload",
            "offload: on the connection, engine owns the connection's numbers, stops loaded 0x0003, armed 0x0003",
            f"offload: orders sent by hardware {sent if orders_sent is None else orders_sent}, triggered but not sent "
            f"{logged_not_sent}, errors {errors}, late cancels {late_cancels}",
            f"offload: this connection's fires of the trigger table {fires}: sent {sent}, logged not sent {logged_not_sent}, "
            f"ignored {ignored}, template not armed {not_armed}, log full {log_drops}, fire queue full {rx_overflow}",
            "offload: parser resynchronised 0 times; firmware frames sent by the engine 40 (2990 bytes), ring full 0 times",
            "offload: trade price SOH on the parser -> order byte 0 at the MAC: min 32 avg 32 max 32 cycles"]


HW_IDS = [f"TA-{k}" for k in range(1, 9)]        # 8 orders the engine sent
FW_IDS = ["TA-20", "TA-21", "TA-22", "TA-23"]     # 4 orders of the firmware-only phase
EVERY_FIRE_SENT = dict(fires=8, sent=8)


def console_log(counter=EVERY_FIRE_SENT, end_counter="same"):
    """A two-phase run: 8 hardware fires (one untracked: the order table was full), `offload` at the end of the
    hardware phase (counter: offload_lines' figures, None: no such lines), then 4 firmware fires (and one whose order
    firmware could not send) and `offload` again at the end of the run (end_counter: "same" as counter, or None)."""
    L = ["SELFTEST PASS", "fix: logged on to EXCH as TFISH1 (heartbeat 5 s, next out 2, next in 2)",
         "tf> new stops go to the hardware", armed(0, True), "stop 0: in the hardware trigger table (order TA-1, 143 bytes)",
         armed(1, True, "sell"), "stop 1: in the hardware trigger table (order TA-2, 143 bytes)"]
    for k, cid in enumerate(HW_IDS[:7]):
        L.append(hw_fire(k % 2, k, cid, "100.15" if k % 2 == 0 else "99.85"))
    L += [# the order table was full: on the wire all the same, the engine sent it
          "stop 0: fired by hardware on trade 100.15: order TA-8 sent, not tracked (order table: -3), MsgSeqNum 12, "
          "32 cycles from the price to the MAC",
          "stop 0: canceled", "stop 1: canceled"]
    if counter is not None:
        L += offload_lines(**counter)
    L += ["tf> stop mode fw", "new stops go to the firmware", armed(2, False), armed(3, False, "sell"),
          fw_fire(2, 20, "TA-20"), fw_fire(3, 21, "TA-21", "99.85"), fw_fire(2, 22, "TA-22"),
          "stop 3: fired by firmware on trade 99.85: order NOT sent (-5)",
          "tf> stop canstop 3: fired by firmware on trade 99.85: order 23 TA-23 sent",   # a fire amid the echo
          "stop 2: canceled", "stop 3: canceled"]
    end_counter = counter if end_counter == "same" else end_counter
    if end_counter is not None:
        L += offload_lines(**end_counter)
    return L


def hw_run(fires, counter):
    """A hardware phase of `fires` engine orders from two stops and the `offload` lines of counter."""
    return ([armed(0, True), armed(1, True, "sell")] + [hw_fire(k % 2, k, f"T-{k}") for k in range(fires)]
            + offload_lines(**counter))


def fw_printf_formats(path):
    """The format strings of the printf calls of a firmware source (adjacent literals joined)."""
    with open(path) as f:
        src = f.read()
    lit = r'"(?:[^"\\]|\\.)*"'
    return ["".join(x[1:-1] for x in re.findall(lit, m.group(1))).replace("\\n", "")
            for m in re.finditer(r"printf\(((?:\s*" + lit + r")+)", src)]


class EarlyRows(unittest.TestCase):
    """report.md's early-fire table from datapath.json's "early" (DatapathBench part 3), written the way
    DatapathBench.earlyJ writes it."""
    @staticmethod
    def row(layout, mode, fires, early, t2t_early, t2t, tap="lean"):
        st = lambda lo, hi, n: {"min": lo, "avg": (lo + hi) / 2, "max": hi, "median": lo, "count": n}
        return {"layout": layout, "mode": mode, "tap": tap, "fires": fires, "early_fires": early, "poisoned": 0, "missed": 0,
                "false": 0, "orders_byte_exact": True, "t2t_early_cycles": st(*t2t_early, early),
                "t2t_cycles": st(*t2t, fires), "eof2sof_cycles": st(12, 12, fires)}

    def test_a_row_per_layout_and_mode_and_the_corruption_line(self):
        e = {"note": "n", "rows": [self.row("paper", "early", 1001, 1001, (19, 19), (19, 19)),
                                    self.row("paper", "safe", 1001, 0, (0, 0), (29, 31)),
                                    self.row("paper", "early", 1001, 1001, (24, 24), (24, 24), tap="LiteEth")],
             "corruption": {"crossings": {"fcs": 3, "good": 2}, "segments": {"fcs": 4, "good": 4}, "sent_early": 2,
                            "poisoned": 3, "numbers_reused": True, "missed": 0, "false": 0}}
        md = bench.early_md(e)
        rows = [l for l in md if l.startswith("| paper")]
        self.assertEqual(rows[0], "| paper | early | lean | 1,001 | 1,001 | 0 | 0 | 0 | True | 19 / 19.0 / 19 | 19 / 19.0 / 19 | 12 / 12.0 / 12 |")
        self.assertEqual(rows[1].split(" | ")[9], "-")   # no early fire in safe mode: no early T2T
        self.assertEqual(rows[1].split(" | ")[10], "29 / 30.0 / 31")
        self.assertEqual(rows[2].split(" | ")[2], "LiteEth")   # the comparison row: the parser on the MAC's own stream
        self.assertEqual(rows[2].split(" | ")[9], "24 / 24.0 / 24")
        self.assertTrue(any("poisoned 3" in l and "taken by the next one: True" in l for l in md))

    def test_a_run_without_early_rows_adds_nothing(self):
        self.assertEqual(bench.early_md(None), [])


class ConsoleTally(unittest.TestCase):
    def test_each_order_is_labelled_by_the_stop_that_sent_it(self):
        t = soc_latency.tally_lines(console_log())
        labels = t.labels()
        self.assertEqual(sorted(c for c, p in labels.items() if p == "hw"), sorted(HW_IDS))
        self.assertEqual(sorted(c for c, p in labels.items() if p == "fw"), FW_IDS)
        self.assertEqual(set(labels.values()), {"hw", "fw"})
        self.assertNotIn("NOT", labels)             # "order NOT sent" is no order
        self.assertEqual([f["mode"] for f in t.fires if f["label"] == "fw"], ["fw"] * 4)
        self.assertEqual([f["mode"] for f in t.fires if f["label"] == "hw"], ["hw"] * 8)
        self.assertEqual((t.count("hw"), t.count("fw")), (8, 4))

    def test_every_fire_sent_and_accounted_for(self):
        s = soc_latency.tally_lines(console_log()).summary()
        self.assertEqual(s["fires"], {"hw": 8, "fw": 4})
        self.assertEqual(s["unsent"], {"hw": 0, "fw": 1})
        sup = s["suppressed"]
        self.assertTrue(sup["counter_line"])
        self.assertEqual((sup["trigger_fires"], sup["sent_by_engine"], sup["count"]), (8, 8, 0))
        self.assertEqual(sup["not_sent"], {"logged_not_sent": 0, "poisoned": 0, "ignored": 0, "not_armed": 0, "log_drops": 0,
                                           "rx_overflow": 0})
        self.assertEqual(sup["pct_of_trigger_fires"], 0.0)
        self.assertTrue(sup["accounted"])
        self.assertEqual(sup["console_hw_fires"], 8)        # the untracked order's line counts: the engine sent it
        self.assertTrue(sup["console_fires_agree"])
        self.assertEqual(sup["engine_orders"], {"sent": 8, "not_sent": 0, "errors": 0, "late_cancels": 0})
        self.assertTrue(sup["orders_line_agrees"])
        # 0 not sent, but 8 fires are not the 1,000 the target asks for
        self.assertEqual(sup["target"], {"min_fires": 1000, "met": False})

    def test_fires_not_sent_by_reason(self):
        c = dict(fires=12, sent=8, logged_not_sent=1, ignored=1, not_armed=0, log_drops=1, rx_overflow=1)
        sup = soc_latency.tally_lines(console_log(c)).summary()["suppressed"]
        self.assertEqual((sup["trigger_fires"], sup["sent_by_engine"], sup["count"]), (12, 8, 4))
        self.assertEqual(sup["not_sent"], {"logged_not_sent": 1, "poisoned": 0, "ignored": 1, "not_armed": 0, "log_drops": 1,
                                           "rx_overflow": 1})
        self.assertEqual(sup["pct_of_trigger_fires"], round(100 * 4 / 12, 1))   # 33.3
        self.assertTrue(sup["accounted"])
        self.assertTrue(sup["console_fires_agree"])
        self.assertFalse(sup["target"]["met"])

    def test_a_fire_unaccounted_for(self):
        # 10 fires: 8 sent, 1 logged not sent; the tenth is in no counter
        sup = soc_latency.tally_lines(console_log(dict(fires=10, sent=8, logged_not_sent=1))).summary()["suppressed"]
        self.assertEqual(sup["count"], 2)           # fires - sent, whatever the reasons add up to
        self.assertFalse(sup["accounted"])
        # more reasons than fires is no better
        sup = soc_latency.tally_lines(console_log(dict(fires=8, sent=8, ignored=1))).summary()["suppressed"]
        self.assertEqual(sup["count"], 0)
        self.assertFalse(sup["accounted"])

    def test_the_engines_sent_count_against_the_consoles_fire_lines(self):
        sup = soc_latency.tally_lines(console_log(dict(fires=9, sent=9))).summary()["suppressed"]
        self.assertEqual((sup["sent_by_engine"], sup["console_hw_fires"]), (9, 8))
        self.assertFalse(sup["console_fires_agree"])
        self.assertTrue(sup["accounted"])
        sup = soc_latency.tally_lines(console_log(dict(fires=8, sent=8, orders_sent=7))).summary()["suppressed"]
        self.assertFalse(sup["orders_line_agrees"])

    def test_no_counter_line_is_not_zero(self):
        sup = soc_latency.tally_lines(console_log(counter=None, end_counter=None)).summary()["suppressed"]
        self.assertFalse(sup["counter_line"])
        for k in ("trigger_fires", "sent_by_engine", "count", "not_sent", "pct_of_trigger_fires", "accounted",
                  "console_fires_agree"):
            self.assertIsNone(sup[k], k)
        self.assertIsNone(sup["target"]["met"])
        self.assertEqual(sup["console_hw_fires"], 8)
        self.assertIsNone(soc_latency.tally_lines([]).summary()["suppressed"]["count"])

    def test_the_last_counter_lines_are_kept(self):
        # the hardware phase's `offload` is there even when the end of the run's is not, and the end's wins
        sup = soc_latency.tally_lines(console_log(end_counter=None)).summary()["suppressed"]
        self.assertEqual(sup["trigger_fires"], 8)
        sup = soc_latency.tally_lines(console_log(end_counter=dict(fires=9, sent=8, rx_overflow=1))).summary()["suppressed"]
        self.assertEqual((sup["trigger_fires"], sup["count"], sup["not_sent"]["rx_overflow"]), (9, 1, 1))

    def test_the_target(self):
        met = soc_latency.tally_lines(hw_run(1000, dict(fires=1000, sent=1000))).summary()["suppressed"]
        self.assertEqual((met["count"], met["target"]["met"]), (0, True))
        self.assertTrue(met["console_fires_agree"])
        one_not_sent = soc_latency.tally_lines(hw_run(1000, dict(fires=1001, sent=1000, log_drops=1))).summary()
        self.assertEqual(one_not_sent["suppressed"]["count"], 1)
        self.assertFalse(one_not_sent["suppressed"]["target"]["met"])
        too_few = soc_latency.tally_lines(hw_run(999, dict(fires=999, sent=999))).summary()["suppressed"]
        self.assertEqual(too_few["count"], 0)
        self.assertFalse(too_few["target"]["met"])

    def test_the_sentence_the_run_prints(self):
        sup = soc_latency.tally_lines(console_log(dict(fires=9, sent=8, rx_overflow=1))).summary()["suppressed"]
        self.assertEqual(soc_latency.suppressed_line(sup),
                         "hardware phase: 9 fires of the trigger table, 8 sent by the engine, 1 not sent (logged_not_sent "
                         "0, poisoned 0, ignored 0, not_armed 0, log_drops 0, rx_overflow 1); every fire accounted for; 8 \"fired by "
                         "hardware\" lines (the same as the engine's sent); target (0 not sent over at least 1,000 fires) "
                         "NOT met")
        sup = soc_latency.tally_lines(console_log(None, None)).summary()["suppressed"]
        self.assertIn("the engine's counters were not read", soc_latency.suppressed_line(sup))

    def test_the_firmwares_own_format_strings_parse(self):
        """The two `offload` lines as fw/app/offload.c's printf formats make them, filled with distinct numbers."""
        fmts = [f for f in fw_printf_formats(os.path.join(HERE, "..", "..", "fw", "app", "offload.c"))
                if f.startswith("offload: orders sent by hardware") or f.startswith("offload: this connection's fires")]
        self.assertEqual(len(fmts), 2, fmts)
        nums = iter(range(101, 200))
        lines = [re.sub(r"%l?[ud]", lambda m: str(next(nums)), f) for f in fmts]
        t = soc_latency.tally_lines(lines)
        self.assertEqual(t.orders, {"sent": 101, "not_sent": 102, "errors": 103, "late_cancels": 104})
        self.assertEqual(t.counter, {"trigger_fires": 105, "sent": 106, "logged_not_sent": 107, "poisoned": 108,
                                     "ignored": 109, "not_armed": 110, "log_drops": 111, "rx_overflow": 112})

    def test_a_reused_slot_takes_its_new_kind(self):
        lines = [armed(0, True), hw_fire(0, 1, "T-1"), "stop 0: canceled", armed(0, False), fw_fire(0, 2, "T-2")]
        self.assertEqual(soc_latency.tally_lines(lines).labels(), {"T-1": "hw", "T-2": "fw"})
        with self.assertRaises(soc_latency.ConsoleError) as e:   # and back: the hardware's again
            soc_latency.tally_lines(lines + ["stop 0: canceled", armed(0, True), fw_fire(0, 3, "T-3")])
        self.assertIn("console line 8: stop 0 fired by firmware, but it was last armed in the hardware", str(e.exception))

    def test_lines_the_bench_cannot_classify_are_errors(self):
        with self.assertRaises(soc_latency.ConsoleError) as e:
            soc_latency.tally_lines(["SELFTEST PASS", fw_fire(5, 1, "T-1")])
        self.assertIn("console line 2: stop 5 fired by firmware, but no \"stop 5: armed\" line", str(e.exception))
        # firmware never fires a stop armed in the hardware (there is no fallback any more)
        with self.assertRaises(soc_latency.ConsoleError) as e:
            soc_latency.tally_lines([armed(1, True, "sell"), hw_fire(1, 0, "T-0"), fw_fire(1, 1, "T-1", "99.85")])
        self.assertIn("console line 3: stop 1 fired by firmware, but it was last armed in the hardware", str(e.exception))
        with self.assertRaises(soc_latency.ConsoleError):   # an order firmware could not send is no excuse
            soc_latency.tally_lines([armed(1, True), "stop 1: fired by firmware on trade 100.15: order NOT sent (-5)"])
        with self.assertRaises(soc_latency.ConsoleError) as e:
            soc_latency.tally_log("/nonexistent/soc.log")
        self.assertIn("cannot read the SoC's console log", str(e.exception))


def order(cid, t2t, path="unknown"):
    """One of analyze.py's per-order records (the keys soc_result and the report use); EOF2SOF and SOF2SOF are
    T2T - 19 and T2T + 232 here, None for an order without a trigger."""
    return {"clordid": cid, "path": path, "t2t_cycles": t2t, "eof2sof_cycles": None if t2t is None else t2t - 19,
            "sof2sof_cycles": None if t2t is None else t2t + 232}


HW_T2T = [32, 32, 31, 32, 32, 33, 32, 32]
FW_T2T = [100_000, 208_170, 246_163, None]


def latency_doc():
    """analyze.py's JSON, one firmware order in it labelled hw (the console's label must win), and one order no fire
    line names."""
    orders = [order(c, v, "hw") for c, v in zip(HW_IDS, HW_T2T)]
    orders += [order(c, v, "hw" if c == "TA-20" else "fw") for c, v in zip(FW_IDS, FW_T2T)]
    orders.append(order("TZ-1", 40_000))
    return {"meta": {}, "orders": orders}


class SocResult(unittest.TestCase):
    def test_rows_per_label(self):
        res = soc_latency.soc_result(latency_doc(), soc_latency.tally_lines(console_log()), 125.0)
        p = res["paths"]
        self.assertEqual(p["hw"]["orders"], 8)
        self.assertEqual(p["hw"]["t2t"]["cycles"]["min"], min(HW_T2T))
        self.assertEqual(p["hw"]["t2t"]["cycles"]["max"], max(HW_T2T))
        self.assertEqual(p["hw"]["t2t"]["ns"]["max"], max(HW_T2T) * 8)
        fw = [v for v in FW_T2T if v is not None]
        self.assertEqual(p["fw"]["orders"], 4)
        self.assertEqual(p["fw"]["t2t"]["count"], 3)                      # one without a trigger
        self.assertEqual(p["fw"]["t2t"]["cycles"]["median"], statistics.median(fw))
        self.assertEqual(p["fw"]["t2t"]["cycles"]["min"], 100_000)        # TA-20: fw by the console, hw in the JSON
        self.assertEqual(p["hw"]["t2t"]["cycles"]["max"], 33)
        self.assertEqual(p["unknown"]["orders"], 1)
        self.assertEqual(set(p), {"hw", "fw", "unknown"})
        self.assertEqual(res["matched"], {"hw": 8, "fw": 3, "unknown": 1})
        self.assertEqual({r["clordid"]: r["path"] for r in res["records"]}["TA-20"], "fw")

    def test_an_order_paired_against_the_fire_log_is_reported_not_in_the_figures(self):
        # analyze.py found the pairing of TA-1 disagreeing with the hardware's fire log (a run's TTP57D2-1: the rule
        # gave a trade 610,337 cycles before the order, the fire log 32): named, counted, out of every figure
        doc = latency_doc()
        doc["orders"][0] = dict(order("TA-1", 610_337, "hw"), check="disagrees", check_note="the fire log's ...")
        res = soc_latency.soc_result(doc, soc_latency.tally_lines(console_log()), 125.0)
        hw = res["paths"]["hw"]
        self.assertEqual((hw["orders"], hw["t2t"]["count"], hw["eof2sof"]["count"]), (8, 7, 7))
        self.assertEqual(hw["t2t"]["cycles"]["max"], max(HW_T2T[1:]))
        self.assertEqual(hw["t2t"]["cycles"]["mean"], statistics.fmean(HW_T2T[1:]))
        self.assertEqual((hw["disagrees_with_fire_log"], hw["disagreeing_orders"]), (1, ["TA-1"]))
        self.assertEqual(res["matched"]["hw"], 7)
        self.assertEqual(res["paths"]["fw"]["disagreeing_orders"], [])
        report, lines = bench.build_report(res, None, None, None, "clock.")
        self.assertEqual(report["hw"]["disagreeing_orders"], ["TA-1"])
        md = "\n".join(lines)
        self.assertIn(f"| hw | T2T | 7 | {min(HW_T2T[1:])} / 32 / {max(HW_T2T[1:])} |", md)
        self.assertIn("**1 hw order(s) paired against the fire log**, not in the figures", md)
        self.assertIn("TA-1.", md)
        self.assertNotIn("fw order(s) paired against", md)
        self.assertNotIn("524,288", md)                   # no histogram bin for 610,337
        self.assertIn("hw (n=7)", bench.text_histogram(res["records"], "t2t")[0])

    def test_not_a_latency_json(self):
        t = soc_latency.tally_lines(console_log())
        for doc in ({"hw": {}}, [], {"orders": [{"t2t_cycles": 3}]}):
            with self.assertRaises(soc_latency.ConsoleError):
                soc_latency.soc_result(doc, t, 125.0)


# ---- the risk phase: two hardware runs (the gate off, on) and the gate's synthesis summary ----------------------------
def write_run(root, tag, add, extra_lines):
    """One run's files of a pair (bench.run_pair) in root/soc-<tag>: the test capture's analysis with every hardware
    order's T2T and EOF2SOF moved by add cycles, and the test console with extra_lines after it."""
    d = os.path.join(root, f"soc-{tag}")
    os.makedirs(d)
    doc = latency_doc()
    doc["orders"] = [dict(o, t2t_cycles=o["t2t_cycles"] + add, eof2sof_cycles=o["eof2sof_cycles"] + add)
                     if o["path"] == "hw" and o["t2t_cycles"] is not None else o for o in doc["orders"]]
    with open(os.path.join(d, "latency.json"), "w") as f:
        json.dump(doc, f)
    with open(os.path.join(d, "soc.log"), "w") as f:
        f.write("\n".join(console_log() + extra_lines) + "\n")


class RiskPhase(unittest.TestCase):
    SYNTH = {"gate": {"lut4": 2922, "ff": 2424, "ccu2c": 1089, "dpr16x4": 205, "dp16kd": 0, "mult18": 0},
             "fmax_mhz": 96.25, "constraint_mhz": 125.0, "seed": 1}

    def run_dirs(self, root, extra_on):
        for tag, add, refused in (("off", 0, []), ("on", extra_on, ["risk: refused ticket 3 buy MSFT 100 @ 100.4: collar"])):
            write_run(root, tag, add, refused)

    def test_cost_is_on_minus_off_and_the_report_shows_both_runs(self):
        with tempfile.TemporaryDirectory() as root:
            self.run_dirs(root, 2)
            r = bench.risk_figures(root, self.SYNTH)
        # (TA-20, a firmware order labelled hw in the JSON, is the console's fw: not in the hw rows)
        self.assertEqual(r["off"]["t2t"]["cycles"]["median"], 32)
        self.assertEqual(r["on"]["t2t"]["cycles"]["median"], 34)
        self.assertEqual(r["cost_cycles"]["t2t"], {"min": 2, "median": 2})
        self.assertEqual(r["cost_cycles"]["eof2sof"], {"min": 2, "median": 2})
        self.assertEqual((r["off"]["refused"], r["on"]["refused"]), (0, 1))
        self.assertEqual(r["off"]["fires"], 8)
        md = "\n".join(bench.risk_md(r))
        self.assertIn(f"| off | 8 | 8 | {min(HW_T2T)} / 32 / {max(HW_T2T)} |", md)
        self.assertIn(f"| on | 8 | 8 | {min(HW_T2T) + 2} / 34 / {max(HW_T2T) + 2} |", md)
        self.assertIn("| 1 |", md)
        self.assertIn("Cost of the gate (on minus off, min / median): T2T +2 / +2 cycles, EOF2SOF +2 / +2 cycles.", md)
        self.assertIn("2922 LUT4, 2424 FF", md)
        self.assertIn("Fmax 96.25 MHz against 125.0 MHz", md)

    def test_risk_section_replaced_in_place(self):
        text = "# R\n\n## Risk gate\nold\n\n## Next\ny\n"
        new = bench.report_merge.replace_section(text, bench.RISK_HEADING, ["", bench.RISK_HEADING, "", "new"])
        self.assertEqual(new, "# R\n\n## Risk gate\n\nnew\n\n## Next\ny\n")


# ---- the whole-SoC early phase: two hardware runs (early fires off, on) -------------------------------------------
EARLY_LINE = ("offload: early fires {on} (asked {on}), cap 10 a minute (hit 0 times); sent early {n}, poisoned {p} "
              "(0 this minute)")


class SocEarlyPhase(unittest.TestCase):
    def run_dirs(self, root, gain, early_lines=True):
        for tag, add, n, p in (("off", 0, 0, 0), ("on", -gain, 8, 1)):
            # two `offload` reports: the last one counts
            extra = [EARLY_LINE.format(on="on", n=0, p=0), EARLY_LINE.format(on="on" if tag == "on" else "off", n=n, p=p)]
            write_run(root, tag, add, extra if early_lines else [])

    def test_gain_is_early_minus_safe_and_the_counts_are_the_last_report(self):
        with tempfile.TemporaryDirectory() as root:
            self.run_dirs(root, 13)
            r = bench.soc_early_figures(root)
        self.assertEqual(r["off"]["t2t"]["cycles"]["median"], 32)
        self.assertEqual(r["on"]["t2t"]["cycles"]["median"], 19)
        self.assertEqual(r["cost_cycles"]["t2t"], {"min": -13, "median": -13})
        self.assertEqual((r["off"]["sent_early"], r["on"]["sent_early"], r["on"]["poisoned"]), (0, 8, 1))
        md = "\n".join(bench.soc_early_md(r))
        self.assertIn(f"| off | 8 | 8 | {min(HW_T2T)} / 32 / {max(HW_T2T)} |", md)
        self.assertIn(f"| on | 8 | 8 | {min(HW_T2T) - 13} / 19 / {max(HW_T2T) - 13} |", md)
        self.assertIn("| 8 | 1 |", md)
        self.assertIn("Early minus safe (min / median): T2T -13 / -13 cycles, EOF2SOF -13 / -13 cycles.", md)

    def test_a_run_without_early_counts_is_an_error(self):
        with tempfile.TemporaryDirectory() as root:
            self.run_dirs(root, 13, early_lines=False)
            with self.assertRaises(SystemExit) as e:
                bench.soc_early_figures(root)
        self.assertIn("no early fires' counts", str(e.exception))


# ---- the datapath's aggregates (datapath.json as DatapathBench writes it) --------------------------------------------
def st(lo, avg, hi, n):
    return {"min": lo, "avg": avg, "max": hi, "median": lo, "count": n}


def cell(body, msgs, t2t, fires=None, missed=0, false=0):
    n = fires if fires is not None else msgs // 50
    return {"body_bytes": body, "messages": msgs, "body_bytes_actual": {"min": max(body, 50), "max": max(body, 50)},
            "message_bytes_avg": 100.0, "fires": n, "model_fires": n, "orders_on_pins": n, "missed": missed,
            "false": false, "orders_byte_exact": True, "latency_cycles": st(17, 17.0, 17, n),
            "latency_ns": {"min": 136.0, "avg": 136.0, "max": 136.0, "median": 136.0},
            "eof2sof_cycles": st(13, 13.0, 13, n), "t2t_cycles": st(*t2t, n), "sof2sof_cycles": st(300, 310.5, 320, n),
            "sim_seconds": 0.01, "wall_seconds": 20.0}


def lr_run(mode, rate, back_to_back=True, processed=50_000, missed=0):
    return {"mode": mode, "body_bytes": 16, "body_bytes_actual": {"min": 50, "max": 56}, "messages_offered": 50_000,
            "messages_processed": processed, "segments": 50_000, "offered_msgs_per_s": rate,
            "frames_back_to_back": back_to_back, "fires": 1000, "missed": missed, "false": 0,
            "latency_cycles": st(17, 20.0, 90, 1000), "eof2sof_cycles": st(13, 13.0, 13, 1000)}


def datapath(runs=None, highest=1_559_888.25):
    cells = [cell(16, 25_000, (30, 31.0, 32)), cell(1024, 25_000, (31, 31.5, 32)), cell(16, 50_000, (31, 32.0, 32))]
    runs = runs or [lr_run("one message per segment", 811_586.4), lr_run("packed", 1_559_888.25)]
    return {"boundary": "GMII pins.", "clock_mhz": 125.0, "seed": 1, "cross_every": 50, "volumes": [25_000, 50_000],
            "largest_volume": 50_000, "wall_seconds": 500.0, "compile_seconds": 40.0, "ok": True, "sweep": cells,
            "linerate": {"runs": runs, "highest_msgs_per_s": highest, "missed": 0, "false": 0, "entries_armed": 64,
                         "templates": 16, "cross_every": 50, "note": "..."}}


class DatapathSummary(unittest.TestCase):
    def test_sweep_aggregates(self):
        s = bench.datapath_summary(datapath())["sweep"]
        self.assertEqual((s["cells"], s["volumes"], s["body_bytes"]), (3, [25_000, 50_000], [16, 1024]))
        self.assertEqual((s["fires"], s["fires_per_cell"]), (2000, {"min": 500, "max": 1000}))
        self.assertEqual((s["missed"], s["false"], s["orders_byte_exact"]), (0, 0, True))
        t2t = s["t2t_cycles"]
        self.assertEqual((t2t["min"], t2t["max"], t2t["count"]), (30, 32, 2000))
        # the average over every order: 500 at 31.0, 500 at 31.5, 1000 at 32.0
        self.assertAlmostEqual(t2t["avg"], (500 * 31.0 + 500 * 31.5 + 1000 * 32.0) / 2000, places=3)
        self.assertFalse(t2t["same_for_every_order"])
        self.assertTrue(s["eof2sof_cycles"]["same_for_every_order"])
        self.assertEqual(s["eof2sof_cycles"]["ns"]["min"], 13 * 8)

    def test_misses_in_any_cell_are_summed(self):
        dp = datapath()
        dp["sweep"][1]["missed"], dp["sweep"][2]["false"] = 2, 1
        s = bench.datapath_summary(dp)["sweep"]
        self.assertEqual((s["missed"], s["false"]), (2, 1))

    def test_line_rate(self):
        lr = bench.datapath_summary(datapath())["linerate"]
        self.assertEqual(lr["highest_msgs_per_s"], 1_559_888.25)
        self.assertTrue(lr["datapath_json_agrees"])
        self.assertEqual([r["offered_msgs_per_s"] for r in lr["runs"]], [811_586.4, 1_559_888.25])
        self.assertEqual((lr["fires"], lr["missed"], lr["false"], lr["every_message_processed"]), (2000, 0, 0, True))
        # a run that lost messages, was not back to back or missed a fire does not count as sustained
        for bad in (dict(processed=49_999), dict(back_to_back=False), dict(missed=1)):
            runs = [lr_run("one message per segment", 811_586.4), lr_run("packed", 1_559_888.25, **bad)]
            lr = bench.datapath_summary(datapath(runs))["linerate"]
            self.assertEqual(lr["highest_msgs_per_s"], 811_586.4, bad)
            self.assertFalse(lr["datapath_json_agrees"], bad)   # the JSON's 1,559,888 is not borne out

    def test_markdown(self):
        md = "\n".join(bench.datapath_summary_md(bench.datapath_summary(datapath())))
        self.assertIn("3 cells (2 body sizes x volumes of 25,000 and 50,000 messages): 500 to 1,000 fires a cell, "
                      "2,000 in all; 0 missed, 0 false", md)
        self.assertIn("| T2T | 2,000 | 30 / 31.6 / 32 | 240 / 253 / 256 | no |", md)
        self.assertIn("| EOF2SOF | 2,000 | 13 / 13.0 / 13 | 104 / 104 / 104 | yes |", md)
        self.assertIn("packed: 1,559,888 messages/s offered", md)
        self.assertIn("one message per segment: 811,586 messages/s offered", md)
        self.assertIn("Highest sustained: **1,559,888 messages/s**.", md)

    def test_bad_input(self):
        dp = datapath()
        del dp["sweep"][1]["t2t_cycles"]["count"]
        with self.assertRaises(bench.DatapathError) as e:
            bench.datapath_summary(dp)
        self.assertIn("sweep cell 1 t2t_cycles has no 'count'", str(e.exception))
        dp = datapath()
        dp["sweep"] = []
        with self.assertRaisesRegex(bench.DatapathError, "no sweep cell"):
            bench.datapath_summary(dp)
        dp = datapath()
        del dp["linerate"]["runs"][0]["frames_back_to_back"]
        with self.assertRaisesRegex(bench.DatapathError, "line-rate run 0 has no 'frames_back_to_back'"):
            bench.datapath_summary(dp)


# ---- the report: report.json keys and report.md lines -----------------------------------------------------------------
LINUX = {"count": 1000, "warmup": 20000, "behind": 0, "ns": {"min": 65_712, "median": 311_840, "max": 1_492_688,
                                                            "mean": 330_001.5, "p90": 500_000, "p99": 900_049}}


def soc():
    return soc_latency.soc_result(latency_doc(), soc_latency.tally_lines(console_log()), 125.0)


class Report(unittest.TestCase):
    def build(self, linux=LINUX, dp=None):
        return bench.build_report(soc(), linux, dp if dp is not None else datapath(), None, "clock note.")

    def test_report_json_keys(self):
        report, _ = self.build()
        self.assertEqual(report["suppressed"]["count"], 0)
        self.assertEqual(report["suppressed"]["trigger_fires"], 8)
        self.assertTrue(report["suppressed"]["accounted"])
        self.assertEqual(report["suppressed"]["target"], {"min_fires": 1000, "met": False})
        self.assertNotIn("hw_fallback", report)
        self.assertEqual(report["fw"]["orders"], 4)
        self.assertEqual(report["fw"]["t2t"]["cycles"]["min"], 100_000)
        self.assertEqual(report["hw"]["t2t"]["count"], 8)
        self.assertEqual(report["console_fires"], {"hw": 8, "fw": 4})
        self.assertEqual(report["unlabelled_orders"], 1)
        self.assertEqual(report["linux_summary"]["us"], {"min": 65.7, "median": 311.8, "mean": 330.0, "p99": 900.0,
                                                         "max": 1492.7})
        self.assertEqual(report["datapath_summary"]["sweep"]["t2t_cycles"]["max"], 32)
        json.dumps(report)   # serialisable

    def test_report_md_lines(self):
        _, lines = self.build()
        md = "\n".join(lines)
        self.assertIn("| fires of the trigger table | 8 |", md)
        self.assertIn("| sent by the order engine | 8 |", md)
        self.assertIn("| **not sent** | **0** (0.0 % of the trigger table's fires) |", md)
        self.assertIn("Every fire is accounted for", md)
        self.assertIn("The console has 8 \"fired by hardware\" lines: the same as the engine's orders sent.", md)
        self.assertIn("Target: **NOT met** (only 8 fires (`--soc-minutes` limits the hardware phase)).", md)
        self.assertNotIn("hw_fallback", md)
        self.assertNotIn("lock,", md)
        fw = sorted(v for v in FW_T2T if v is not None)
        self.assertIn(f"| fw | T2T | 3 | {fw[0]} / {statistics.median(fw)} / {fw[-1]} |", md)
        self.assertIn("| 1,000 (after 20,000) | 65.7 us | 311.8 us | 330.0 us | 900.0 us | 1,492.7 us |", md)
        self.assertIn("| Linux + QuickFIX/J, W -> D at the exchange, median (min, max) | 312 us (65.7 us, 1,492.7 us) |", md)
        self.assertIn(f"| Triggerfish fw, T2T median | {statistics.median(fw) * 8 / 1e6:.2f} ms |", md)
        self.assertIn("### Across the sweep's cells", md)
        self.assertIn("1 order(s) in the capture have no fire line on the console", md)

    def md(self, lines):
        res = soc_latency.soc_result(latency_doc(), soc_latency.tally_lines(lines), 125.0)
        return "\n".join(bench.build_report(res, None, None, None, "clock.")[1])

    def test_fires_not_sent_and_counts_that_disagree_are_said(self):
        md = self.md(console_log(dict(fires=13, sent=9, logged_not_sent=1, ignored=1, not_armed=0, log_drops=0,
                                      rx_overflow=1, errors=1, late_cancels=2)))
        self.assertIn("| **not sent** | **4** (30.8 % of the trigger table's fires) |", md)
        self.assertIn("| - logged by the engine, not sent (MsgSeqNum too wide for the template, bad template) | 1 |", md)
        self.assertIn("| - ignored (the engine was disabled) | 1 |", md)
        self.assertIn("| - the stop's order template was not armed | 0 |", md)
        self.assertIn("| - the fire queue from the parser was full | 1 |", md)
        self.assertIn("NOT every fire is accounted for: 13 fires, 12 sent or counted not sent.", md)
        self.assertIn("NOT the same as the 9 orders the engine sent.", md)
        self.assertIn("Engine errors 1, cancels that came after the stop had fired 2.", md)
        self.assertIn("Target: **NOT met** (4 not sent; only 13 fires", md)
        self.assertNotIn("Linux", md.split("## Side by side")[0])

    def test_no_counter_line_and_the_target_met(self):
        md = self.md(console_log(counter=None, end_counter=None))
        self.assertIn("The engine's counters were not read: the console has no `offload` counter line, so the number "
                      "of fires not sent is not known. The console has 8 \"fired by hardware\" lines.", md)
        self.assertNotIn("| fires of the trigger table", md)
        self.assertNotIn("Target: **", md)
        md = self.md(hw_run(1000, dict(fires=1000, sent=1000)))
        self.assertIn("Target: **met** (0 not sent over 1,000 fires).", md)
        self.assertIn("| fires of the trigger table | 1,000 |", md)

    def test_bad_linux_result(self):
        with self.assertRaises(bench.linux_baseline.InputError):
            self.build(linux={"count": 0, "ns": {"min": None}})


class AnalyzeOnly(unittest.TestCase):
    """`soc_latency.py --analyze-only`: analyze.py and the tally again on the files a run left (nothing simulated),
    here a synthetic capture of the smoke run's TTP57D2-1: the buy stop is armed from the console after a trade
    crossed it, then the sell stop and the buy stop fire in turn, 32 cycles from the price each (fire log 22)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-analyze-only-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write_files(self, fire_log_cycles):
        """The run's files: the capture, and the console with both fires' fire log at `fire_log_cycles`."""
        c = test_analyze.Capture()
        for n, (sof, px, order) in enumerate(((1000, "100.15", None), (40_000, "99.85", ("S1", 2)),
                                              (80_000, "100.15", ("B1", 1)))):
            f = c.rx(sof, test_analyze.md("MSFT", 3 + n, [px]))
            if order:  # the engine's order 13 cycles after the W's last FCS byte
                c.tx(test_analyze.Capture.eof({"sof": sof, "data": f}) + 13,
                     test_analyze.nos(order[0], "MSFT", order[1], 3 + n))
        pcap, frames = c.write(self.dir)
        os.rename(pcap, os.path.join(self.dir, "demo.pcap"))
        os.rename(frames, os.path.join(self.dir, "frames.csv"))
        with open(os.path.join(self.dir, "soc.log"), "w") as f:
            f.write("\n".join(["new stops go to the hardware", armed(0, True), armed(1, True, "sell"),
                               hw_fire(1, 0, "S1", "99.85").replace("32 cycles", f"{fire_log_cycles} cycles"),
                               hw_fire(0, 1, "B1").replace("32 cycles", f"{fire_log_cycles} cycles")]) + "\n")

    def test_the_run_analysed_again(self):
        self.write_files(22)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            res = soc_latency.main(["--analyze-only", "--out", self.dir, "--paths", "hw"])
        self.assertEqual(res["paths"]["hw"]["t2t"]["cycles"], {"min": 32, "median": 32, "max": 32, "mean": 32})
        with open(os.path.join(self.dir, "latency.json")) as f:
            doc = json.load(f)
        b1 = [r for r in doc["orders"] if r["clordid"] == "B1"][0]
        self.assertEqual((b1["trigger_rx_seq"], b1["t2t_cycles"], b1["check"]), (3, 32, "agrees"))
        self.assertEqual((doc["meta"]["armed_from_fire_log"], doc["meta"]["disagreeing_orders"]), (["B1"], []))
        self.assertTrue(os.path.exists(os.path.join(self.dir, "console.json")))
        self.assertIn("analysed again", out.getvalue())

    def test_the_fire_log_offset_of_the_runs_own_header(self):
        # a run of a build whose parser reads the lean tap (OFFLOAD_RX_STAMP_TO_PINS 1): the same orders' fire log says
        # 27 cycles, and agrees with the capture only with the header the run kept
        self.write_files(27)
        with open(os.path.join(self.dir, "soc.h"), "w") as f:
            f.write("#define OFFLOAD_RX_STAMP_TO_PINS         1U             /* lean tap */\n")
        with contextlib.redirect_stdout(io.StringIO()):
            soc_latency.main(["--analyze-only", "--out", self.dir, "--paths", "hw"])
        with open(os.path.join(self.dir, "latency.json")) as f:
            doc = json.load(f)
        self.assertEqual((doc["meta"]["hw_offset"], doc["meta"]["disagreeing_orders"]), (4, []))
        os.remove(os.path.join(self.dir, "soc.h"))   # without it: the default offset, 9, and both disagree
        with contextlib.redirect_stdout(io.StringIO()), self.assertRaises(SystemExit):
            soc_latency.main(["--analyze-only", "--out", self.dir, "--paths", "hw"])
        with open(os.path.join(self.dir, "latency.json")) as f:
            self.assertEqual(sorted(json.load(f)["meta"]["disagreeing_orders"]), ["B1", "S1"])

    def test_without_a_run(self):
        with self.assertRaises(SystemExit) as e:
            soc_latency.main(["--analyze-only", "--out", self.dir])
        self.assertIn("demo.pcap is missing: --analyze-only needs a run's output", str(e.exception))


class ReportOnly(unittest.TestCase):
    """`bench.py --report-only` on a previous run's files (build/bench's layout), measuring nothing."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-report-only-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        os.makedirs(os.path.join(self.dir, "soc"))
        self.boards = tempfile.mkdtemp(prefix="bench-boards-")
        self.addCleanup(shutil.rmtree, self.boards, ignore_errors=True)
        with open(os.path.join(self.dir, "soc", "latency.json"), "w") as f:
            json.dump(latency_doc(), f)
        with open(os.path.join(self.dir, "soc", "soc.log"), "w") as f:
            f.write("\r\n".join(console_log()) + "\r\n")

    def main(self, *extra):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            bench.main(["--report-only", "--out", self.dir, "--boards-dir", self.boards] + list(extra))
        with open(os.path.join(self.dir, "report.json")) as f:
            report = json.load(f)
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        return report, md

    def test_report_only_with_every_part(self):
        for sub, name, doc in (("linux-baseline", "linux-baseline.json", LINUX), ("datapath", "datapath.json", datapath())):
            os.makedirs(os.path.join(self.dir, sub))
            with open(os.path.join(self.dir, sub, name), "w") as f:
                json.dump(doc, f)
        report, md = self.main()
        self.assertEqual(report["suppressed"]["count"], 0)
        self.assertEqual(report["suppressed"]["trigger_fires"], 8)
        self.assertEqual(report["fw"]["orders"], 4)   # the console's labels, not latency.json's (TA-20 as hw there)
        self.assertEqual(report["linux_summary"]["us"]["min"], 65.7)
        self.assertEqual(report["datapath_summary"]["linerate"]["highest_msgs_per_s"], 1_559_888.25)
        self.assertIn("| **not sent** | **0** (0.0 % of the trigger table's fires) |", md)
        self.assertIn("| 1,000 (after 20,000) | 65.7 us |", md)
        self.assertIn("Highest sustained: **1,559,888 messages/s**.", md)
        self.assertTrue(os.path.getsize(os.path.join(self.dir, "latency.png")) > 0)
        self.assertTrue(os.path.getsize(os.path.join(self.dir, "datapath.png")) > 0)

    def test_report_only_without_baseline_and_datapath(self):
        report, md = self.main()
        self.assertNotIn("linux_summary", report)
        self.assertNotIn("datapath_summary", report)
        self.assertIn("| hw | T2T | 8 |", md)
        self.assertNotIn("hw_fallback", md)

    def test_report_only_keeps_the_measuring_runs_date_and_duration(self):
        run = {"started_utc": "2026-11-22 08:00:00", "wall_seconds": 27 * 60 + 51, "fires_per_path": 1000,
               "soc_minutes_per_phase": 7, "step_ms": 100, "baseline_fires": 1000, "datapath_volumes": "25000,50000"}
        with open(os.path.join(self.dir, "report.json"), "w") as f:
            json.dump({"run": run}, f)
        report, md = self.main()
        self.assertEqual(report["run"], run)
        self.assertIn("Measured 2026-11-22 08:00:00 UTC, 27 min 51 s; whole SoC: 7 minutes a phase", md)
        report, md = self.main()   # and again from the report it wrote
        self.assertEqual(report["run"], run)

    def test_missing_console_log_is_a_clear_error(self):
        os.remove(os.path.join(self.dir, "soc", "soc.log"))
        with self.assertRaises(SystemExit) as e:
            self.main()
        self.assertIn("cannot read the SoC's console log", str(e.exception))

    def test_broken_datapath_json_is_a_clear_error(self):
        os.makedirs(os.path.join(self.dir, "datapath"))
        with open(os.path.join(self.dir, "datapath", "datapath.json"), "w") as f:
            f.write("{not json")
        with self.assertRaises(SystemExit) as e:
            self.main()
        self.assertIn("datapath.json", str(e.exception))
        self.assertIn("is not JSON", str(e.exception))


class SoakTest(unittest.TestCase):
    """The long soak's figures (sim/tests/soak.py's JSON) in report.json and report.md: how far it got."""

    def run_soak(self, soc_clock_s, rc=0, problems=()):
        d = tempfile.mkdtemp(prefix="bench-soak-")
        self.addCleanup(shutil.rmtree, d, ignore_errors=True)
        fig = {"seed": 19, "impair_rx": "loss=0.05", "wall_s": 600.0, "soc_clock_s": soc_clock_s,
               "wire": {"rx": {"offered": 1000, "lost": 48, "duplicated": 9, "reordered": 80, "held_back": 97,
                               "corrupted": 1, "delivered": 961},
                        "tx": {"offered": 800, "lost": 41, "duplicated": 7, "reordered": 60, "held_back": 77,
                               "corrupted": 2, "delivered": 766}},
               "orders": {"sent_by_soc": 40, "at_exchange": 40, "lost": 0, "duplicated": 0},
               "fires": {"hw": 20, "fw": 18, "hw_stops_sent_by_fw": 2, "false": 0},
               "session": {"logons": 1, "reconnects": 0, "active_at_end": True},
               "resends": {"resend_requests_by_soc": 0, "resend_requests_by_exchange": 0}, "net": {"tcp_retransmit": 33},
               "problems": list(problems)}
        calls = []

        def fake_run(cmd, cwd=None):
            calls.append(cmd)
            with open(cmd[cmd.index("--json") + 1], "w") as f:
                json.dump(fig, f)
            return type("R", (), {"returncode": rc})()
        args = bench.main.__globals__["argparse"].Namespace(soak_minutes=10, soak_soc_minutes=30)
        real = bench.subprocess.run
        bench.subprocess.run = fake_run
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                bench.run_soak(args, d)
        finally:
            bench.subprocess.run = real
        self.assertIn("--soc-minutes", calls[0])
        self.assertEqual(calls[0][calls[0].index("--seconds") + 1], "600")
        return bench.soak_load(d)

    def test_how_far_when_the_wall_clock_limit_came_first(self):
        r = self.run_soak(720.0)
        self.assertEqual(r["how_far"], "12.0 of 30 minutes of the SoC's clock (the wall-clock limit came first)")
        md = "\n".join(bench.soak_md(r))
        self.assertIn("| frames lost | 48 | 41 |", md)
        self.assertIn("Checks: all held.", md)

    def test_the_whole_length_and_a_failed_check(self):
        r = self.run_soak(1805.0, rc=1, problems=["orders lost: 1"])
        self.assertEqual(r["how_far"], "30.1 of 30 minutes of the SoC's clock")
        self.assertIn("FAILED: orders lost: 1", "\n".join(bench.soak_md(r)))


if __name__ == "__main__":
    unittest.main()
