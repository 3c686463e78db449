#!/usr/bin/env python3
"""Checks the head-dim-64 attention rows of the shipped calibration tables (run by CTest as
CalibrationTables.HeadDim64Rows; standard library only; reads the committed tables and the
converter's figures, kernels/calibration/converter/public_figures.py CUDNN_GPT_OSS):

- the measured rows are cuDNN's GPT-OSS figures, each counting only the keys its sliding window
  reads, at the rate cuDNN's own TFLOP/s column gives;
- every h200-headdim-ratio row is a head-dim-128 row of its table at half the FLOPs and bytes and
  the H200's measured head-dim-64 / head-dim-128 rate ratio, recomputed here from the H200 table;
- the A100 table has none (nothing measured or derived for it).

    python3 tests/compute/convert_head_dim_test.py
"""

import os
import statistics
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


def h200_ratio():
    rows = read_rows("h200")
    ratio = {}
    for kernel in ("attention_fwd", "attention_bwd"):
        base = {r["m"]: r["flops"] / r["time_s"] for r in rows if r["kernel"] == kernel and r["dtype"] == "bf16" and
                r["k"] == 128 and r["origin"] == "measured:cudnn"}
        own = [r["flops"] / r["time_s"] / base[r["m"]] for r in rows
               if r["kernel"] == kernel and r["origin"] == "measured:cudnn-gpt-oss" and r["m"] in base]
        check(len(own) == 5, "h200 %s: %d sequences timed at both head dims" % (kernel, len(own)))
        ratio[kernel] = statistics.median(own)
    text = RULES["h200-headdim-ratio"]
    check("forward %.3f" % ratio["attention_fwd"] in text and "backward %.3f" % ratio["attention_bwd"] in text,
          "the h200-headdim-ratio rule quotes other ratios than %s" % ratio)
    return ratio


def derived_rows():
    ratio = h200_ratio()
    for gpu in ("h100-sxm", "h200", "b200", "gb200", "b300", "gb300"):
        rows = read_rows(gpu)
        derived = [r for r in rows if r["origin"] == "derived:h200-headdim-ratio"]
        check(derived, "%s: no derived head-dim-64 rows" % gpu)
        for r in derived:
            base = [b for b in rows if b["kernel"] == r["kernel"] and b["dtype"] == "bf16" and b["k"] == 128 and
                    (b["m"], b["n"], b["batch"]) == (r["m"], r["n"], r["batch"])]
            check(base, "%s: %s %g has no head-dim-128 row" % (gpu, r["kernel"], r["m"]))
            base = [b for b in base if r["flops"] * 2 == b["flops"] and r["bytes"] * 2 == b["bytes"]]
            check(base, "%s: %s %g: not half a head-dim-128 row's FLOPs and bytes" % (gpu, r["kernel"], r["m"]))
            want = [b["flops"] / b["time_s"] * ratio[r["kernel"]] for b in base]
            rate = r["flops"] / r["time_s"]
            check(any(abs(rate / x - 1) < 1e-6 for x in want), "%s: %s %g: rate %g" % (gpu, r["kernel"], r["m"], rate))
    check(not [r for r in read_rows("a100-80g") if r["kernel"].startswith("attention_") and r["k"] == 64],
          "a100-80g: head-dim-64 rows")


if __name__ == "__main__":
    measured_rows()
    derived_rows()
    print("ok   HeadDim64Rows")
