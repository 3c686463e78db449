#!/usr/bin/env python3
"""Writes the derived calibration tables a100-80g.csv, h100-sxm.csv and h200.csv.

DERIVED, NOT MEASURED. Run once (python3 derive_tables.py, from this folder or with the
output folder as the first argument); the output is committed. A table whose header says
"source: measured" is never overwritten. Deterministic: the same
script writes byte-identical files. The shapes are trainsim-calibrate's full grid
(kernels/calibration_grid.cpp), so a measured table replaces a derived one row for row.

Figures (../../shared/validation/public.md, section D3):
  * maximum achievable matmul FLOP/s, bf16 (stas00/ml-engineering MAMF table):
    A100 SXM 271.2 TFLOP/s, H100 SXM 794.5, H200 "the same" as H100; fp8: H100 1402.6,
    H200 1453.4. The A100 has no fp8.
  * datasheet peaks: bf16 dense 312 (A100) / 989 (H100, H200) TFLOP/s; tf32 is half the
    bf16 rate (topologies/gpu_presets.cpp); HBM 2039 / 3350 / 4800 GB/s.
Stated assumptions (not measured, replace by a measured table):
  * fp16 runs at the bf16 rate (same datasheet tensor-core rate);
  * tf32 reaches the same fraction of its peak as bf16 does of its peak;
  * GEMM efficiency falls with size as 1 / (1 + 128/m + 128/n + 128/k): 128 is the tile
    edge of the large-tile tensor-core kernels cuBLAS picks, below which a dimension
    leaves part of a tile idle; the MAMF figure is the asymptote;
  * fused causal attention forward reaches 73 % of the bf16 peak on the A100 (upper end
    of "50-73 %", Dao 2023, FlashAttention-2, abstract) and 75 % on H100/H200 (Shah et
    al. 2024, FlashAttention-3, abstract), scaled by s / (s + 512) for short sequences;
    backward at 80 % of the forward rate;
  * A100 only, one calibration for the GPU type: its GEMM rates are scaled by end_to_end =
    0.865, fitted once so that the geometric mean of simulated over published TFLOP/s per
    GPU across all ten rows of Megatron-LM's Table 1 (Narayanan et al. SC21, public.md A1;
    scenarios/validation/) is 1 (1.005 with 0.865). MAMF is the best shape on a recent
    cuBLAS; the 2021 runs' GEMMs, through that era's kernels, reached less. The per-row
    errors (README, "Validation") are then within +-8 %; tests/step hold them within 15 %;
  * memory-bound kernels stream at 85 % of the datasheet HBM bandwidth, and every kernel
    pays 3 us of launch and tail (both as in sim/compute/roofline_compute_model.cpp).
  time = 3 us + max(flops / achieved_flops, bytes / (0.85 x HBM bandwidth)).
"""

import os
import sys

TILE = 128.0
OVERHEAD_S = 3e-6
MEMORY_EFFICIENCY = 0.85

GEMM_AXIS = [512, 2048, 8192, 32768]
BATCHED_M = [512, 2048, 8192]
BATCHED_NK = [128, 2048, 8192]
BATCHED_BATCH = [4, 32]
ATTENTION_SEQ = [512, 1024, 2048, 4096, 8192, 16384]
ATTENTION_HEAD_DIM = 128
ATTENTION_BATCH_HEADS = 32
ROW_KERNEL_ROWS = [256, 1024, 4096, 16384, 65536]
ROW_KERNEL_COLS = 8192
ADAM_PARAMS = [1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30]
COPY_BYTES = [1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30, 1 << 32]

GPUS = {
    "a100-80g": {
        "compute_capability": "8.0",
        "hbm_Bps": 2039e9,
        "peak_bf16": 312e12,
        "mamf": {"bf16": 271.2e12, "fp16": 271.2e12, "tf32": 156e12 * 271.2 / 312},
        "attention_fraction": 0.73,
        "end_to_end": 0.865,  # fitted to Megatron-LM Table 1, see the docstring
    },
    "h100-sxm": {
        "compute_capability": "9.0",
        "hbm_Bps": 3350e9,
        "peak_bf16": 989e12,
        "mamf": {"bf16": 794.5e12, "fp16": 794.5e12, "tf32": 494.5e12 * 794.5 / 989, "fp8": 1402.6e12},
        "attention_fraction": 0.75,
    },
    "h200": {
        "compute_capability": "9.0",
        "hbm_Bps": 4800e9,
        "peak_bf16": 989e12,
        "mamf": {"bf16": 794.5e12, "fp16": 794.5e12, "tf32": 494.5e12 * 794.5 / 989, "fp8": 1453.4e12},
        "attention_fraction": 0.75,
    },
}

IN_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "tf32": 4}
OUT_BYTES = {"bf16": 2, "fp16": 2, "fp8": 2, "tf32": 4}  # fp8 GEMMs write bf16


def fmt(x):
    return "%.6g" % x


def fmt_count(x):
    """Shape fields, FLOPs and bytes: exact integers where they are integers."""
    return "%d" % x if float(x).is_integer() and abs(x) < 1e18 else "%.6g" % x


def row(kernel, dtype, m, n, k, batch, time_s, flops, nbytes):
    return ",".join([kernel, dtype, fmt_count(m), fmt_count(n), fmt_count(k), fmt_count(batch), fmt(time_s),
                     fmt_count(flops), fmt_count(nbytes),
                     fmt(flops / time_s / 1e12), fmt(nbytes / time_s / 1e9)])


