#!/usr/bin/env python3
"""Checks the head-dim-64 attention rows of the shipped calibration tables (run by CTest as
CalibrationTables.HeadDim64Rows; standard library only; reads the committed tables and the
converter's figures, kernels/calibration/converter/public_figures.py CUDNN_GPT_OSS):

- the measured rows are cuDNN's GPT-OSS figures, each counting only the keys its sliding window
  reads, at the rate cuDNN's own TFLOP/s column gives;
- every fa3-headdim-ratio row is a head-dim-128 row of its table at half the FLOPs and bytes and
  cuDNN's measured head-dim-64 / head-dim-128 rate ratio on H100 at its sequence, recomputed here
  from the FlashAttention-3 paper's figures (public_figures.FA3_CUDNN_H100_TFLOPS): log-linear in
  the sequence between them, held beyond 16K;
- the A100 table has none (nothing measured or derived for it).

    python3 tests/compute/convert_head_dim_test.py
"""

import os
import math
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALIBRATION = os.path.join(ROOT, "kernels", "calibration")
sys.dont_write_bytecode = True
sys.path.insert(0, CALIBRATION)
from converter import public_figures as fig  # noqa: E402
from converter.refs import RULES  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibration_csv import read_table  # noqa: E402

# cuDNN's own fwd/bwd TFLOP/s column at one sequence per file (NVIDIA/cudnn-frontend @ 3929da2e,
# benchmark/sdpa_benchmark_training/results/..., the files public_figures.py names).
CUDNN_TFLOPS = {"h200": (32768, 358.0, 299.0), "gb200": (16384, 167.0, 188.0), "gb300": (8192, 172.0, 198.0)}


def read_rows(gpu):
    return read_table(os.path.join(CALIBRATION, gpu + ".csv"))[2]


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL " + message)


def measured_rows():
    for gpu, f in fig.CUDNN_GPT_OSS.items():
        rows = [r for r in read_rows(gpu) if r["origin"] == "measured:cudnn-gpt-oss"]
        check(len(rows) == 2 * len(f["ms"]), "%s: %d measured head-dim-64 rows" % (gpu, len(rows)))
        w, b, h, d = f["window"], f["batch"], f["heads"], f["head_dim"]
        for seq, fwd_ms, bwd_ms in f["ms"]:
            flops = 4.0 * b * h * d * (seq * w - w * w / 2)
            for kernel, ms, factor in (("attention_fwd", fwd_ms, 1.0), ("attention_bwd", bwd_ms, 2.5)):
                match = [r for r in rows if r["kernel"] == kernel and r["m"] == seq and r["n"] == w and
                         r["k"] == d and r["batch"] == b * h]
                check(len(match) == 1, "%s %s %d: no row" % (gpu, kernel, seq))
                r = match[0]
                check(abs(r["time_s"] - ms * 1e-3) <= 1e-12, "%s %s %d: time" % (gpu, kernel, seq))
                check(r["flops"] == flops * factor, "%s %s %d: FLOPs %g, not the window's %g"
                      % (gpu, kernel, seq, r["flops"], flops * factor))
        seq, fwd_tflops, bwd_tflops = CUDNN_TFLOPS[gpu]
        for kernel, tflops in (("attention_fwd", fwd_tflops), ("attention_bwd", bwd_tflops)):
            r = [r for r in rows if r["kernel"] == kernel and r["m"] == seq][0]
            rate = r["flops"] / r["time_s"] / 1e12
            check(abs(rate / tflops - 1) < 0.01, "%s %s %d: %.1f TFLOP/s, cuDNN says %.0f" % (gpu, kernel, seq, rate,
                                                                                            tflops))


def fa3_ratio(kernel, seq):
    """The head-dim-64 / head-dim-128 rate ratio of the pass at `seq`, from the figures."""
    points = sorted((s, a / b) for s, (a, b) in fig.FA3_CUDNN_H100_TFLOPS[kernel].items())
    check([p[0] for p in points] == [512, 1024, 2048, 4096, 8192, 16384], "%s: FA3 sequences" % kernel)
    seq = min(max(seq, points[0][0]), points[-1][0])
    for (s0, r0), (s1, r1) in zip(points, points[1:]):
        if s0 <= seq <= s1:
            return r0 + (r1 - r0) * math.log(seq / s0) / math.log(s1 / s0)
    raise AssertionError(seq)


def rule_quotes_the_ratios():
    text = RULES["fa3-headdim-ratio"]
    for kernel, words in (("attention_fwd", "forward causal %.3f at 512 .. %.3f at 4K .. %.3f at 16K"),
                          ("attention_bwd", "backward %.3f .. %.3f .. %.3f")):
        quoted = words % tuple(fa3_ratio(kernel, s) for s in (512, 4096, 16384))
        check(quoted in text, "the fa3-headdim-ratio rule does not say '%s'" % quoted)


def derived_rows():
    rule_quotes_the_ratios()
    for gpu in ("h100-sxm", "h200", "b200", "gb200", "b300", "gb300"):
        rows = read_rows(gpu)
        derived = [r for r in rows if r["origin"] == "derived:fa3-headdim-ratio"]
        check(derived, "%s: no derived head-dim-64 rows" % gpu)
        for r in derived:
            base = [b for b in rows if b["kernel"] == r["kernel"] and b["dtype"] == "bf16" and b["k"] == 128 and
                    (b["m"], b["n"], b["batch"]) == (r["m"], r["n"], r["batch"])]
            check(base, "%s: %s %g has no head-dim-128 row" % (gpu, r["kernel"], r["m"]))
            base = [b for b in base if r["flops"] * 2 == b["flops"] and r["bytes"] * 2 == b["bytes"]]
            check(base, "%s: %s %g: not half a head-dim-128 row's FLOPs and bytes" % (gpu, r["kernel"], r["m"]))
            want = [b["flops"] / b["time_s"] * fa3_ratio(r["kernel"], r["m"]) for b in base]
            rate = r["flops"] / r["time_s"]
            check(any(abs(rate / x - 1) < 1e-6 for x in want), "%s: %s %g: rate %g" % (gpu, r["kernel"], r["m"], rate))
    check(not [r for r in read_rows("a100-80g") if r["kernel"].startswith("attention_") and r["k"] == 64],
          "a100-80g: head-dim-64 rows")


if __name__ == "__main__":
    measured_rows()
    derived_rows()
    print("ok   HeadDim64Rows")
