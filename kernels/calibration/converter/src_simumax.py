"""MooreThreads/SimuMax b200_bf16_ceperm.json: measured:simumax."""

import json
import os

from .rows import PATHS, SIMUMAX_FILE, attention_rows, gemm_row


def simumax_ops():
    """The `op` section of SimuMax's B200 file: {op: {"tflops": peak, "accurate_efficient_factor":
    {shape key: efficiency}}}."""
    with open(os.path.join(PATHS["simumax"], SIMUMAX_FILE)) as f:
        return json.load(f)["accelerator"]["op"]


def simumax_fields(key):
    """'b=1, m=4096, ...' -> {'b': '1', 'm': '4096', ...}"""
    return dict(part.split("=", 1) for part in key.split(", "))


def simumax_entries(op):
    """[(fields, seconds per FLOP at the entry's efficiency)] of one SimuMax op, in file order:
    efficiency = achieved FLOP/s / the op's `tflops` (2250, the HGX B200's dense bf16 peak)."""
    section = simumax_ops()[op]
    peak = float(section["tflops"]) * 1e12
    return [(simumax_fields(key), 1.0 / (float(eff) * peak)) for key, eff in section["accurate_efficient_factor"].items()]


# SimuMax's GEMM layouts (Transformer Engine general_gemm; test_gemm_efficiency.py) -> the
# table's kernels, each in the workload's shape convention (models/layer_workload.cpp):
# forward TN m tokens x n out x k in; data gradient NN m tokens x n in x k out (SimuMax's own
# m, n, k); weight gradient NT: SimuMax's m out x n in over k tokens is the workload's m in x
# n out over k tokens, so m and n swap.
SIMUMAX_LAYOUTS = {"TN": "gemm", "NN": "gemm_dgrad", "NT": "gemm_wgrad"}


def simumax_gemm_rows():
    """SimuMax's dense bf16 GEMMs: time = 2*b*m*n*k / (efficiency * 2250 TFLOP/s). The NT rows
    accumulating into a bf16 main_grad (82, the grad_reduce_in_bf16 variant) are left out: the
    table's gemm_wgrad is the fp32-main_grad GEMM Megatron-Core runs by default."""
    rows = []
    for f, s_per_flop in simumax_entries("matmul"):
        b, m, n, k = (int(f[c]) for c in ("b", "m", "n", "k"))
        layout, accumulate, out = f["layout"], f["accumulate"], f["out_dtype"]
        if b != 1 or layout not in SIMUMAX_LAYOUTS:
            raise SystemExit("convert_public.py: SimuMax matmul %r: unexpected batch or layout" % f)
        if layout == "NT":
            if accumulate != "True" or out not in ("fp32", "bf16"):
                raise SystemExit("convert_public.py: SimuMax NT matmul %r: unexpected accumulation" % f)
            if out == "bf16":
                continue
            m, n = n, m
        elif accumulate != "False" or out != "bf16":
            raise SystemExit("convert_public.py: SimuMax matmul %r: unexpected output" % f)
        rows.append(gemm_row("bf16", m, n, k, 1, 2 * m * n * k * s_per_flop, "measured:simumax",
                             SIMUMAX_LAYOUTS[layout]))
    return rows


# SimuMax's grouped GEMM stages (test_grouped_gemm_efficiency.py: ng groups of M tokens, N out,
# K in) -> the table's kernels and the workload's (m, n, k) as for the dense layouts.
SIMUMAX_GROUPED = {"fwd": ("grouped_gemm", lambda M, N, K: (M, N, K)),
                   "bwd_grad_act": ("grouped_gemm_dgrad", lambda M, N, K: (M, K, N)),
                   "bwd_grad_w": ("grouped_gemm_wgrad", lambda M, N, K: (K, N, M))}


def simumax_grouped_rows():
    """SimuMax's grouped (MoE expert) bf16 GEMMs, batch = groups. Forward and data-gradient rows
    measured under both main_grad formats are the same kernel timed twice and are both kept
    (repeats); weight-gradient rows into a bf16 main_grad are left out, as for dense GEMMs."""
    rows = []
    for f, s_per_flop in simumax_entries("group_matmul"):
        ng, M, N, K = (int(f[c]) for c in ("ng", "M", "N", "K"))
        if (f["dtype"], f["out_dtype"]) != ("bf16", "bf16") or f["stage"] not in SIMUMAX_GROUPED:
            raise SystemExit("convert_public.py: SimuMax group_matmul %r: unexpected dtype or stage" % f)
        if f["stage"] == "bwd_grad_w" and f["main_grad_dtype"] != "fp32":
            continue
        kernel, shape = SIMUMAX_GROUPED[f["stage"]]
        m, n, k = shape(M, N, K)
        rows.append(gemm_row("bf16", m, n, k, ng, 2 * ng * M * N * K * s_per_flop, "measured:simumax", kernel))
    return rows


