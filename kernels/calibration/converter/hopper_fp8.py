"""Hopper fp8 GEMMs, dense and grouped (expert): the fp8 gain over bf16 by rows (per group) and
reduction depth, from DeepGEMM's measured H800 rates (derived:deepgemm-fp8-gain, refs.RULES).

The H100 and H200 tables have no fp8 GEMM measurement (XLA's sm_90 fp8 rows exceed the H100's
fp8 peak), so their fp8 rows are the measured bf16 rows at a faster rate. The MAMF ratio
(794.5/1402.6) is the gain of the best-shaped large GEMMs only; DeepGEMM's tables
(public_figures.DEEPGEMM_H800_FP8: six dense GEMMs of 1,024 and 4,096 rows, ten grouped ones)
measure less at most shapes: against XLA's bf16 rate at the same shape, 1.36 x at k = 512 and 1.43 to
1.64 x at 256 to 1,024 rows per group, 1.6 to 1.7 x at 4,096 rows and k = 2,048 to 7,168,
1.83 x only at k = 16,384 (a GEMM's prologue, epilogue and bf16 output do not get faster with
the operands' format; the shallower the product or the fewer its rows, the larger their share).
The rule applies to every bf16 XLA row: batched ones (the grouped expert GEMMs,
sim/compute/calibrated_compute_model.cpp) by all of DeepGEMM's rows, dense ones (batch 1,
among them the chunks a userbuffers ring exchange splits a GEMM into) by its six dense GEMMs
only (1,024 and 4,096 rows): its grouped kernels' masked layout runs 16 % below the dense
kernel at the same total rows. Dense gains: 1.36 x at 4,096 rows and k = 512, 1.5 to 1.6 x at
512 to 2,048 rows, 1.6 x at 4,096 rows and k = 2,048 to 8,192, the MAMF cap 1.77 x at
4,096 rows and k = 16,384. XLA's grid ends at k = 4,096; the dense rows go on to k = 8,192 and
16,384 (DeepGEMM's deepest) from the bf16 rate at 4,096, so that deep GEMMs (Llama 3.1 405B's
at k = 13,312 and 16,384, GPT-3's at 12,288) do not stop at the edge's rate (kernel_curve.hpp
holds a curve's best rate beyond its grid).
"""

import math

from .public_figures import DEEPGEMM_H800_FP8
from .refs import MAMF_BF16, MAMF_FP8, XLA_EDGE
from .rows import gemm_row
from .src_xla import xla_rate

TILE = 128  # DeepGEMM's and cuBLAS's Hopper tile edge: n a multiple of it fills whole tiles
IDW_POWER = 2  # inverse-distance weighting in (log2 rows, log2 k)
DEEP_K = (8192, 16384)  # dense fp8 rows beyond XLA's k: up to DeepGEMM's deepest measured k


def deepgemm_gain_points(h100_entries, dense_only=False):
    """[(log2 rows per group, log2 k, fp8 time / bf16 time)] at each DeepGEMM shape whose n fills
    whole tiles (n = 2,112 leaves half a tile column idle where XLA's bf16 rows, all multiples of
    256, leave none): DeepGEMM's time over the H100's XLA bf16 time at the same per-group shape
    (batched rows at batch min(groups, 4) for several groups, single GEMMs for one; each
    coordinate clamped to XLA's 256..4096). Repeats of one (rows, k) are averaged in log.
    dense_only: only the plain GEMMs (one group: 1,024 and 4,096 rows), not the grouped kernels,
    whose masked layout (256 to 1,024 rows a group) runs 16 % below the dense kernel at the same
    total rows (2 x 512 rows at k 7,168: 1,040 TFLOP/s; 1,024 rows dense: 1,233)."""
    by_point = {}
    for groups, m, n, k, tflops in DEEPGEMM_H800_FP8:
        if n % TILE or (dense_only and groups > 1):
            continue
        batch = 1 if groups == 1 else min(groups, 4)
        bf16 = xla_rate(h100_entries, "bf16", batch, m, n, k)
        by_point.setdefault((math.log2(m), math.log2(k)), []).append(math.log(bf16 / (tflops * 1e12)))
    return [(lm, lk, math.exp(sum(v) / len(v))) for (lm, lk), v in sorted(by_point.items())]


def gain_ratio(points, m, k, gpu_name):
    """fp8 time over bf16 time at rows m, depth k: the points' ratios weighted by inverse squared
    distance in (log2 m, log2 k) (exact at a point), scaled from the H100's MAMF gain to the
    GPU's (1402.6 / 1453.4 for the H200), never below the GPU's MAMF ratio nor above 1."""
    x, y = math.log2(m), math.log2(k)
    weights, total = 0.0, 0.0
    for lm, lk, ratio in points:
        d2 = (x - lm) ** 2 + (y - lk) ** 2
        if d2 == 0:
            weights, total = 1.0, math.log(ratio)
            break
        w = d2 ** (-IDW_POWER / 2)
        weights += w
        total += w * math.log(ratio)
    ratio = math.exp(total / weights) * MAMF_FP8["h100-sxm"] / MAMF_FP8[gpu_name]
    return min(1.0, max(MAMF_BF16 / MAMF_FP8[gpu_name], ratio))


def fp8_from_bf16(bf16_rows, h100_entries, gpu_name):
    """fp8 rows of the bf16 GEMM rows, dense (batch 1) and batched alike: bf16 time x gain_ratio
    at the (per-group) rows and depth. Dense rows also at DEEP_K beyond XLA's k = 4,096: the
    bf16 rate at k = 4,096 (the base each DeepGEMM point's gain is taken against, its k
    clamped there) x gain_ratio at the deeper k, so the rows reproduce DeepGEMM's measured rate
    at its points and the grid stays complete (every m, n at every k)."""
    grouped, dense = deepgemm_gain_points(h100_entries), deepgemm_gain_points(h100_entries, dense_only=True)
    rows = []
    for r in bf16_rows:
        if r.dtype != "bf16":
            continue
        points = dense if r.batch == 1 else grouped
        rows.append(gemm_row("fp8", r.m, r.n, r.k, r.batch, r.time_s * gain_ratio(points, r.m, r.k, gpu_name),
                             "derived:deepgemm-fp8-gain"))
        if r.batch == 1 and r.k == XLA_EDGE:
            rows += [gemm_row("fp8", r.m, r.n, k, 1, r.time_s * k / XLA_EDGE * gain_ratio(points, r.m, k, gpu_name),
                              "derived:deepgemm-fp8-gain") for k in DEEP_K]
    return rows
