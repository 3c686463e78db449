"""The third-party extracts the calibration tables are converted from, parsed here
independently of kernels/calibration/convert_public.py, for tests/compute/convert_public_test.py
(standard library only). SOURCES and SIMUMAX are the extracts' folders; the test's main() sets
them from --sources and --simumax."""

import csv
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "calibration-sources"))
SIMUMAX = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "simumax"))


def data_lines(path):
    with open(path) as f:
        return [line for line in f if line.strip() and not line.startswith("#")]


def xla_times(section):
    lines = data_lines(os.path.join(SOURCES, "openxla-xla", "default_matmul_perf_table.csv"))
    names = lines[0].strip().split(",")
    out = {}
    for line in lines[1:]:
        v = line.strip().split(",")
        if v[0] != section:
            continue
        b, m, n, k = (int(x) for x in v[1:5])
        for name, value in zip(names[5:], v[5:]):
            dtype = {"bf16xbf16->bf16": "bf16", "f32xf32->f32": "tf32", "f8e4m3fnxf8e4m3fn->bf16": "fp8"}[name]
            out[(dtype, b, m, n, k)] = 2.0 * b * m * n * k / float(value)
    return out


def vidur_expected(gpu):
    """[(kernel, m, n, k, seconds)] the converter is documented to take from Vidur."""
    out = []
    base = os.path.join(SOURCES, "microsoft-vidur", gpu, "meta-llama")
    for model in sorted(os.listdir(base)):
        with open(os.path.join(base, model, "mlp.csv"), newline="") as f:
            for r in csv.DictReader(f):
                h, a, kv = int(r["n_embd"]), int(r["n_head"]), int(r["n_kv_head"])
                f_, t, tp = int(r["n_expanded_embd"]), int(r["num_tokens"]), int(r["num_tensor_parallel_workers"])
                d = h // a
                sec = {op: float(r["time_stats.%s.median" % op]) / 1000.0 for op in
                       ("attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj", "mlp_act", "attn_rope",
                        "input_layernorm", "post_attention_layernorm", "add")}
                out += [("gemm", t, (a + 2 * kv) * d / tp, h, sec["attn_pre_proj"]),
                        ("gemm", t, h, a * d / tp, sec["attn_post_proj"]),
                        ("gemm", t, 2 * f_ / tp, h, sec["mlp_up_proj"]),
                        ("gemm", t, h, f_ / tp, sec["mlp_down_proj"]),
                        ("swiglu", t, f_ / tp, 0, sec["mlp_act"]),
                        ("rope", t, (a + kv) * d / tp, 0, sec["attn_rope"])]
                if tp == 1:
                    out += [("rmsnorm", t, h, 0, sec["input_layernorm"]),
                            ("rmsnorm", t, h, 0, sec["post_attention_layernorm"]), ("add", t, h, 0, sec["add"])]
    return out


def above_host_floor(times):
    shortest = min(times)
    return [t >= 10 * shortest for t in times]


def llmcompass_expected():
    base = os.path.join(SOURCES, "PrincetonUniversity-LLMCompass", "ae", "figure5")
    out = []
    rows = [[x.strip() for x in l.split(",")] for l in data_lines(os.path.join(base, "ab/real_hardware/matmul_A100.csv"))]
    times = [float(r[3].replace("ms", "")) / 1000.0 for r in rows]
    for r, t, keep in zip(rows, times, above_host_floor(times)):
        if keep:
            out.append(("gemm", float(r[0]), float(r[1]), float(r[2]), t))
    for kernel, sub in (("softmax", "cf"), ("layernorm", "de")):
        rows = [[float(x) for x in l.split(",")] for l in data_lines(os.path.join(base, sub, "real_hardware",
                                                                                  kernel + "_A100.csv"))]
        times = [r[0] * r[1] / r[2] / 1e9 for r in rows]
        for r, t, keep in zip(rows, times, above_host_floor(times)):
            if keep:
                out.append((kernel, r[0], r[1], 0.0, t))
    rows = [[float(x) for x in l.split(",")] for l in data_lines(os.path.join(base, "g/real_hardware/gelu_A100.csv"))]
    times = [r[0] / r[1] / 1e9 for r in rows]
    for r, t, keep in zip(rows, times, above_host_floor(times)):
        if keep:
            out.append(("gelu", r[0], 1.0, 0.0, t))
    return out


