"""Opens a trace written by `trainsim run --trace` with h5py and checks every dataset, field
and attribute that analysis/README.md documents, then loads it with trainsim_analysis.

Run: /usr/bin/python3 analysis/tests/test_trace_schema.py --trainsim build/trainsim --scenario tests/trace/tiny.ini
"""

import argparse
import json
import shutil
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
    "source": str,
}
SUMMARY_FLOATS = [
    "step_time_s", "global_batch_samples", "tokens_per_step", "tokens_per_s", "tokens_per_s_per_gpu",
    "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu", "model_tflops_per_gpu_full_attention",
    "hardware_tflops_per_gpu_full_attention", "mfu_full_attention", "bubble_fraction", "collective_fraction",
    "exposed_comm_fraction", "breakdown_data_s", "breakdown_forward_s", "breakdown_backward_s",
    "breakdown_recompute_s", "breakdown_optimizer_s", "breakdown_tp_comm_s", "breakdown_pp_comm_s",
    "breakdown_dp_comm_s", "breakdown_zero_comm_s", "breakdown_ep_comm_s", "breakdown_cp_comm_s",
    "breakdown_offload_s", "breakdown_idle_s", "comm_bytes_per_gpu_tp", "comm_bytes_per_gpu_pp", "comm_bytes_per_gpu_dp",
    "comm_bytes_per_gpu_zero", "comm_bytes_per_gpu_ep", "comm_bytes_per_gpu_cp", "peak_memory_bytes",
    "energy_per_step_j", "energy_per_token_j", "avg_power_w", "straggler_wait_s", "sim_wall_s",
]
SUMMARY_INTS = ["gpus", "dp_reductions_per_step", "slow_gpus", "steps"]
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
# Schema 1.2: the run-level simulation.
RUN_FLOATS = [
    "wall_time_s", "useful_time_s", "effective_training_time_ratio", "checkpoint_overhead_s", "lost_work_s",
    "restart_overhead_s", "waiting_for_nodes_s", "unfinished_step_s", "checkpoint_interval_s", "checkpoint_cost_s",
    "checkpoint_bytes", "mtti_s", "samples_trained", "samples_duplicated", "samples_skipped", "global_batch_min",
    "global_batch_max", "straggler_slowdown_s",
]
RUN_INTS = [
    "steps_completed", "failures", "planned_interruptions", "restarts", "checkpoints_written",
    "checkpoints_interrupted", "resizes", "min_dp", "stragglers", "straggler_drains",
]
FAILURES = {
    "time_s": "f8", "node": "i4", "cause": "S48", "planned": "i1", "lost_work_s": "f8", "downtime_s": "f8",
    "dp_after": "i4",
}
CHECKPOINTS = {"start_s": "f8", "end_s": "f8", "steps": "i8", "bytes": "f8", "committed": "i1", "async": "i1"}
NOT_SIMULATED = "not simulated (run.duration = 0)"
# The tiny scenario over 3 days, a node failing every 2 days on average, a checkpoint of
# about 2 minutes every 20 minutes: a few failures, an interrupted write, ~200 checkpoints.
RUN_SETTINGS = ["run.duration=3d", "failures.mtbf=2d", "checkpoint.write_bandwidth=2MB/s",
                "checkpoint.interval=20min"]


def run_trainsim(*args):
    return subprocess.run([ARGS.trainsim, "run", ARGS.scenario, *args], capture_output=True, text=True)


class TraceSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.path = str(Path(cls.tmp.name) / "tiny.h5")
        done = run_trainsim("--trace", cls.path, "--trace-links")
        assert done.returncode == 0, done.stderr
        cls.run_path = str(Path(cls.tmp.name) / "tiny_run.h5")
        done = run_trainsim("--trace", cls.run_path, "--json", *[a for kv in RUN_SETTINGS for a in ("--set", kv)])
        assert done.returncode == 0, done.stderr
        cls.run_json = json.loads(done.stdout)["run"]

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
            self.assertEqual(f.attrs["source"], "trainsim run")
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

    def test_replay_trace(self):
        # Schema 1.5: a replayed Chakra trace (here the tiny scenario's step, exported) in the same
        # layout: what a trace defines in /summary, NaN for the rest; every rank's nodes in /events.
        out = Path(self.tmp.name) / "chakra"
        done = run_trainsim("--chakra-out", str(out))
        self.assertEqual(done.returncode, 0, done.stderr)
        path = str(Path(self.tmp.name) / "replay.h5")
        done = subprocess.run([ARGS.trainsim, "replay", str(out / "step"), "--trace", path, "--json"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        replay = json.loads(done.stdout)
        with h5py.File(path, "r") as f:
            for name, kind in ROOT_ATTRS.items():
                self.assertIn(name, f.attrs, name)
            self.assertEqual(f.attrs["source"], "trainsim replay")
            s = f["summary"].attrs
            for name in SUMMARY_FLOATS + SUMMARY_INTS:
                self.assertIn(name, s, name)
            self.assertAlmostEqual(s["step_time_s"], replay["replay_time_s"], delta=1e-12)
            self.assertEqual(s["gpus"], replay["ranks"])
            self.assertTrue(np.isnan(s["mfu"]) and np.isnan(s["tokens_per_s"]))
            self.check_table(f["steps"], STEPS)
            self.check_table(f["events"], EVENTS)
            e = f["events"][()]
            self.assertEqual(len(e), f["events"].attrs["events_observed"])
            self.assertEqual({s.decode() for s in e["stream"]}, {"compute", "comm", "pp_comm"})
            self.assertEqual(set(e["rank"]), set(range(replay["ranks"])))
            self.assertAlmostEqual(e["end_s"].max(), replay["replay_time_s"], delta=1e-9)

    def test_memory(self):
        with h5py.File(self.path, "r") as f:
            self.check_table(f["memory"], MEMORY)
            m = f["memory"][()]
            self.assertEqual(list(m["stage"]), [0, 1])
            parts = sum(m[k] for k in ["weights", "gradients", "optimizer_states", "activations", "comm_buffers",
                                       "framework", "fragmentation"])
            np.testing.assert_allclose(parts, m["total"], rtol=1e-12)
            self.assertIn("unit", f["memory"].attrs)

    def test_links_status(self):
        with h5py.File(self.path, "r") as f:
            self.assertIsInstance(f["links"], h5py.Group)
            self.assertIn("status", f["links"].attrs)

    def test_step_only_trace_has_no_run(self):
        # Schema 1.2: without [run] duration, /run says so and the tables are there, empty.
        with h5py.File(self.path, "r") as f:
            self.assertEqual(dict(f["run"].attrs), {"status": NOT_SIMULATED})
            for name, fields in [("failures", FAILURES), ("checkpoints", CHECKPOINTS)]:
                self.check_table(f[name], fields)
                self.assertEqual(len(f[name]), 0, name)
                self.assertEqual(f[name].attrs["status"], NOT_SIMULATED, name)
        t = ta.load_trace(self.path)
        self.assertIsNone(t.run)
        self.assertEqual(t.run_status, NOT_SIMULATED)
        self.assertTrue(t.failures.empty)
        self.assertTrue(t.checkpoints.empty)
        self.assertIn("cause", t.failures.columns)
        self.assertIn("committed", t.checkpoints.columns)

    def test_run_attributes(self):
        # Schema 1.2: /run holds --json's "run" object, the same names and values.
        with h5py.File(self.run_path, "r") as f:
            attrs = f["run"].attrs
            self.assertEqual(attrs["status"], "simulated")
            for name in RUN_FLOATS:
                self.assertTrue(np.issubdtype(type(attrs[name]), np.floating), name)
            for name in RUN_INTS:
                self.assertTrue(np.issubdtype(type(attrs[name]), np.integer), name)
            self.assertEqual(set(attrs) - {"status"}, set(self.run_json))
            for name, value in self.run_json.items():
                self.assertEqual(attrs[name], value, name)
            self.assertGreater(attrs["failures"], 1)
            self.assertGreater(attrs["checkpoints_written"], 10)

    def test_failures(self):
        with h5py.File(self.run_path, "r") as f:
            self.check_table(f["failures"], FAILURES)
            self.assertEqual(f["failures"].attrs["status"], "simulated")
            rows = f["failures"][()]
            run = self.run_json
            planned = run["planned_interruptions"] + run["straggler_drains"]
            self.assertEqual(len(rows), run["failures"] + planned)
            self.assertEqual(int(rows["planned"].sum()), planned)
            self.assertTrue(np.all(np.diff(rows["time_s"]) >= 0))
            self.assertTrue(np.all((rows["time_s"] >= 0) & (rows["time_s"] < run["wall_time_s"])))
            self.assertTrue(all(len(c) > 0 for c in rows["cause"]))
            self.assertTrue(np.all(rows["downtime_s"] > 0))
            self.assertTrue(np.all(rows["lost_work_s"] >= 0))
            self.assertLessEqual(rows["lost_work_s"].sum(), run["lost_work_s"] * (1 + 1e-9))

    def test_checkpoints(self):
        with h5py.File(self.run_path, "r") as f:
            self.check_table(f["checkpoints"], CHECKPOINTS)
            self.assertEqual(f["checkpoints"].attrs["status"], "simulated")
            rows = f["checkpoints"][()]
            run = self.run_json
            self.assertEqual(int(rows["committed"].sum()), run["checkpoints_written"])
            self.assertEqual(len(rows), run["checkpoints_written"] + run["checkpoints_interrupted"])
            self.assertTrue(np.all(rows["end_s"] >= rows["start_s"]))
            self.assertTrue(np.all(rows["bytes"] == run["checkpoint_bytes"]))
            committed = rows[rows["committed"] == 1]
            self.assertTrue(np.all(np.diff(committed["steps"]) > 0))

    def test_run_loads_into_pandas(self):
        t = ta.load_trace(self.run_path)
        run = self.run_json
        self.assertEqual(t.run_status, "simulated")
        self.assertEqual(set(t.run.index), set(run))
        self.assertEqual(t.run["failures"], run["failures"])
        self.assertEqual(len(t.failures), run["failures"] + run["planned_interruptions"])
        self.assertEqual(t.failures["planned"].dtype, bool)
        self.assertEqual(int(t.checkpoints["committed"].sum()), run["checkpoints_written"])
        np.testing.assert_allclose(t.failures["resumed_s"], t.failures["time_s"] + t.failures["downtime_s"])
        # The phases tile the run; the useful training they give is /run's (whole steps only).
        phases = ta.run_phases(t)
        self.assertEqual(phases["start_s"].iloc[0], 0)
        self.assertEqual(phases["end_s"].iloc[-1], run["wall_time_s"])
        np.testing.assert_array_equal(phases["start_s"].iloc[1:].values, phases["end_s"].iloc[:-1].values)
        useful = ta.run_progress(t)["useful_s"].iloc[-1]
        # (a partial step lost at each stop: within a step per interruption)
        steps = len(t.failures) + 2
        self.assertAlmostEqual(useful, run["useful_time_s"], delta=steps * float(t.summary["step_time_s"]) + 1e-6)
        table = ta.run_table([t, ta.load_trace(self.path)])  # the step-only trace is left out
        self.assertEqual(len(table), 1)
        self.assertEqual(table["checkpoint_interval_s"].iloc[0], 1200)

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

    def test_schema_1_1_trace_loads_without_a_run(self):
        # Before 1.2: no /run; /failures and /checkpoints were reserved, empty groups.
        path = str(Path(self.tmp.name) / "schema_1_1.h5")
        shutil.copy(self.run_path, path)
        with h5py.File(path, "r+") as f:
            for name in ["run", "failures", "checkpoints"]:
                del f[name]
                f.create_group(name).attrs["status"] = "reserved"
            del f["run"]
            f.attrs["schema_version"] = "1.1"
        t = ta.load_trace(path)
        self.assertIsNone(t.run)
        self.assertEqual(list(t.failures.columns[:7]), list(FAILURES))
        self.assertEqual(list(t.checkpoints.columns[:6]), list(CHECKPOINTS))
        self.assertTrue(t.failures.empty and t.checkpoints.empty)

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