def simumax_attention_rows():
    """SimuMax's Transformer Engine fused attention (causal, bf16), forward and backward, at
    contiguous Q, K, V (the layout SimuMax's simulator reads for B200; the non-contiguous
    repeats differ by under 6 %). SimuMax counts fwd 2*b*s^2*max(h, h_kv)*(d_qk + d_v), bwd
    2.5x that, against 2250 TFLOP/s: the time is that count over that rate; the rows count
    the causal half as the workload does. The forward rows lose the host gap inside SimuMax's
    spans (simumax_forward_host_gap, below) and say derived:simumax-host-gap."""
    fwd = {}
    for op in ("sdp_fwd", "sdp_bwd"):
        for f, s_per_flop in simumax_entries(op):
            if f["qkv_contiguous"] != "True":
                continue
            b, s, h, kv, dqk, dv = (int(f[c]) for c in ("batch", "seq_len", "head_num", "kv_head_num", "qk_head_dim",
                                                          "v_head_dim"))
            count = 2 * b * s * s * max(h, kv) * (dqk + dv) * (1 if op == "sdp_fwd" else 2.5)
            fwd.setdefault((s, b, h, kv, dqk, dv), {})[op] = count * s_per_flop
    for shape, t in fwd.items():
        if set(t) != {"sdp_fwd", "sdp_bwd"}:
            raise SystemExit("convert_public.py: SimuMax attention %r: forward or backward missing" % (shape[:3],))
    gap = simumax_forward_host_gap({shape: t["sdp_fwd"] for shape, t in fwd.items()})
    rows = []
    for (s, b, h, kv, dqk, dv), t in sorted(fwd.items()):
        f, bwd = attention_rows(s, b, h, kv, dqk, fwd_s=t["sdp_fwd"], bwd_s=t["sdp_bwd"], origin="measured:simumax",
                                v_dim=dv)
        bound = max(f.flops / SIMUMAX_PEAK, 2 * GAP_TILE * s * (dqk + dv) * B200_SMS / SIMUMAX_PEAK)
        rows += [f.with_time(max(t["sdp_fwd"] - gap, bound), "derived:simumax-host-gap"), bwd]
    return rows


# SimuMax times each attention call as the span from the start of its first GPU kernel to the end
# of its last, the GPU synchronized before and after the call (simu_tools/efficency_test/
# test_fa_efficiency.py @4dcaae5, _profile_kernel_mean_ms; FA_TIMING_MODE=trace_kernel and TE
# 2.11.0 for the B200 file: docs/b200/b200_real_repro_guide.md §8). Transformer Engine's forward launches
# a one-thread kernel that copies the rng seed and offset (`unpack`) before it asks cuDNN for the
# workspace size, allocates the workspace and the softmax statistics and has cuDNN launch the
# attention kernel (NVIDIA/TransformerEngine transformer_engine/pytorch/csrc/extensions/
# attention.cpp @015d2257, fused_attn_fwd; the same order in the later stored versions, those with
# softmax offsets among them), so on the idle GPU that host time lies inside every
# forward span; a training step queues the kernels back to back (and a CUDA graph replays them)
# with no such gap. The backward (fused_attn_bwd, bf16 sbhd) launches nothing before cuDNN's
# kernels, and SimuMax's backward rows show no such intercept (about 20 us at 16/32 heads, 0 at
# 32/64), so they stay measured.
SIMUMAX_PEAK = 2250e12  # the file's `tflops`: the HGX B200's dense bf16 peak
B200_SMS = 148
GAP_TILE = 128  # query rows per tile: the causal tail is one tile over all keys on one SM
GAP_SEQ, GAP_HEADS = 4096, (16, 32)


def simumax_forward_host_gap(fwd):
    """The host gap inside SimuMax's forward spans: {(s, b, h, kv, d_qk, d_v): seconds} -> seconds.
    Time grows linearly in the query heads once the grid fills the GPU several times over; the
    gap is that line's intercept through the 16- and 32-head rows at 4,096 tokens (16 heads x 32
    query tiles = 512 tiles, 3.5 waves of 148 SMs; the shortest such rows, before the clock drop
    SimuMax's 32K and 128K rows show from 8 to 16 heads), the mean over the head-dim families
    (128 and 192/128: 42.5 and 46.2 us), repeats at other KV head counts averaged."""
    intercepts = []
    for dims in sorted({(dqk, dv) for (_, _, _, _, dqk, dv) in fwd}):
        at = {}
        for (s, b, h, kv, dqk, dv), t in fwd.items():
            if (s, b, dqk, dv) == (GAP_SEQ, 1) + dims and h in GAP_HEADS:
                at.setdefault(h, []).append(t)
        if set(at) == set(GAP_HEADS):
            low, high = (sum(at[h]) / len(at[h]) for h in GAP_HEADS)
            intercepts.append(low - (high - low) * GAP_HEADS[0] / (GAP_HEADS[1] - GAP_HEADS[0]))
    if len(intercepts) != 2 or not all(0 < i < 100e-6 for i in intercepts):
        raise SystemExit("convert_public.py: SimuMax forward attention: host-gap intercepts %r outside 0..100 us"
                         % intercepts)
    return sum(intercepts) / len(intercepts)


