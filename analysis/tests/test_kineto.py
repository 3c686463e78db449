"""trainsim_analysis.kineto: HTA's temporal breakdown and communication/computation overlap on
traces built here with known answers, on the Kineto traces `trainsim run --kineto-out` writes
(checked against the same run's HDF5 events), and on a real profile from HTA's own test data
(<shared data>/profiles: skipped, saying so, without it).

Run: /usr/bin/python3 analysis/tests/test_kineto.py --trainsim build/trainsim --scenario tests/trace/tiny.ini
       [--shared-data ../shared/data]
"""

import argparse
import gzip
import json
import math
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import trainsim_analysis as ta  # noqa: E402
from trainsim_analysis import kineto  # noqa: E402

ARGS = None
REAL_PROFILE = "profiles/trace-diff-control-step1011.json.gz"


def kineto_file(path, rank, gpu_events, host_events=(), pretty=True):
    """gpu_events: (name, cat, ts, dur, stream); each gets a launch on the host at its start.
    host_events: (name, ts, dur)."""
    events = [{"ph": "X", "cat": "user_annotation", "name": n, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": {}}
              for n, ts, dur in host_events]
    for i, (name, cat, ts, dur, stream) in enumerate(gpu_events, start=1):
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
                       "dur": 0, "args": {"correlation": i}})
        events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                       "args": {"correlation": i, "stream": stream, "device": 0}})
    info = {"backend": "nccl", "rank": rank, "world_size": 2}
    with open(path, "w") as f:
        if pretty:
            f.write('{\n"distributedInfo": %s,\n"traceEvents": %s\n}\n' % (json.dumps(info), json.dumps(events)))
        else:
            json.dump({"distributedInfo": info, "traceEvents": events}, f, separators=(",", ":"))


