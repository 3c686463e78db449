"""Opens a trace written by `trainsim run --trace` with h5py and checks every dataset, field
and attribute that analysis/README.md documents, then loads it with trainsim_analysis.

Run: /usr/bin/python3 analysis/tests/test_trace_schema.py --trainsim build/trainsim --scenario tests/trace/tiny.ini
"""

import argparse
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import trainsim_analysis as ta  # noqa: E402

ARGS = None

ROOT_ATTRS = {
    "schema_version": str, "trainsim_version": str, "simgrid_version": str, "hdf5_version": str,
    "scenario_path": str, "scenario_text": str, "scenario_overrides": str, "scenario_resolved": str,
    "seed": np.integer, "trace_level": str, "simulated_gpus": str, "reduce_symmetry": np.integer, "time_unit": str,
}
SUMMARY_FLOATS = [
    "step_time_s", "global_batch_samples", "tokens_per_step", "tokens_per_s", "tokens_per_s_per_gpu",
    "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu", "bubble_fraction", "collective_fraction",
    "exposed_comm_fraction", "breakdown_data_s", "breakdown_forward_s", "breakdown_backward_s",
    "breakdown_recompute_s", "breakdown_optimizer_s", "breakdown_tp_comm_s", "breakdown_pp_comm_s",
    "breakdown_dp_comm_s", "breakdown_zero_comm_s", "breakdown_ep_comm_s", "breakdown_cp_comm_s",
    "breakdown_idle_s", "comm_bytes_per_gpu_tp", "comm_bytes_per_gpu_pp", "comm_bytes_per_gpu_dp",
    "comm_bytes_per_gpu_zero", "comm_bytes_per_gpu_ep", "comm_bytes_per_gpu_cp", "peak_memory_bytes",
    "energy_per_step_j", "energy_per_token_j", "avg_power_w", "sim_wall_s",
]
SUMMARY_INTS = ["gpus", "dp_reductions_per_step", "steps"]
STEPS = {"step": "i4", "start_s": "f8", "end_s": "f8", "tokens": "f8", "samples": "f8"}
EVENTS = {
    "step": "i4", "rank": "i4", "stage": "i4", "replica": "i4", "stream": "S16", "kind": "S32", "layer": "i4",
    "microbatch": "i4", "start_s": "f8", "end_s": "f8", "bytes": "f8", "flops": "f8", "count": "i4",
}
EVENTS_ATTRS = ["written", "rule", "max_events", "events_observed", "aggregated", "simulated_gpus", "layer"]
MEMORY = {
    "stage": "i4", "layers": "i4", "parameters_per_gpu": "f8", "inflight_microbatches": "f8", "weights": "f8",
    "gradients": "f8", "optimizer_states": "f8", "activations": "f8", "comm_buffers": "f8", "framework": "f8",
    "fragmentation": "f8", "total": "f8", "offloaded": "f8", "capacity": "f8", "fits": "i1",
}
STREAMS = {"compute", "tp_comm", "pp_comm", "dp_comm", "data"}


def run_trainsim(*args):
    return subprocess.run([ARGS.trainsim, "run", ARGS.scenario, *args], capture_output=True, text=True)


class TraceSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = str(Path(cls.tmp.name) / "tiny.h5")
        done = run_trainsim("--trace", cls.path, "--trace-links")
        assert done.returncode == 0, done.stderr

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_table(self, dataset, fields):
        self.assertEqual(dataset.ndim, 1)
        self.assertEqual(set(dataset.dtype.names), set(fields), dataset.name)
        for name, kind in fields.items():
            self.assertEqual(dataset.dtype[name], np.dtype("<" + kind if kind[0] != "S" else kind), name)
        self.assertIsNotNone(dataset.chunks, f"{dataset.name} is chunked")
        self.assertEqual(dataset.compression, "gzip", f"{dataset.name} is compressed")

    def test_root_attributes(self):
        with h5py.File(self.path, "r") as f:
            for name, kind in ROOT_ATTRS.items():
                self.assertIn(name, f.attrs, name)
                value = f.attrs[name]
                if kind is str:
                    self.assertIsInstance(value, str, name)
                else:
                    self.assertTrue(np.issubdtype(type(value), kind), name)
            self.assertTrue(f.attrs["schema_version"].startswith("1."))
            self.assertEqual(f.attrs["seed"], 7)
            self.assertEqual(f.attrs["trace_level"], "events")
            self.assertIn("layers = 4", f.attrs["scenario_text"])
            self.assertIn("[cluster]", f.attrs["scenario_resolved"])

    def test_summary(self):
        with h5py.File(self.path, "r") as f:
            s = f["summary"].attrs
            for name in SUMMARY_FLOATS:
                self.assertIn(name, s, name)
                self.assertTrue(np.issubdtype(type(s[name]), np.floating), name)
            for name in SUMMARY_INTS:
                self.assertTrue(np.issubdtype(type(s[name]), np.integer), name)
            for name in ["compute_model", "model", "scenario"]:
                self.assertIsInstance(s[name], str, name)
            self.assertEqual(s["inflight_microbatches"].shape, (2,))
            self.assertEqual(s["gpus"], 8)
            total = sum(s[k] for k in SUMMARY_FLOATS if k.startswith("breakdown_"))
            self.assertAlmostEqual(total, s["step_time_s"], delta=1e-6 * s["step_time_s"])

    def test_steps(self):
        with h5py.File(self.path, "r") as f:
            self.check_table(f["steps"], STEPS)
            steps = f["steps"][()]
            self.assertEqual(list(steps["step"]), [0, 1])
            self.assertTrue(np.all(steps["end_s"] > steps["start_s"]))
            self.assertTrue(np.all(steps["tokens"] == f["summary"].attrs["tokens_per_step"]))

    def test_events(self):
        with h5py.File(self.path, "r") as f:
            self.check_table(f["events"], EVENTS)
            for name in EVENTS_ATTRS:
                self.assertIn(name, f["events"].attrs, name)
            e = f["events"][()]
            self.assertGreater(len(e), 0)
            self.assertEqual(len(e), f["events"].attrs["events_observed"])
            self.assertTrue({s.decode() for s in e["stream"]} <= STREAMS)
            self.assertTrue(np.all(e["end_s"] >= e["start_s"]))
            self.assertTrue(np.all(e["count"] == 1))
            compute = e[e["stream"] == b"compute"]
            self.assertTrue(np.all(compute["flops"] >= 0))
            self.assertEqual(set(e["stage"]), {0, 1})

    def test_memory(self):
        with h5py.File(self.path, "r") as f:
            self.check_table(f["memory"], MEMORY)
            m = f["memory"][()]
            self.assertEqual(list(m["stage"]), [0, 1])
            parts = sum(m[k] for k in ["weights", "gradients", "optimizer_states", "activations", "comm_buffers",
                                       "framework", "fragmentation"])
            np.testing.assert_allclose(parts, m["total"], rtol=1e-12)
            self.assertIn("unit", f["memory"].attrs)

    def test_reserved_groups(self):
        with h5py.File(self.path, "r") as f:
            for name in ["links", "failures", "checkpoints"]:
                self.assertIsInstance(f[name], h5py.Group, name)
                self.assertIn("status", f[name].attrs, name)

    def test_links(self):
        # Schema 1.1: /links/utilization, the busiest links then one mean series per class.
        with h5py.File(self.path, "r") as f:
            self.assertEqual(f["links"].attrs["status"], "produced")
            u = f["links/utilization"]
            self.assertEqual(list(u.dtype.names), ["link", "class", "time_s", "utilization"])
            self.assertIn("rule", u.attrs)
            rows = u[()]
            self.assertGreater(len(rows), 0)
            classes = {c.decode() for c in rows["class"]}
            self.assertTrue(classes <= {"nvlink", "nic", "leaf", "spine"}, classes)
            links = {n.decode() for n in rows["link"]}
            self.assertIn("class:nic", links)
            self.assertTrue(((rows["utilization"] >= 0) & (rows["utilization"] <= 1 + 1e-9)).all())
            self.assertGreater(rows["utilization"].max(), 0)
        t = ta.load_trace(self.path)
        self.assertEqual(list(t.links.columns), ["link", "class", "time_s", "utilization"])

    def test_loads_into_dataframes(self):
        t = ta.load_trace(self.path)
        self.assertEqual(len(t.steps), 2)
        self.assertIn("duration_s", t.events.columns)
        self.assertEqual(t.events["stream"].dtype, object)
        self.assertAlmostEqual(t.breakdown.sum(), float(t.summary["step_time_s"]), places=9)
        self.assertEqual(len(t.memory), 2)

    def test_level_summary_keeps_tables_empty(self):
        path = str(Path(self.tmp.name) / "summary.h5")
        done = run_trainsim("--trace", path, "--trace-level", "summary")
        self.assertEqual(done.returncode, 0, done.stderr)
        with h5py.File(path, "r") as f:
            self.assertEqual(f.attrs["trace_level"], "summary")
            self.assertEqual(len(f["steps"]), 0)
            self.assertEqual(len(f["events"]), 0)
            self.assertEqual(len(f["memory"]), 2)
            self.check_table(f["events"], EVENTS)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--trainsim", required=True)
    parser.add_argument("--scenario", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])
