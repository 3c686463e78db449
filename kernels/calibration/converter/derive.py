"""Derivations of rows no measurement covers on the Hopper and Ampere GPUs, and the memory-bound
rows of every GPU (rules in refs.RULES)."""

from .refs import A100_PEAK_BF16, FA2_FRACTION, H200_PEAK_BF16
from .rows import (ADAM_PARAMS, COPY_BYTES, GPUS, OVERHEAD_S, ROW_KERNEL_COLS, ROW_KERNEL_ROWS, Row, attention_rows,
                   gemm_row, memory_row, roofline_time)
from .src_cudnn import cudnn_h200


def fa2_a100_attention():
    h200 = cudnn_h200()
    longest = max(h200)
    ref = attention_rows(*longest, origin="")[0]
    ref_eff = ref.flops / ref.time_s / H200_PEAK_BF16
    rows = []
    for e in h200:
        fwd, bwd = attention_rows(*e, origin="derived:fa2-efficiency")
        eff = FA2_FRACTION * (fwd.flops / fwd.time_s / H200_PEAK_BF16) / ref_eff
        t_fwd = fwd.flops / (eff * A100_PEAK_BF16)
        rows += [fwd.with_time(t_fwd, fwd.origin), bwd.with_time(t_fwd * bwd.time_s / fwd.time_s, bwd.origin)]
    return rows


def h200_memory_from_h100(h100_rows):
    ratio = GPUS["h100-sxm"]["hbm_Bps"] / GPUS["h200"]["hbm_Bps"]
    out = []
    for r in h100_rows:
        o = min(OVERHEAD_S, r.time_s)
        out.append(r.with_time(o + (r.time_s - o) * ratio, "derived:h100-bandwidth"))
    return out


def roofline_memory_rows(gpu, present):
    """Rows of the memory-bound kernels the GPU has no other row for."""
    rows = []
    o = "derived:hbm-roofline"
    for kernel in ("layernorm", "rmsnorm", "softmax", "gelu", "swiglu", "add", "rope"):
        if kernel in present:
            continue
        for r in ROW_KERNEL_ROWS:
            row = memory_row(kernel, "bf16", r, ROW_KERNEL_COLS, 0, o)
            rows.append(row.with_time(roofline_time(row.bytes, gpu), o))
    if "adam" not in present:
        for p in ADAM_PARAMS:
            rows.append(Row("adam", "fp32", p, 1, 0, 1, roofline_time(30 * p, gpu), 0, 30 * p, o))
    if "copy_d2d" not in present:
        for size in COPY_BYTES:
            rows.append(Row("copy_d2d", "u8", size, 1, 0, 1, roofline_time(2 * size, gpu), 0, 2 * size, o))
    return rows