def cudnn_expected():
    """{gpu: [(kernel, seq, batch x heads, seconds)]} of the attention rows."""
    base = os.path.join(SOURCES, "NVIDIA-cudnn-frontend")
    out = {"h200": [], "gb200": [], "gb300": [], "b200": []}
    with open(os.path.join(base, "results/h200_919_only_cudnn/llama3.1_20260227_034703.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["data_type"] == "bfloat16" and r["attn_mask"] == "top_left" and r["deterministic_bwd"] == "False":
                bh = int(r["batch_size"]) * int(r["num_q_heads"])
                out["h200"] += [("attention_fwd", int(r["q_seqlen"]), bh, float(r["fwd_time_ms"]) / 1000),
                                ("attention_bwd", int(r["q_seqlen"]), bh, float(r["bwd_time_ms"]) / 1000)]
    for gpu, name in (("gb200", "llama3.1_20260424_100750.csv"), ("gb300", "llama3.1_20260424_100757.csv")):
        with open(os.path.join(base, "results/llama3.1", gpu, name), newline="") as f:
            for r in csv.DictReader(f):
                if r["data_type"] != "bfloat16" or r["attn_mask"] != "top_left" or r["deterministic_bwd"] != "False":
                    continue
                kernel = "attention_fwd" if r["profile_pass"] == "fwd" else "attention_bwd"
                out[gpu].append((kernel, int(r["q_seqlen"]), int(r["batch_size"]) * int(r["num_q_heads"]),
                                 float(r["time_ms"]) / 1000))
    with open(os.path.join(base, "artifacts/sdpa_bf16_benchmark_results_NVIDIA_B200.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["backend"] == "pyt_cudnn"]
    for kernel, column in (("attention_fwd", "forward_time"), ("attention_bwd", "backward_time")):
        times = [float(r[column]) / 1000 for r in rows]
        for r, t, keep in zip(rows, times, above_host_floor(times)):
            if keep:
                out["b200"].append((kernel, int(r["q_seqlen"]), int(r["batch_size"]) * int(r["num_q_heads"]), t))
    return out


def simumax_expected():
    """{"gemm": [(kernel, m, n, k, seconds)], "grouped": [(kernel, m, n, k, groups, seconds)],
    "attention": [(kernel, seq, head_dim, batch x heads, seconds)], "attention_v": the same with d_v
    appended}: SimuMax's B200 entries in the
    table's conventions (kernels/README.md), parsed here with regular expressions."""
    import json
    import re
    with open(os.path.join(SIMUMAX, "b200_bf16_ceperm.json")) as f:
        ops = json.load(f)["accelerator"]["op"]
    out = {"gemm": [], "grouped": [], "attention": [], "attention_v": []}
    peak = ops["matmul"]["tflops"] * 1e12
    dense = re.compile(r"b=(\d+), m=(\d+), k=(\d+), n=(\d+), layout=(TN|NN|NT), accumulate=(True|False), "
                       r"out_dtype=(bf16|fp32)$")
    for key, eff in ops["matmul"]["accurate_efficient_factor"].items():
        b, m, k, n, layout, _, out_dtype = dense.match(key).groups()
        b, m, k, n = int(b), int(m), int(k), int(n)
        seconds = 2.0 * b * m * n * k / (eff * peak)
        if layout == "TN":
            out["gemm"].append(("gemm", m, n, k, seconds))
        elif layout == "NN":
            out["gemm"].append(("gemm_dgrad", m, n, k, seconds))
        elif out_dtype == "fp32":  # NT: m out x n in over k tokens -> the workload's in x out
            out["gemm"].append(("gemm_wgrad", n, m, k, seconds))
    grouped = re.compile(r"ng=(\d+), M=(\d+), N=(\d+), K=(\d+), dtype=bf16, out_dtype=bf16, "
                         r"main_grad_dtype=(bf16|fp32), stage=(fwd|bwd_grad_act|bwd_grad_w), ")
    peak = ops["group_matmul"]["tflops"] * 1e12
    for key, eff in ops["group_matmul"]["accurate_efficient_factor"].items():
        ng, M, N, K, main_grad, stage = grouped.match(key).groups()
        ng, M, N, K = int(ng), int(M), int(N), int(K)
        seconds = 2.0 * ng * M * N * K / (eff * peak)
        if stage == "fwd":
            out["grouped"].append(("grouped_gemm", M, N, K, ng, seconds))
        elif stage == "bwd_grad_act":
            out["grouped"].append(("grouped_gemm_dgrad", M, K, N, ng, seconds))
        elif main_grad == "fp32":
            out["grouped"].append(("grouped_gemm_wgrad", K, N, M, ng, seconds))
    attention = re.compile(r"batch=(\d+), seq_len=(\d+), head_num=(\d+), kv_head_num=(\d+), qk_head_dim=(\d+), "
                           r"v_head_dim=(\d+), qkv_contiguous=True$")
    for op, kernel, factor in (("sdp_fwd", "attention_fwd", 2.0), ("sdp_bwd", "attention_bwd", 5.0)):
        peak = ops[op]["tflops"] * 1e12
        for key, eff in ops[op]["accurate_efficient_factor"].items():
            match = attention.match(key)
            if not match:
                continue  # the non-contiguous repeats
            b, seq, h, kv, dqk, dv = (int(x) for x in match.groups())
            # SimuMax's count: fwd 2 b s^2 max(h, kv) (d_qk + d_v), bwd 2.5x.
            seconds = factor * b * seq * seq * max(h, kv) * (dqk + dv) / (eff * peak)
            out["attention"].append((kernel, seq, dqk, b * h, seconds))
            out["attention_v"].append((kernel, seq, dqk, b * h, seconds, dv))
    return out
