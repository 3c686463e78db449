"""Measured figures read from public pages and repositories that are not kept as extracts in
../shared/data/calibration-sources/: only the numbers, converted here into our own form, each
with the place it was read (repository @ commit and file, or the pull request). No file of
theirs is copied. public.md D4 and D6 (../shared/validation/public.md) list them.

Units are those of the source (ms, us, TFLOP/s); the functions of lowprec.py and src_cudnn.py
turn them into rows.
"""

# NVIDIA/TransformerEngine @ 8f2e63578e103ce1d41503102f47504c129b94d2 (Apache-2.0),
# docs/examples/gemm_profiling/gemm_profiling.rst: "GEMM Benchmark (Model Config Mode) on NVIDIA
# B300 SXM6 AC", CUDA events, 10 warm-up and 100 timed iterations per GEMM; one layer of hidden
# 4096, FFN 16384, M = 31 x 512 = 15,872 tokens. TE writes shapes as M x K x N (tokens x in x out).
TE_B300_TOKENS = 15872
# Forward GEMMs (tokens, in, out) and their BF16 time in ms, from the autocast table (BF16 has no
# quantisation step, so its autocast time is the kernel's; its pass sum 4.196 ms agrees with the
# pre-quantized run's 4.250 within 1.3 %).
TE_B300_FPROP_BF16_MS = [((15872, 4096, 12288), 1.071),   # QKV
                         ((15872, 4096, 4096), 0.307),    # attention output
                         ((15872, 4096, 16384), 1.393),   # MLP up (gate and up fused)
                         ((15872, 16384, 4096), 1.426)]   # MLP down
# Kernel-only (--pre-quantize) per-pass sums over the four GEMMs, ms: "Per-Layer GEMM Time" of the
# pre-quantized run. fp8 is TE's FP8 CurrentScaling (per-tensor scales; DelayedScaling is timed
# with its quantisation even there, so it is not a kernel time).
TE_B300_PASS_MS = {
    "bf16": {"fprop": 4.250, "dgrad": 4.434, "wgrad": 4.418},
    "fp8": {"fprop": 2.158, "dgrad": 2.329, "wgrad": 2.325},
    "mxfp8": {"fprop": 2.365, "dgrad": 2.397, "wgrad": 2.400},
    "nvfp4": {"fprop": 1.254, "dgrad": 1.305, "wgrad": 1.205},
}

# pytorch/ao#2427 (BSD-3-Clause repository; the pull request's description, 2025-06-23):
# benchmarks/float8/bench_matmul.py --recipe nvfp4 on "NVIDIA B200": square M = K = N GEMMs,
# (side, BF16 seconds, NVFP4 seconds), kernel time of repeated calls.
AO_B200_NVFP4_CUBES = [(1024, 5.08e-06, 5.87e-06), (1536, 7.87e-06, 6.73e-06), (2048, 1.52e-05, 1.02e-05),
                       (3072, 3.84e-05, 1.65e-05), (4096, 9.74e-05, 3.08e-05), (6144, 3.19e-04, 8.44e-05),
                       (8192, 7.74e-04, 2.05e-04)]

# flashinfer-ai/flashinfer#2464 (Apache-2.0 repository; the pull request's description,
# 2026-02-02): mm_mxfp8, CUTLASS backend, autotuned, bf16 output, on B200: (m, n, k, achieved
# TFLOP/s) with a of m x k and b of k x n (m tokens, n out, k in: the table's gemm convention).
# The rates carry more digits than the printed median times (0.005 .. 2.838 ms).
FLASHINFER_B200_MXFP8 = [(1024, 2048, 1024, 789.981), (1024, 4096, 4096, 2014.903), (8192, 8192, 4096, 3200.870),
                         (16384, 16384, 16384, 3099.690)]

# pytorch/ao @ 0b1bb117 (BSD-3-Clause) torchao/prototype/moe_training/README.md, "MXFP8 Kernel
# Breakdown by Pass" (public.md D5): DeepSeek-V3's routed experts on B200, 131,072 rows in 8 groups,
# K 7,168 (hidden), N 2,048 (expert FFN); the MXFP8 grouped GEMM alone, us.
TORCHAO_B200_MXFP8_GROUPED = {"groups": 8, "rows": 131072, "hidden": 7168, "ffn": 2048,
                              "fwd_us": 1838.1, "dgrad_us": 1838.1, "wgrad_us": 2412.4}

