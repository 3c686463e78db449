"""Runs every notebook in analysis/notebooks headless (nbclient) on small traces made by
`trainsim run --trace` (and `trainsim layer --json` outputs), and checks that each writes its
non-empty PNGs.

Run: /usr/bin/python3 analysis/tests/test_notebooks.py --trainsim build/trainsim --scenario tests/trace/tiny.ini
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ANALYSIS = Path(__file__).resolve().parents[1]
NOTEBOOKS = {
    "step_breakdown.ipynb": ["step_breakdown.png"],
    "pipeline_timeline.ipynb": ["pipeline_timeline.png"],
    "scaling_curves.ipynb": ["scaling_curves.png"],
    "link_utilization.ipynb": ["link_utilization.png"],
    "run_timeline.ipynb": ["run_timeline.png", "goodput_vs_interval.png"],
    "layer_breakdown.ipynb": ["layer_breakdown.png"],
    "drill.ipynb": ["drill_curves.png", "drill_divergence.png"],
}
# `trainsim layer` against the synthetic measured layer of the C++ tests (Llama 3 8B, 4096 tokens).
LAYER_SCENARIO = """[model]
preset = llama3-8b
seq_len = 4096
[training]
attention = standard
[cluster]
preset = hgx-h200
nodes = 1
gpus_per_node = 1
"""
MEASURED_LAYER = ANALYSIS.parent / "tests" / "compute" / "layer-llama3-8b-synthetic.csv"
# Runs of the tiny scenario over 3 days, a node failing every 2 days on average (a few failures
# per run), a checkpoint taking about 2 minutes (2 MB/s): goodput peaks between these intervals.
RUN_SETTINGS = ["run.duration=3d", "failures.mtbf=2d", "checkpoint.write_bandwidth=2MB/s"]
CHECKPOINT_INTERVALS = ["10min", "20min", "40min", "1h", "2h", "4h"]
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
        # The tiny scenario's 8 GPUs again, interleaved (two model chunks per stage), in a folder of its own.
        (tmp / "other").mkdir()
        cls.interleaved = tmp / "other" / "tiny_interleaved.h5"
        done = subprocess.run([ARGS.trainsim, "run", ARGS.scenario, "--trace", str(cls.interleaved), "--trace-links",
                               "--set", "model.layers=8", "--set", "parallel.schedule=interleaved",
                               "--set", "parallel.virtual_stages=2"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        # The tiny step exported as Chakra traces and replayed (trainsim replay --trace), in a folder of its own.
        (tmp / "replay").mkdir()
        cls.replay = tmp / "replay" / "tiny_replay.h5"
        done = subprocess.run([ARGS.trainsim, "run", ARGS.scenario, "--chakra-out", str(tmp / "export")],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        done = subprocess.run([ARGS.trainsim, "replay", str(tmp / "export" / "step"), "--cluster", "dgx-h100",
                               "--nodes", "1", "--trace", str(cls.replay)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        # The run notebook's traces, in a folder of their own (the others' inputs stay as they are).
        (tmp / "run_traces").mkdir()
        cls.run_traces = []
        for interval in CHECKPOINT_INTERVALS:
            path = tmp / "run_traces" / f"tiny_run_{interval}.h5"
            settings = [*RUN_SETTINGS, f"checkpoint.interval={interval}"]
            done = subprocess.run([ARGS.trainsim, "run", ARGS.scenario, "--trace", str(path), "--trace-level", "steps",
                                   *[arg for kv in settings for arg in ("--set", kv)]], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            cls.run_traces.append(path)

        # A short drill of the tiny scenario: recoveries with and without the RNG and the cursor.
        cls.drill = tmp / "drill.h5"
        done = subprocess.run([ARGS.trainsim, "drill", ARGS.scenario, "--steps", "40", "--omit", "rng,cursor",
                               "--trace", str(cls.drill)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

        # One layer, plain and against the synthetic measurement.
        scenario = tmp / "layer.ini"
        scenario.write_text(LAYER_SCENARIO)
        cls.layers = {}
        for name, extra in (("plain", []), ("measured", ["--measured", str(MEASURED_LAYER)])):
            done = subprocess.run([ARGS.trainsim, "layer", str(scenario), "--json", *extra], capture_output=True,
                                  text=True)
            assert done.returncode == 0, done.stderr
            cls.layers[name] = tmp / f"layer_{name}.json"
            cls.layers[name].write_text(done.stdout)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_notebook(self, name, **inputs):
        """Executes `name` with the default inputs, or `inputs` in their place (TRAINSIM_* names);
        returns the text its cells printed or displayed."""
        figures = Path(self.tmp.name) / "figures"
        env = {
            "TRAINSIM_ANALYSIS": str(ANALYSIS),
            "TRAINSIM_FIGURES": str(figures),
            "TRAINSIM_TRACE": str(self.traces[0]),
            "TRAINSIM_TRACES": str(Path(self.tmp.name) / "traces" / "*.h5"),
            "MPLBACKEND": "Agg",
            **inputs,
        }
        os.environ.pop("TRAINSIM_SWEEP_TABLE", None)  # only where a case gives one
        os.environ.update(env)
        pngs = [figures / png for png in NOTEBOOKS[name]]
        for png in pngs:  # a figure left by an earlier case must not pass for this one's
            png.unlink(missing_ok=True)
        book = nbformat.read(ANALYSIS / "notebooks" / name, as_version=4)
        NotebookClient(book, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": str(ANALYSIS / "notebooks")}}).execute()
        for png in pngs:
            self.assertTrue(png.exists(), png)
            data = png.read_bytes()
            self.assertGreater(len(data), 1000, png)
            self.assertTrue(data.startswith(PNG_MAGIC), png)
        texts = []
        for cell in book.cells:
            for output in cell.get("outputs", []):
                texts.append(output.get("text", "") or output.get("data", {}).get("text/plain", ""))
        return "\n".join(texts)

    def test_step_breakdown(self):
        self.run_notebook("step_breakdown.ipynb")

    def test_pipeline_timeline(self):
        self.run_notebook("pipeline_timeline.ipynb")

    def test_pipeline_timeline_interleaved_bubble_as_the_summary(self):
        # The bubble per stage is /summary's (TP communication not counted in it).
        text = self.run_notebook("pipeline_timeline.ipynb", TRAINSIM_TRACE=str(self.interleaved))
        found = re.search(r"bubble: ([0-9.]+)% of the step, /summary's bubble_fraction: ([0-9.]+)%", text)
        self.assertIsNotNone(found, text)
        self.assertAlmostEqual(float(found.group(1)), float(found.group(2)), delta=0.2)

    def test_pipeline_timeline_and_breakdown_of_a_replay(self):
        # Issue 55: a replay's analysis gave comm_s -187 s and "bubble_fraction: nan%".
        text = self.run_notebook("pipeline_timeline.ipynb", TRAINSIM_TRACE=str(self.replay))
        self.assertIn("idle (waiting on other ranks):", text)
        self.assertIn("bubble_fraction: not applicable to a replayed trace", text)
        self.assertNotIn("nan", text.lower())
        text = self.run_notebook("step_breakdown.ipynb", TRAINSIM_TRACES=f"{self.replay}:{self.traces[0]}")
        self.assertIn("exposed_comm", text)
        self.assertNotIn("nan", text.lower())

    def test_step_breakdown_same_gpu_count(self):
        # Two traces of 8 GPUs, two layouts: two rows, labelled apart.
        text = self.run_notebook("step_breakdown.ipynb", TRAINSIM_TRACES=f"{self.traces[0]}:{self.interleaved}")
        self.assertIn("8 GPUs, tp 2 pp 2 dp 2, 1f1b", text)
        self.assertIn("8 GPUs, tp 2 pp 2 dp 2, interleaved x2", text)

    def test_link_utilization_interleaved(self):
        self.run_notebook("link_utilization.ipynb", TRAINSIM_TRACE=str(self.interleaved))

    def test_scaling_curves(self):
        self.run_notebook("scaling_curves.ipynb")

    def test_link_utilization(self):
        self.run_notebook("link_utilization.ipynb")

    def test_run_timeline(self):
        self.run_notebook("run_timeline.ipynb", TRAINSIM_TRACE=str(self.run_traces[1]),
                          TRAINSIM_TRACES=str(Path(self.tmp.name) / "run_traces" / "*.h5"))

    def test_run_timeline_from_a_sweep_table(self):
        # A sweep's results.csv names the run's metrics run_<name>.
        sys.path.insert(0, str(ANALYSIS))
        import trainsim_analysis as ta

        table = ta.run_table(ta.load_traces(self.run_traces))
        sweep = table.rename(columns={c: f"run_{c}" for c in table.columns if c not in ("trace", "seed")})
        path = Path(self.tmp.name) / "results.csv"
        sweep.to_csv(path, index=False)
        self.run_notebook("run_timeline.ipynb", TRAINSIM_TRACE=str(self.run_traces[1]), TRAINSIM_TRACES="",
                          TRAINSIM_SWEEP_TABLE=str(path))

    def test_layer_breakdown(self):
        self.run_notebook("layer_breakdown.ipynb", TRAINSIM_LAYER=str(self.layers["plain"]))

    def test_layer_breakdown_against_a_measurement(self):
        sys.path.insert(0, str(ANALYSIS))
        import trainsim_analysis as ta

        layer = ta.load_layer(self.layers["measured"])
        self.assertEqual(len(layer.measured), 30)
        self.assertAlmostEqual(layer.measured_totals["layer"]["predicted_s"], layer.totals["layer_s"], places=12)
        self.run_notebook("layer_breakdown.ipynb", TRAINSIM_LAYER=str(self.layers["measured"]))

    def test_drill(self):
        text = self.run_notebook("drill.ipynb", TRAINSIM_DRILL=str(self.drill))
        self.assertIn("recovered with every item saved: bit-identical", text)
        sys.path.insert(0, str(ANALYSIS))
        import trainsim_analysis as ta

        drill = ta.load_drill(self.drill)
        runs = drill.divergence.set_index("run")
        self.assertEqual(runs.loc["omit rng", "bit_identical"], 0)
        self.assertGreater(runs.loc["omit cursor", "samples_duplicated"], 0)
        self.assertEqual(runs.loc["omit cursor", "samples_duplicated"], runs.loc["omit cursor", "cursor_model_duplicated"])
        self.assertEqual(len(drill.curve("uninterrupted")), 40)

    def test_notebook_list_is_complete(self):
        self.assertEqual(set(NOTEBOOKS), {p.name for p in (ANALYSIS / "notebooks").glob("*.ipynb")})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--trainsim", required=True)
    parser.add_argument("--scenario", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])