class ByHand(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_kernel_types_follow_htas_name_patterns(self):
        self.assertEqual(kineto.kernel_type("ncclDevKernel_AllReduce(trainsim tp_allreduce)"), kineto.COMMUNICATION)
        self.assertEqual(kineto.kernel_type("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)"),
                         kineto.COMMUNICATION)
        self.assertEqual(kineto.kernel_type("Memcpy HtoD (Pinned -> Device)"), kineto.MEMORY)
        self.assertEqual(kineto.kernel_type("Memset (Device)"), kineto.MEMORY)
        self.assertEqual(kineto.kernel_type("forward"), kineto.COMPUTATION)
        self.assertEqual(kineto.kernel_type("void at::native::vectorized_elementwise_kernel<4>"), kineto.COMPUTATION)
        self.assertEqual(kineto.kernel_type("cudaStreamSynchronize"), kineto.OTHER)

    def test_breakdown_and_overlap_of_a_known_timeline(self):
        # compute 0-10 and 20-30, a collective 5-15, a copy 25-35: span 35, idle 15-20.
        kineto_file(self.dir / "a.json", 1, [("gemm", "kernel", 0, 10, 7), ("ncclDevKernel_AllReduce", "kernel", 5, 10, 20),
                                             ("gemm", "kernel", 20, 10, 7),
                                             ("Memcpy DtoH (Device -> Pinned)", "gpu_memcpy", 25, 10, 24)])
        # rank 0: only communication, nothing to overlap with
        kineto_file(self.dir / "b.json", 0, [("ncclDevKernel_SendRecv", "kernel", 100, 4, 21)])
        traces = ta.load_kineto(self.dir)
        self.assertEqual(list(traces), [0, 1])
        b = ta.temporal_breakdown(traces).set_index("rank")
        self.assertEqual(b.loc[1, "kernel_time(us)"], 35)
        self.assertEqual(b.loc[1, "idle_time(us)"], 5)
        self.assertEqual(b.loc[1, "compute_time(us)"], 20)
        self.assertEqual(b.loc[1, "non_compute_time(us)"], 10)  # 10-15 (collective) and 30-35 (copy)
        self.assertEqual(b.loc[1, "compute_time_pctg"], round(100 * 20 / 35, 2))
        self.assertEqual(list(b.loc[0, ["idle_time(us)", "compute_time(us)", "non_compute_time(us)"]]), [0, 0, 4])
        o = ta.comm_comp_overlap(traces).set_index("rank")
        self.assertEqual(o.loc[1, "comp_comm_overlap_ratio"], 0.5)  # 5-10 of 5-15
        self.assertEqual(o.loc[0, "comp_comm_overlap_ratio"], 0.0)

    def test_fractional_microseconds_are_rounded_as_hta_rounds_them(self):
        kineto_file(self.dir / "a.json", 0, [("gemm", "kernel", 0.4, 9.2, 7)])  # 0.4-9.6 -> 1-9
        t = ta.load_kineto(self.dir)[0]
        self.assertEqual((t.gpu.ts[0], t.gpu.end[0]), (1, 9))

    def test_the_last_profiler_step_is_left_out_as_hta_leaves_it(self):
        kineto_file(self.dir / "a.json", 0, [("gemm", "kernel", 0, 10, 7), ("gemm", "kernel", 100, 10, 7)],
                    [("ProfilerStep#4", 0, 100), ("ProfilerStep#5", 100, 50)])
        self.assertEqual(ta.temporal_breakdown(ta.load_kineto(self.dir)).loc[0, "kernel_time(us)"], 10)

    def test_rank_found_by_htas_line_rule_else_by_distributed_info(self):
        kineto_file(self.dir / "pretty.json", 5, [("gemm", "kernel", 0, 1, 7)])
        kineto_file(self.dir / "compact.json", 6, [("gemm", "kernel", 0, 1, 7)], pretty=False)
        self.assertEqual(kineto.trace_rank(self.dir / "pretty.json"), 5)
        self.assertIsNone(kineto.trace_rank(self.dir / "compact.json"))  # HTA would take 0
        self.assertEqual(sorted(ta.load_kineto(self.dir)), [5, 6])
        self.assertEqual(list(ta.load_kineto(self.dir / "compact.json")), [6])  # one file

    def test_a_folder_without_traces_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no .json or .gz trace"):
            ta.load_kineto(self.dir)

    def test_the_summary_command_prints_one_row_per_rank_and_refuses_bad_input(self):
        kineto_file(self.dir / "a.json", 1, [("gemm", "kernel", 0, 10, 7), ("ncclDevKernel_AllReduce", "kernel", 5, 10, 20)])
        run = lambda *paths: subprocess.run(  # noqa: E731
            [sys.executable, "-m", "trainsim_analysis.kineto_summary", *map(str, paths)], capture_output=True, text=True,
            cwd=Path(__file__).resolve().parents[1])
        done = run(self.dir, self.dir / "a.json")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0].split()[:2], ["trace", "rank"])
        self.assertEqual([line.split()[:3] for line in lines[1:]], [[self.dir.name, "1", "15"], ["a.json", "1", "15"]])
        self.assertEqual(lines[1].split()[-1], "50.00")  # overlap: 5 of 10
        bad = run(self.dir / "missing")
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(len(bad.stderr.splitlines()), 1, bad.stderr)