# NVIDIA/cudnn-frontend (MIT) benchmark/sdpa_benchmark_training/artifacts/
# sdpa_fp8_benchmark_results_NVIDIA_<GPU>.csv: cuDNN fused attention through PyTorch, causal,
# batch 1, 128 query and 8 KV heads, head dim 128; forward and backward ms of FP8 and of BF16 in
# the same run, timed around the PyTorch call with CUDA events (as the B200 bf16 artifacts: the
# host-timing rule applies). (sequence, fp8 fwd, fp8 bwd, bf16 fwd, bf16 bwd).
CUDNN_FP8_COMMITS = {"b200": "0b1577c8c83401237d601d0d0db5210506705396",
                     "gb200": "d48a60eb146eada7aee2e00b8f8c1d6ddcf96c51",
                     "gb300": "0b1577c8c83401237d601d0d0db5210506705396"}
CUDNN_FP8_SHAPE = {"batch": 1, "heads": 128, "kv_heads": 8, "head_dim": 128}
CUDNN_FP8_MS = {
    "b200": [(512, 0.044, 0.126, 0.035, 0.107), (1024, 0.067, 0.228, 0.061, 0.228),
             (2048, 0.141, 0.618, 0.151, 0.630), (4096, 0.447, 1.414, 0.482, 1.650),
             (8192, 1.464, 4.382, 1.589, 5.526), (16384, 5.197, 14.964, 5.962, 19.094),
             (32768, 19.751, 55.593, 23.228, 74.527), (65536, 77.531, 216.304, 94.215, 284.695),
             (131072, 307.690, 870.832, 395.922, 1248.042)],
    "gb200": [(512, 0.018, 0.072, 0.021, 0.066), (1024, 0.040, 0.157, 0.047, 0.163),
              (2048, 0.104, 0.512, 0.129, 0.524), (4096, 0.331, 1.264, 0.399, 1.304),
              (8192, 1.161, 4.352, 1.389, 4.539), (16384, 4.327, 16.020, 5.257, 16.875),
              (32768, 16.564, 61.559, 20.855, 67.092), (65536, 64.518, 242.637, 88.377, 282.172),
              (131072, 259.183, 977.197, 382.750, 1185.117)],
    "gb300": [(512, 0.063, 0.147, 0.049, 0.123), (1024, 0.081, 0.233, 0.070, 0.235),
              (2048, 0.133, 0.599, 0.137, 0.631), (4096, 0.328, 1.189, 0.380, 1.459),
              (8192, 1.060, 3.632, 1.281, 4.778), (16384, 3.881, 12.595, 4.791, 17.037),
              (32768, 14.961, 46.779, 18.680, 65.150), (65536, 58.975, 180.145, 76.825, 251.544),
              (131072, 236.917, 715.422, 323.592, 1044.691)],
}

# NVIDIA/cudnn-frontend @ 3929da2ef4c1dba1bb8acb68727b9134f26f40c0 (MIT)
# benchmark/sdpa_benchmark_training/results/: the GPT-OSS preset (configs/gpt_oss.py), cuDNN fused
# attention at head dim 64, causal with a sliding window (attn_mask top_left, sliding_window_size),
# bfloat16, times from the PyTorch profiler (median of 10; the llama3.1 files' method). The extracts
# in ../shared/data/calibration-sources/ keep only the head-dim-128 llama3.1 files, so the rows are
# read here: (sequence, forward ms, backward ms), the non-deterministic backward.
# - h200_919_only_cudnn/gpt_oss_20260227_034819.csv: H200, cuDNN 9.19, batch 2, 64 query and 8 KV
#   heads, window 1024 (fwd_time_ms, bwd_time_ms of one profile_pass=both row);
# - gpt_oss/gb200/gpt_oss_20260424_100011.csv and gpt_oss/gb300/gpt_oss_20260424_100022.csv: GB200 and
#   GB300, cuDNN 9.22, batch 2, 128 query and 128 KV heads, window 128 (time_ms of the fwd and the
#   bwd, deterministic_bwd=False, rows). The GB200's 32K forward (2.634 ms, 104 TFLOP/s against
#   ~165 at every other sequence) is kept as measured.
# The files' own TFLOP/s column counts the keys the window reads, 4 b h d (s w - w^2 / 2) forward
# (H200 32K: 358 TFLOP/s), as rows.attention_rows does with its window.
CUDNN_GPT_OSS_COMMIT = "3929da2ef4c1dba1bb8acb68727b9134f26f40c0"
CUDNN_GPT_OSS = {
    "h200": {"batch": 2, "heads": 64, "kv_heads": 8, "head_dim": 64, "window": 1024,
             "ms": [(2048, 0.166, 0.488), (4096, 0.358, 1.042), (8192, 0.738, 2.149), (16384, 1.499, 4.392),
                    (32768, 3.021, 9.045)]},
    "gb200": {"batch": 2, "heads": 128, "kv_heads": 128, "head_dim": 64, "window": 128,
              "ms": [(2048, 0.109, 0.237), (4096, 0.210, 0.465), (8192, 0.414, 0.911), (16384, 0.822, 1.818),
                     (32768, 2.634, 3.692)]},
    "gb300": {"batch": 2, "heads": 128, "kv_heads": 128, "head_dim": 64, "window": 128,
              "ms": [(2048, 0.104, 0.227), (4096, 0.202, 0.442), (8192, 0.397, 0.862), (16384, 0.790, 1.712),
                     (32768, 2.530, 3.450)]},
}

