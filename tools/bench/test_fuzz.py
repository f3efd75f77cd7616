"""Tests for tools/bench/fuzz.py: the fuzzing phase's figures (fuzz.json as fw/fuzz/run.sh -j writes it), its
report.md section and how it goes into an existing report.

Run from the repository root:  python3 -m unittest tools/bench/test_fuzz.py
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fuzz  # noqa: E402

# as fw/fuzz/run.sh -j writes it: one object per fuzzer
RUN = {"seconds_each": 300, "fuzzers": {
    "codec": {"passed": True, "seconds": 301, "executions": 2000000, "exec_per_s": 6644, "cov": 349, "ft": 1791,
              "corpus": 481, "seeds": 8, "regressions": 0, "crashes": 0, "failure": "", "input": ""},
    "tcp": {"passed": False, "seconds": 12, "executions": 5000, "exec_per_s": 416, "cov": 500, "ft": 1500,
            "corpus": 200, "seeds": 12, "regressions": 1, "crashes": 1, "failure": "FZ_CHECK failed: x",
            "input": "build/bench/fuzz/tcp/crash-ab"}}}


class TestFuzzPhase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.dir, "fuzz"))
        with open(os.path.join(self.dir, "fuzz", "fuzz.json"), "w") as f:
            json.dump(RUN, f)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_totals(self):
        f = fuzz.load(os.path.join(self.dir, "fuzz"))
        self.assertEqual(f["executions"], 2005000)
        self.assertEqual(f["crashes"], 1)
        self.assertIsNone(fuzz.load(os.path.join(self.dir, "nothing")))

    def test_section_names_each_fuzzer_and_the_crashing_input(self):
        lines = fuzz.md(fuzz.load(os.path.join(self.dir, "fuzz")))
        self.assertIn("| codec | 2000000 | 6644 | 349 | 1791 | 481 | 0 |", lines)
        self.assertIn("| tcp | 5000 | 416 | 500 | 1500 | 200 | 1 (FZ_CHECK failed: x, input build/bench/fuzz/tcp/crash-ab) |",
                      lines)
        self.assertEqual(lines[-1], "2005000 executions in all, 1 crash(es).")

    def test_merge_keeps_the_rest_of_the_report(self):
        report = {"hw": {"t2t": 1}}
        with open(os.path.join(self.dir, "report.json"), "w") as f:
            json.dump(report, f)
        with open(os.path.join(self.dir, "report.md"), "w") as f:
            f.write("# Report\n\n## Fuzzing\n\nold\n\n## Later\n\nkept\n")
        fuzz.merge_report(self.dir, fuzz.load(os.path.join(self.dir, "fuzz")))
        with open(os.path.join(self.dir, "report.json")) as f:
            r = json.load(f)
        self.assertEqual(r["hw"], {"t2t": 1})
        self.assertEqual(r["fuzz"]["fuzzers"]["codec"]["cov"], 349)
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        self.assertNotIn("old", md)
        self.assertEqual(md.count("## Fuzzing"), 1)
        self.assertTrue(md.rstrip().endswith("## Later\n\nkept"))
        self.assertIn("| codec | 2000000 |", md)

    def test_merge_appends_when_there_is_no_section(self):
        text = fuzz.merge_md("# Report\n\nbody\n", ["", "## Fuzzing", "", "x"])
        self.assertEqual(text, "# Report\n\nbody\n\n## Fuzzing\n\nx\n")


if __name__ == "__main__":
    unittest.main()
