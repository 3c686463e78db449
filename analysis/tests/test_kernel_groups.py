"""trainsim_analysis.kernel_groups on a profiler trace written here: kernels assigned to the
block annotation their launch ran in, grouped by name (GEMMs by block), summed per layer, and
set beside a `trainsim layer --json` written here; bad input exits 2.

Run: /usr/bin/python3 analysis/tests/test_kernel_groups.py
"""

import gzip
import io
import json
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from trainsim_analysis import kernel_groups as kg  # noqa: E402


def trace_with(kernels, blocks):
    """kernels: (name, launch ts, duration us); blocks: (name, ts, dur)."""
    events = [{"ph": "X", "cat": "user_annotation", "name": n, "ts": ts, "dur": dur} for n, ts, dur in blocks]
    for i, (name, launched, dur) in enumerate(kernels):
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": launched, "dur": 1,
                       "args": {"correlation": i}})
        events.append({"ph": "X", "cat": "kernel", "name": name, "ts": launched + 5, "dur": dur,
                       "args": {"correlation": i, "stream": 7}})
    return {"traceEvents": events}


TRACE = trace_with(
    [("void flash::compute_attn_ws<...>", 10, 400),
     ("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>", 20, 100),
     ("void cuda::per_token_cast_to_fp8_with_channels<...>", 30, 40),
     ("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>", 210, 600),
     ("void layer_norm::ln_bwd_kernel<...>", 220, 60),
     ("void at::native::vectorized_elementwise_kernel<4, add>", 230, 20),
     ("void dpsk::ep::internode::dispatch<false, 8, true, 8>", 410, 900),
     ("void at::native::elementwise_kernel<outside>", 900, 1000)],
    [("ProfilerStep#1", 0, 2000), ("attn(F)", 0, 100), ("mlp(B)", 200, 100), ("dispatch(F)", 400, 50)])

LAYER = {"ops": [
    {"pass": "forward", "op": "attention", "time_s": 300e-6, "kernels": 1},
    {"pass": "forward", "op": "qkv", "time_s": 50e-6, "kernels": 1},
    {"pass": "forward", "op": "qkv.quantize", "time_s": 20e-6, "kernels": 2},
    {"pass": "recompute", "op": "qkv", "time_s": 50e-6, "kernels": 1},
    {"pass": "backward", "op": "experts.up.dgrad", "time_s": 150e-6, "kernels": 16},
    {"pass": "backward", "op": "experts.up.wgrad", "time_s": 150e-6, "kernels": 16},
    {"pass": "backward", "op": "mlp.norm.bwd", "time_s": 30e-6, "kernels": 1},
    {"pass": "backward", "op": "moe.permute.bwd", "time_s": 5e-6, "kernels": 1},
]}


def cell(table, group, pass_, column):
    row = table[(table.group == group) & (table["pass"] == pass_)]
    return float(row[column].iloc[0])


class KernelGroups(unittest.TestCase):
    def test_kernels_fall_into_their_blocks_and_groups_per_layer(self):
        t = kg.trace_groups(TRACE, layers=2)
        self.assertAlmostEqual(cell(t, "attention", "forward", "trace_s"), 200e-6)
        # The same GEMM kernel family counts by the block it ran in.
        self.assertAlmostEqual(cell(t, "attention GEMMs", "forward", "trace_s"), 50e-6)
        self.assertAlmostEqual(cell(t, "MLP GEMMs", "backward", "trace_s"), 300e-6)
        self.assertAlmostEqual(cell(t, "fp8 casts", "forward", "trace_s"), 20e-6)
        self.assertAlmostEqual(cell(t, "norms", "backward", "trace_s"), 30e-6)
        self.assertAlmostEqual(cell(t, "other compute", "backward", "trace_s"), 10e-6)
        self.assertAlmostEqual(cell(t, "all-to-all kernels", "forward", "trace_s"), 450e-6)
        # A kernel launched outside every block annotation is left out.
        self.assertAlmostEqual(t.trace_s.sum(), (400 + 100 + 40 + 600 + 60 + 20 + 900) * 1e-6 / 2)
        self.assertAlmostEqual(cell(t, "MLP GEMMs", "backward", "trace_kernels"), 0.5)

    def test_layer_ops_group_by_name_without_recomputation(self):
        t = kg.layer_groups(LAYER)
        self.assertAlmostEqual(cell(t, "attention GEMMs", "forward", "trainsim_s"), 50e-6)
        self.assertAlmostEqual(cell(t, "MLP GEMMs", "backward", "trainsim_s"), 300e-6)
        self.assertEqual(cell(t, "MLP GEMMs", "backward", "trainsim_kernels"), 32)
        self.assertAlmostEqual(cell(t, "fp8 casts", "forward", "trainsim_s"), 20e-6)
        self.assertAlmostEqual(cell(t, "other compute", "backward", "trainsim_s"), 5e-6)

    def test_comparison_and_table(self):
        t = kg.compare(TRACE, 2, LAYER)
        self.assertAlmostEqual(cell(t, "attention", "forward", "ratio"), 1.5)
        self.assertAlmostEqual(cell(t, "MLP GEMMs", "backward", "ratio"), 1.0)
        text = kg.markdown(t)
        self.assertIn("| attention | forward | 200 | 0.5 | 300 | 1 | 1.50 |", text)
        self.assertIn("| all-to-all kernels | forward | 450 |", text)
        self.assertTrue(text.splitlines()[-1].startswith("| compute | both | 610 |"))

    def test_command_line_reads_gzip_and_refuses_bad_input(self):
        with tempfile.TemporaryDirectory() as d:
            trace = Path(d) / "t.json.gz"
            with gzip.open(trace, "wt") as f:
                json.dump(TRACE, f)
            layer = Path(d) / "layer.json"
            layer.write_text(json.dumps(LAYER))
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(kg.main([str(trace), str(layer), "--layers", "2"]), 0)
            self.assertIn("| MLP GEMMs | backward | 300 |", out.getvalue())
            err = io.StringIO()
            with redirect_stderr(err):
                self.assertEqual(kg.main([str(layer), str(layer), "--layers", "2"]), 2)
                self.assertEqual(kg.main([str(trace), str(trace), "--layers", "2"]), 2)
                self.assertEqual(kg.main([str(trace), str(layer), "--layers", "0"]), 2)
            self.assertIn("not a PyTorch profiler trace", err.getvalue())


if __name__ == "__main__":
    unittest.main()