def roofline_time(flops, nbytes, achieved_flops, gpu):
    compute = flops / achieved_flops if flops > 0 else 0.0
    return OVERHEAD_S + max(compute, nbytes / (MEMORY_EFFICIENCY * gpu["hbm_Bps"]))


def gemm_rows(gpu, dtype, kernel, shapes):
    out = []
    for m, n, k, batch in shapes:
        flops = 2.0 * m * n * k * batch
        nbytes = ((m * k + k * n) * IN_BYTES[dtype] + m * n * OUT_BYTES[dtype]) * batch
        achieved = gpu["mamf"][dtype] * gpu.get("end_to_end", 1.0) / (1 + TILE / m + TILE / n + TILE / k)
        out.append(row(kernel, dtype, m, n, k, batch, roofline_time(flops, nbytes, achieved, gpu), flops, nbytes))
    return out


def attention_rows(gpu):
    out = []
    bh, d = ATTENTION_BATCH_HEADS, ATTENTION_HEAD_DIM
    for s in ATTENTION_SEQ:
        fwd_flops = 4.0 * bh * s * s * d * 0.5  # causal: half of QK^T and PV (layer_workload.cpp)
        fwd_bytes = 4.0 * bh * s * d * 2  # Q, K, V read, O written, bf16
        rate = gpu["peak_bf16"] * gpu["attention_fraction"] * s / (s + 512.0)
        t = roofline_time(fwd_flops, fwd_bytes, rate, gpu)
        out.append(row("attention_fwd", "bf16", s, s, d, bh, t, fwd_flops, fwd_bytes))
        bwd_flops, bwd_bytes = 2.5 * fwd_flops, 2.0 * fwd_bytes  # FlashAttention-2 §4.1 convention
        t = roofline_time(bwd_flops, bwd_bytes, 0.8 * rate, gpu)
        out.append(row("attention_bwd", "bf16", s, s, d, bh, t, bwd_flops, bwd_bytes))
    return out


def memory_rows(gpu):
    out = []
    cols = ROW_KERNEL_COLS
    # HBM bytes per kernel, as trainsim-calibrate counts them (kernels/README.md).
    per_kernel = {
        "layernorm": lambda r: 4.0 * r * cols + 4.0 * cols,
        "rmsnorm": lambda r: 4.0 * r * cols + 2.0 * cols,
        "softmax": lambda r: 4.0 * r * cols,
        "gelu": lambda r: 4.0 * r * cols,
        "swiglu": lambda r: 6.0 * r * cols,
        "add": lambda r: 6.0 * r * cols,
    }
    for kernel in sorted(per_kernel):
        for r in ROW_KERNEL_ROWS:
            nbytes = per_kernel[kernel](r)
            out.append(row(kernel, "bf16", r, cols, 0, 1, roofline_time(0, nbytes, 1, gpu), 0, nbytes))
    for p in ADAM_PARAMS:
        nbytes = 30.0 * p
        out.append(row("adam", "fp32", p, 1, 0, 1, roofline_time(0, nbytes, 1, gpu), 0, nbytes))
    for size in COPY_BYTES:
        nbytes = 2.0 * size
        out.append(row("copy_d2d", "u8", size, 1, 0, 1, roofline_time(0, nbytes, 1, gpu), 0, nbytes))
    return out


def table(name, gpu):
    lines = [
        "# gpu: %s (derived)" % name,
        "# trainsim_gpu: %s" % name,
        "# compute_capability: %s" % gpu["compute_capability"],
        "# source: derived from stas00/ml-engineering MAMF max achievable matmul (public.md D3), NVIDIA "
        "datasheet peaks and HBM bandwidths (public.md D3), FlashAttention-2 (Dao 2023) and "
        "FlashAttention-3 (Shah et al. 2024) abstracts, with the size-dependent efficiencies stated in "
        "kernels/calibration/derive_tables.py",
        "# note: DERIVED, NOT MEASURED. Replace with the output of trainsim-calibrate (kernels/README.md).",
        "# generator: kernels/calibration/derive_tables.py",
    ]
    if "end_to_end" in gpu:
        lines.append("# calibration: GEMM rates x %s, fitted to Megatron-LM Table 1 (public.md A1)" % gpu["end_to_end"])
    lines.append("kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps")
    dtypes = [d for d in ("bf16", "fp16", "fp8", "tf32") if d in gpu["mamf"]]
    for dtype in dtypes:
        lines += gemm_rows(gpu, dtype, "gemm", [(m, n, k, 1) for m in GEMM_AXIS for n in GEMM_AXIS for k in GEMM_AXIS])
    for dtype in [d for d in ("bf16", "fp16", "fp8") if d in gpu["mamf"]]:
        shapes = [(m, n, k, b) for m in BATCHED_M for n in BATCHED_NK for k in BATCHED_NK for b in BATCHED_BATCH]
        lines += gemm_rows(gpu, dtype, "batched_gemm", shapes)
    lines += attention_rows(gpu)
    lines += memory_rows(gpu)
    return "\n".join(lines) + "\n"


def is_measured(path):
    """True if `path` is a table trainsim-calibrate measured: never overwrite one."""
    if not os.path.exists(path):
        return False
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                return False
            key, _, value = line[1:].partition(":")
            if key.strip().lower() == "source":
                return value.strip().lower().startswith("measured")
    return False


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name in sorted(GPUS):
        path = os.path.join(folder, name + ".csv")
        if is_measured(path):
            print("%s is measured: left as it is" % path)
            continue
        with open(path, "w", newline="\n") as f:
            f.write(table(name, GPUS[name]))


if __name__ == "__main__":
    main()