class Simulated(unittest.TestCase):
    """The files `trainsim run --kineto-out` writes, beside the same run's HDF5 events."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name) / "kineto"
        h5 = str(Path(cls.tmp.name) / "run.h5")
        done = subprocess.run([ARGS.trainsim, "run", ARGS.scenario, "--kineto-out", str(cls.dir), "--trace", h5],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        trace = ta.load_trace(h5)
        # With two steps or more, HTA reads what was launched before the last one began.
        last = trace.steps.start_s.max()
        assert len(trace.steps) == 2
        cls.events = trace.events[trace.events.start_s < last]
        cls.all_ranks = sorted(trace.events["rank"].unique())
        cls.traces = ta.load_kineto(cls.dir)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_one_trace_per_simulated_rank(self):
        self.assertEqual(sorted(self.traces), self.all_ranks)
        for rank, t in self.traces.items():
            self.assertEqual(kineto.trace_rank(t.path), rank)  # HTA's own rule finds it
            self.assertEqual(t.meta["distributedInfo"]["world_size"], 8)

    def test_breakdown_is_the_simulated_streams_of_all_steps_but_the_last(self):
        b = ta.temporal_breakdown(self.traces).set_index("rank")
        for rank, t in self.traces.items():
            mine = self.events[self.events["rank"].eq(rank)]
            # HTA's rounding moves each event's ends by under a microsecond.
            slack = len(mine) * 1.0
            compute = mine[mine.stream.eq("compute")]
            us = lambda s: s * 1e6  # noqa: E731
            merged = kineto.merged_intervals(compute.assign(ts=us(compute.start_s), end=us(compute.end_s)))
            self.assertAlmostEqual(b.loc[rank, "compute_time(us)"], float((merged.end - merged.ts).sum()), delta=slack)
            span = us(mine.end_s.max() - mine.start_s.min())
            self.assertAlmostEqual(b.loc[rank, "kernel_time(us)"], span, delta=2)
            self.assertAlmostEqual(b.loc[rank, ["idle_time(us)", "compute_time(us)", "non_compute_time(us)"]].sum(),
                                   b.loc[rank, "kernel_time(us)"])
            self.assertGreater(b.loc[rank, "non_compute_time(us)"], 0)  # the collectives
            comm = t.gpu[t.gpu.kernel_type.eq(kineto.COMMUNICATION)]
            self.assertEqual(len(comm), int(mine.stream.isin(["tp_comm", "pp_comm", "dp_comm"]).sum()))
        o = ta.comm_comp_overlap(self.traces)
        self.assertTrue(o.comp_comm_overlap_ratio.between(0, 1).all())


class RealProfile(unittest.TestCase):
    """HTA's A100 control trace (rank 3 of 8, one step), through the same code."""

    def setUp(self):
        path = Path(ARGS.shared_data) / REAL_PROFILE
        if not path.exists():
            self.skipTest(f"{path} is absent: third-party data kept beside the checkout "
                          "(../shared/data unless --shared-data names another folder)")
        self.tmp = tempfile.TemporaryDirectory()
        shutil.copy(path, self.tmp.name)
        self.traces = ta.load_kineto(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_breakdown_and_overlap_of_a_real_step(self):
        self.assertEqual(list(self.traces), [3])  # distributedInfo.rank (compact JSON: HTA's line rule misses it)
        t = self.traces[3]
        counts = t.gpu.kernel_type.value_counts()
        # 1,428 kernels of which the NCCL send/receive ones communicate; 38 copies and 109 memsets.
        self.assertEqual(counts[kineto.MEMORY], 38 + 109)
        self.assertEqual(counts[kineto.COMMUNICATION] + counts[kineto.COMPUTATION], 1428)
        self.assertGreater(counts[kineto.COMMUNICATION], 0)
        b = ta.temporal_breakdown(self.traces).iloc[0]
        self.assertAlmostEqual(b["idle_time(us)"] + b["compute_time(us)"] + b["non_compute_time(us)"],
                               b["kernel_time(us)"])
        first, last = t.gpu.ts.min(), t.gpu.end.max()
        self.assertEqual(b["kernel_time(us)"], last - first)
        for column in ["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]:
            self.assertTrue(0 < b[column] < 100, column)
        o = ta.comm_comp_overlap(self.traces).iloc[0]
        self.assertTrue(0 < o.comp_comm_overlap_ratio <= 1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--trainsim", required=True)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--shared-data", default=str(Path(__file__).resolve().parents[2] / ".." / "shared" / "data"))
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])