# deepseek-ai/DeepGEMM @ 55ab91f72f76e8a6db0e86282c3169a88d93df1b (MIT) README.md, "Performance"
# (public.md D4, D5): FP8 GEMMs with 1 x 128 block scaling on H800 SXM5 (the H100 SXM's compute
# die, SMs and clocks), NVCC 12.8, the repository's own benchmark. (groups, rows per group, n, k,
# TFLOP/s): the two grouped tables (contiguous and masked layouts) and the dense table's rows of
# 4,096 rows (one group). The dense rows of 64 and 128 rows (decoding) lie below every grid the
# tables use (m >= 256) and are not read.
DEEPGEMM_COMMIT = "55ab91f72f76e8a6db0e86282c3169a88d93df1b"
DEEPGEMM_H800_FP8 = [(1, 4096, 2112, 7168, 1009), (1, 4096, 24576, 1536, 1125), (1, 4096, 32768, 512, 751),
                     (1, 4096, 7168, 16384, 1426), (1, 4096, 4096, 7168, 1265), (1, 4096, 7168, 2048, 1168),
                     (4, 8192, 4096, 7168, 1346), (4, 8192, 7168, 2048, 1214),
                     (8, 4096, 4096, 7168, 1346), (8, 4096, 7168, 2048, 1214),
                     (1, 1024, 4096, 7168, 1233), (1, 1024, 7168, 2048, 925),
                     (2, 512, 4096, 7168, 1040), (2, 512, 7168, 2048, 916),
                     (4, 256, 4096, 7168, 932), (4, 256, 7168, 2048, 815)]

# Dao-AILab/flash-attention @ 7ef24848cf2f855077cef88fe122775b727dcd74 (BSD-3-Clause),
# assets/flash3_fp16_fwd.png, the FlashAttention-3 paper's forward figure (Shah et al. 2024,
# arXiv:2407.08608, Figure 5), and the paper's backward figure (Figure 6): cuDNN's fused attention
# on one H100 80GB SXM5, bf16, hidden 2048 (32 heads of 64, 16 of 128), batch x sequence = 16K
# (hopper/benchmark_attn.py: dim = 2048), TFLOP/s by sequence, the numbers printed on the bars.
# Forward with the causal mask; backward without it (the paper times the backward without the
# mask only). At each sequence both head dims run the same FLOPs, so the rate ratio is the time
# ratio. The head-dim-64 / head-dim-128 ratio of each pass is what head_dim.py reads
# (fa3-headdim-ratio).
FA3_COMMIT = "7ef24848cf2f855077cef88fe122775b727dcd74"
FA3_CUDNN_H100_TFLOPS = {  # pass: {sequence: (head dim 64, head dim 128)}
    "attention_fwd": {512: (225, 315), 1024: (288, 410), 2048: (334, 484), 4096: (363, 518), 8192: (379, 529),
                      16384: (388, 539)},
    "attention_bwd": {512: (266, 305), 1024: (348, 408), 2048: (395, 465), 4096: (417, 499), 8192: (432, 518),
                      16384: (433, 516)},
}
