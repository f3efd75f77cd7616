"""Tests for tools/bench/bench.py's clock: which ECP5 build confirms the clock the report's ns are computed at.

Run from the repository root:  python3 -m unittest tools/bench/test_bench.py
The board summaries are written here the way tools/fpga-report.py writes them.
"""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
