"""Fused attention at head dim 64 (GPT-OSS), beside the head-dim-128 rows every table has.

Measured: cuDNN's GPT-OSS benchmark (public_figures.CUDNN_GPT_OSS), head dim 64 with a sliding
window: H200 (window 1024), GB200 and GB300 (window 128); each row counts only the keys its window
reads (rows.attention_rows with `window`). Derived where no GPU was timed:
- H200 rows at a 128-key window from GB200's (gb200-window-h200-rate: the H200 was timed at a
  1024-key window only, and a curve of those alone caps a narrower window at their bytes/s);
- H100 and B200 windowed rows from the H200 and GB200 ones (the rules their head-dim-128
  rows already follow: h200-cudnn, gb200-mamf-ratio); B300 from GB300 through the table's own
  gb300-cudnn rule;
- full causal attention at head dim 64, which no cuDNN results file times: the table's own
  head-dim-128 row at the same sequence, batch and heads, at that rate x cuDNN's measured
  head-dim-64 / head-dim-128 rate ratio at the sequence on H100 (the FlashAttention-3 paper's
  benchmark, public_figures.FA3_CUDNN_H100_TFLOPS; fa3-headdim-ratio). The H200's windowed
  head-dim-64 rows are no measure of it: a 1024-key band at 2K..32K runs at 0.54 of the
  head-dim-128 causal rate where the full causal kernel runs at 0.69..0.72. The Blackwell tables
  take the same ratio: no Blackwell benchmark publishes cuDNN's full causal kernel at both head
  dims; FlashAttention-4 on B200 (Dao-AILab/flash-attention#2605, its description) runs head dim
  64 causal forward at 0.67 of head dim 128 at 4K (707 and 1061 TFLOP/s), cuDNN on H100 at 0.70.
Rules in refs.RULES.
"""

import math
import statistics

from . import public_figures as fig
from .refs import mamf_ratio
from .rows import attention_rows
from .src_cudnn import cudnn_h200, cudnn_llama

HEAD_DIM = 64
BASE_HEAD_DIM = 128


def windowed_rows(gpu, origin="measured:cudnn-gpt-oss"):
    """cuDNN's head-dim-64 sliding-window rows of `gpu` (h200, gb200, gb300)."""
    f = fig.CUDNN_GPT_OSS[gpu]
    rows = []
    for seq, fwd_ms, bwd_ms in f["ms"]:
        rows += attention_rows(seq, f["batch"], f["heads"], f["kv_heads"], f["head_dim"], fwd_s=fwd_ms * 1e-3,
                               bwd_s=bwd_ms * 1e-3, origin=origin, window=f["window"])
    return rows


def h200_short_window_rows():
    """H200 head-dim-64 rows at GB200's 128-key window (the H200 was timed at 1024 only):
    GB200's measured time x its head-dim-128 cuDNN rate over the H200's (gb200-window-h200-rate)."""
    ratio = gb200_over_h200_rate()
    return [r.with_time(r.time_s * ratio[r.kernel], "derived:gb200-window-h200-rate") for r in windowed_rows("gb200")]


def gb200_over_h200_rate():
    """{kernel: GB200 head-dim-128 cuDNN FLOP/s over the H200's}, the median over the sequences
    both timed (same benchmark and shapes but the batch)."""
    def rates(entries):
        out = {}
        for e in entries:
            for r in attention_rows(*e, origin=""):
                out[(r.kernel, r.m)] = r.flops / r.time_s
        return out
    h200, gb200 = rates(cudnn_h200()), rates(cudnn_llama("gb200"))
    ratios = {}
    for key, rate in gb200.items():
        if key in h200:
            ratios.setdefault(key[0], []).append(rate / h200[key])
    return {kernel: statistics.median(values) for kernel, values in ratios.items()}


def h200_windowed_rows():
    return windowed_rows("h200") + h200_short_window_rows()


def h100_windowed_rows():
    return [r.with_time(r.time_s, "derived:h200-cudnn") for r in h200_windowed_rows()]


def b200_windowed_rows():
    scale = 1.0 / mamf_ratio("b200", "gb200", "bf16")
    return [r.with_time(r.time_s * scale, "derived:gb200-mamf-ratio") for r in windowed_rows("gb200")]


def fa3_ratio(kernel, seq):
    """cuDNN's head-dim-64 / head-dim-128 rate ratio of the pass at `seq` on H100
    (public_figures.FA3_CUDNN_H100_TFLOPS): log-linear in the sequence between the measured ones,
    held beyond them (512..16384)."""
    points = sorted((s, r64 / r128) for s, (r64, r128) in fig.FA3_CUDNN_H100_TFLOPS[kernel].items())
    if seq <= points[0][0]:
        return points[0][1]
    for (s0, r0), (s1, r1) in zip(points, points[1:]):
        if seq <= s1:
            t = math.log(seq / s0) / math.log(s1 / s0)
            return r0 + t * (r1 - r0)
    return points[-1][1]


def full_rows_from_base(rows):
    """Head-dim-64 full causal rows (fa3-headdim-ratio) at every bf16 head-dim-128 full causal
    attention row of `rows` (FLOPs and bytes halve with the head width; time = FLOPs / (the row's
    rate x cuDNN's measured ratio at its sequence)), but not at shapes `rows` has a head-dim-64 row at."""
    have = {(r.kernel, r.m, r.n, r.batch) for r in rows if r.kernel.startswith("attention_") and r.k == HEAD_DIM}
    out = []
    for r in rows:
        if not r.kernel.startswith("attention_") or r.dtype != "bf16" or r.k != BASE_HEAD_DIM or r.m != r.n:
            continue
        if (r.kernel, r.m, r.n, r.batch) in have:
            continue
        flops, nbytes = r.flops // 2, r.bytes // 2
        time_s = flops / (r.flops / r.time_s * fa3_ratio(r.kernel, r.m))
        out.append(type(r)(r.kernel, r.dtype, r.m, r.n, HEAD_DIM, r.batch, time_s, flops, nbytes,
                           "derived:fa3-headdim-ratio"))
    return out
