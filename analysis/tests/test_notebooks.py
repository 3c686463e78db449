"""Runs every notebook in analysis/notebooks headless (nbclient) on small traces made by
`trainsim run --trace`, and checks that each writes a non-empty PNG.

Run: /usr/bin/python3 analysis/tests/test_notebooks.py --trainsim build/trainsim --scenario tests/trace/tiny.ini
"""

import argparse
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ANALYSIS = Path(__file__).resolve().parents[1]
NOTEBOOKS = {
    "step_breakdown.ipynb": "step_breakdown.png",
    "pipeline_timeline.ipynb": "pipeline_timeline.png",
    "scaling_curves.ipynb": "scaling_curves.png",
    "link_utilization.ipynb": "link_utilization.png",
}
ARGS = None
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class Notebooks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        (tmp / "traces").mkdir()
        cls.traces = []
        for nodes in (4, 8):  # dp 2 and 4 on 2-GPU nodes
            path = tmp / "traces" / f"tiny_{nodes}.h5"
            done = subprocess.run([ARGS.trainsim, "run", ARGS.scenario, "--trace", str(path), "--trace-links", "--set",
                                   f"cluster.nodes={nodes}"], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            cls.traces.append(path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_notebook(self, name):
        figures = Path(self.tmp.name) / "figures"
        env = {
            "TRAINSIM_ANALYSIS": str(ANALYSIS),
            "TRAINSIM_FIGURES": str(figures),
            "TRAINSIM_TRACE": str(self.traces[0]),
            "TRAINSIM_TRACES": str(Path(self.tmp.name) / "traces" / "*.h5"),
            "MPLBACKEND": "Agg",
        }
        os.environ.update(env)
        book = nbformat.read(ANALYSIS / "notebooks" / name, as_version=4)
        NotebookClient(book, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": str(ANALYSIS / "notebooks")}}).execute()
        png = figures / NOTEBOOKS[name]
        self.assertTrue(png.exists(), png)
        data = png.read_bytes()
        self.assertGreater(len(data), 1000, png)
        self.assertTrue(data.startswith(PNG_MAGIC), png)

    def test_step_breakdown(self):
        self.run_notebook("step_breakdown.ipynb")

    def test_pipeline_timeline(self):
        self.run_notebook("pipeline_timeline.ipynb")

    def test_scaling_curves(self):
        self.run_notebook("scaling_curves.ipynb")

    def test_link_utilization(self):
        self.run_notebook("link_utilization.ipynb")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--trainsim", required=True)
    parser.add_argument("--scenario", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])
