"""NVIDIA/cudnn-frontend sdpa_benchmark_training results: measured:cudnn."""

import os
import statistics

from . import public_figures as fig
from .rows import PATHS, attention_rows, host_timed_keep, read_csv


def cudnn_path(*parts):
    return os.path.join(PATHS["sources"], "NVIDIA-cudnn-frontend", *parts)


def cudnn_h200():
    """[(seq, batch, heads, kv_heads, head_dim, fwd_s, bwd_s)] of the H200 llama3.1 results."""
    out = []
    for r in read_csv(cudnn_path("results", "h200_919_only_cudnn", "llama3.1_20260227_034703.csv")):
        if (r["backend"], r["data_type"], r["attn_mask"], r["deterministic_bwd"]) != ("cudnn", "bfloat16", "top_left",
                                                                                      "False"):
            continue
        if r["q_seqlen"] != r["kv_seqlen"] or r["head_dim_qk"] != r["head_dim_vo"]:
            raise SystemExit("convert_public.py: unexpected cuDNN shape")
        out.append((int(r["q_seqlen"]), int(r["batch_size"]), int(r["num_q_heads"]), int(r["num_kv_heads"]),
                    int(r["head_dim_qk"]), float(r["fwd_time_ms"]) * 1e-3, float(r["bwd_time_ms"]) * 1e-3))
    return sorted(out)


CUDNN_LLAMA = {"gb200": "llama3.1_20260424_100750.csv", "gb300": "llama3.1_20260424_100757.csv"}


def cudnn_llama(gpu):
    """The profiler-timed Llama 3.1 rows of `gpu` (gb200, gb300): (shape..., fwd_s, bwd_s)."""
    fwd, bwd = {}, {}
    for r in read_csv(cudnn_path("results", "llama3.1", gpu, CUDNN_LLAMA[gpu])):
        if (r["backend"], r["data_type"], r["attn_mask"]) != ("cudnn", "bfloat16", "top_left"):
            continue
        key = (int(r["q_seqlen"]), int(r["batch_size"]), int(r["num_q_heads"]), int(r["num_kv_heads"]),
               int(r["head_dim_qk"]))
        if r["profile_pass"] == "fwd":
            fwd[key] = float(r["time_ms"]) * 1e-3
        elif r["profile_pass"] == "bwd" and r["deterministic_bwd"] == "False":
            bwd[key] = float(r["time_ms"]) * 1e-3
    return sorted(key + (fwd[key], bwd[key]) for key in fwd if key in bwd)


def cudnn_b200_rows(origin="measured:cudnn", scale=1.0):
    """The B200 artifacts' rows (host-timing rule applied), their times x `scale`."""
    entries = []
    for r in read_csv(cudnn_path("artifacts", "sdpa_bf16_benchmark_results_NVIDIA_B200.csv")):
        if r["backend"] != "pyt_cudnn" or r["is_causal"] != "True":
            continue
        entries.append((int(r["q_seqlen"]), int(r["batch_size"]), int(r["num_q_heads"]), int(r["num_kv_heads"]),
                        int(r["head_dim"]), float(r["forward_time"]) * 1e-3, float(r["backward_time"]) * 1e-3))
    keep_fwd = host_timed_keep([e[5] for e in entries])
    keep_bwd = host_timed_keep([e[6] for e in entries])
    rows = []
    for e, kf, kb in zip(entries, keep_fwd, keep_bwd):
        fwd, bwd = attention_rows(*e[:5], fwd_s=e[5] * scale, bwd_s=e[6] * scale, origin=origin)
        rows += ([fwd] if kf else []) + ([bwd] if kb else [])
    return rows



def gb300_over_gb200():
    """(forward, backward): the median GB300/GB200 cuDNN time ratio over the shared shapes."""
    gb200 = {e[:5]: e[5:] for e in cudnn_llama("gb200")}
    pairs = [(e[5:], gb200[e[:5]]) for e in cudnn_llama("gb300") if e[:5] in gb200]
    if not pairs:
        raise SystemExit("convert_public.py: no shape timed on both GB200 and GB300")
    return tuple(statistics.median(new[i] / old[i] for new, old in pairs) for i in (0, 1))


def gb300_attention_from_gb200(gb200_rows, measured):
    """The GB200 table's attention rows at shapes the GB300 was not timed at, scaled."""
    fwd_ratio, bwd_ratio = gb300_over_gb200()
    timed = {(r.kernel, r.m, r.n, r.k, r.batch) for r in measured if r.dtype == "bf16"}
    out = []
    for r in gb200_rows:
        if not r.kernel.startswith("attention_") or r.dtype != "bf16" or (r.kernel, r.m, r.n, r.k, r.batch) in timed:
            continue
        ratio = fwd_ratio if r.kernel == "attention_fwd" else bwd_ratio
        out.append(r.with_time(r.time_s * ratio, "derived:gb300-over-gb200"))
    return out




def cudnn_fp8_artifact_rows(gpu, with_bf16, origin="measured:cudnn-fp8"):
    """cuDNN FP8 fused attention of `gpu` (b200, gb200, gb300) from the fp8 artifacts
    (public_figures.CUDNN_FP8_MS), dtype fp8 (one byte per Q, K, V, O element), and, with
    `with_bf16`, the same run's BF16 rows; each column host-timed (the B200 artifacts' rule: rows
    under 10x the column's shortest time are dropped)."""
    entries = fig.CUDNN_FP8_MS[gpu]
    shape = fig.CUDNN_FP8_SHAPE
    rows = []
    for column, dtype, element in ((1, "fp8", 1), (2, "fp8", 1), (3, "bf16", 2), (4, "bf16", 2)):
        if dtype == "bf16" and not with_bf16:
            continue
        keep = host_timed_keep([e[column] for e in entries])
        for e, kept in zip(entries, keep):
            if not kept:
                continue
            fwd, bwd = attention_rows(e[0], shape["batch"], shape["heads"], shape["kv_heads"], shape["head_dim"],
                                      fwd_s=e[1 if dtype == "fp8" else 3] * 1e-3,
                                      bwd_s=e[2 if dtype == "fp8" else 4] * 1e-3, origin=origin, element=element,
                                      dtype=dtype)
            rows.append(fwd if column in (1, 3) else bwd)
    return rows
