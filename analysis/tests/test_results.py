"""Results tables of `trainsim sweep` in pandas (trainsim_analysis.results): the fit columns
reach the DataFrame from results.csv and results.h5 alike, and ranking never takes a layout
that does not fit in GPU memory for the best (issue 55). The sweep varies the tiny scenario's
GPU memory so that the point with the most throughput is the one that does not fit.

Run: /usr/bin/python3 analysis/tests/test_results.py --trainsim build/trainsim --scenario tests/trace/tiny.ini
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import trainsim_analysis as ta  # noqa: E402

ARGS = None


class ResultsTables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="trainsim-results-"))
        # Micro-batch 4 is the fastest layout but needs more than the 1 GiB given to it; 1 and 2
        # have the GPU's whole memory.
        sweep = cls.tmp / "sweep.ini"
        sweep.write_text(f"[sweep]\nbase = {Path(ARGS.scenario).resolve()}\nmode = zip\n[vary]\n"
                         "training.micro_batch = 1, 2, 4\ncluster.gpu_memory = 80GB, 80GB, 1GiB\n"
                         "training.grad_accum = 4, 2, 1\n")
        cls.out = cls.tmp / "out"
        done = subprocess.run([ARGS.trainsim, "sweep", str(sweep), "--out", str(cls.out), "--jobs", "2"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(done.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_fit_columns_reach_the_frame_from_both_formats(self):
        csv = ta.load_results(self.out / "results.csv")
        h5 = ta.load_results(self.out / "results.h5")
        for table in (csv, h5):
            for name in ta.FIT_COLUMNS:
                self.assertIn(name, table.columns)
            self.assertEqual(list(table["status"]), ["ok", "ok", "does_not_fit"])
            self.assertEqual(list(table["fits"]), [True, True, False])
            self.assertEqual(str(table["fits"].dtype), "boolean")
            self.assertLess(table["headroom_bytes"].iloc[2], 0)
            self.assertAlmostEqual(table["headroom_bytes"].iloc[0],
                                   table["capacity_bytes"].iloc[0] - table["peak_memory_bytes"].iloc[0])
            self.assertGreater(table["step_time_s"].iloc[2], 0)  # simulated all the same
            # The accuracy columns stay text (a family name, a caveat or empty).
            self.assertTrue(all(isinstance(v, str) and v for v in table["validation_family"]))
        self.assertEqual(list(csv.columns), list(h5.columns))
        self.assertEqual(list(csv["training.micro_batch"]), list(h5["training.micro_batch"]))

    def test_the_best_layout_fits(self):
        table = ta.load_results(self.out)
        fastest = table["tokens_per_s"].idxmax()
        self.assertEqual(table["status"].iloc[fastest], "does_not_fit")  # the trap
        ranked = ta.rank_layouts(table)
        self.assertEqual(list(ranked["rank"].iloc[:2]), [1, 2])
        self.assertTrue(ranked["rank"].isna().iloc[2])
        self.assertEqual(ranked["status"].iloc[-1], "does_not_fit")
        best = ta.best_layout(table)
        self.assertTrue(bool(best["fits"]))
        self.assertEqual(best["point"], table[table["fits"] == True]["tokens_per_s"].idxmax())  # noqa: E712
        with self.assertRaises(ValueError):
            ta.best_layout(table[table["status"] == "does_not_fit"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--trainsim", required=True)
    parser.add_argument("--scenario", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])
