"""Repository, path, commit and license of every source, the derivation rules' texts and the
measured ratios they use."""

# Repository, path, commit and license of every source; each table's header repeats the
# ones it uses.
REFS = {
    "xla": ("openxla/xla", "xla/service/gpu/model/default_matmul_perf_table.txtpb",
            "336bb15c32a11820a81b226ae502d9ebbfab4412", "Apache-2.0"),
    "vidur": ("microsoft/vidur", "data/profiling/compute/{a100,h100}/meta-llama/<model>/mlp.csv",
              "7d47513363ec447a741ac5e47241580b47724fbf", "MIT"),
    "cudnn": ("NVIDIA/cudnn-frontend",
              "benchmark/sdpa_benchmark_training/results/{h200_919_only_cudnn,llama3.1/{gb200,gb300}}/*.csv",
              "3929da2ef4c1dba1bb8acb68727b9134f26f40c0", "MIT"),
    "cudnn-b200": ("NVIDIA/cudnn-frontend",
                   "benchmark/sdpa_benchmark_training/artifacts/sdpa_bf16_benchmark_results_NVIDIA_B200.csv",
                   "9793df569ce413f4b1844a9176f7ae24dd981603", "MIT"),
    "llmcompass": ("PrincetonUniversity/LLMCompass",
                   "ae/figure5/{ab,cf,de,g}/real_hardware/{matmul,softmax,layernorm,gelu}_A100.csv",
                   "2e015fd2ee750e6cad8d7152df52551e5b41ef20", "BSD-3-Clause"),
    "simumax": ("MooreThreads/SimuMax", "configs/system/b200_bf16_ceperm.json",
                "4dcaae513ba7679d56c116a17cd4a691ec41e252", "Apache-2.0"),
    # Figures read from the page (public_figures.py), converted into our rows; nothing copied.
    "te": ("NVIDIA/TransformerEngine", "docs/examples/gemm_profiling/gemm_profiling.rst",
           "8f2e63578e103ce1d41503102f47504c129b94d2", "Apache-2.0"),
    "ao-nvfp4": ("pytorch/ao", "pull request #2427 (description: benchmarks/float8/bench_matmul.py --recipe nvfp4)",
                 None, "BSD-3-Clause"),
    "flashinfer-mxfp8": ("flashinfer-ai/flashinfer", "pull request #2464 (description: mm_mxfp8, cutlass)", None,
                         "Apache-2.0"),
    "torchao-moe": ("pytorch/ao", "torchao/prototype/moe_training/README.md",
                    "0b1bb117", "BSD-3-Clause"),
    "cudnn-fp8": ("NVIDIA/cudnn-frontend",
                  "benchmark/sdpa_benchmark_training/artifacts/sdpa_fp8_benchmark_results_NVIDIA_{B200,GB300}.csv",
                  "0b1577c8c83401237d601d0d0db5210506705396", "MIT"),
    "cudnn-fp8-gb200": ("NVIDIA/cudnn-frontend",
                        "benchmark/sdpa_benchmark_training/artifacts/sdpa_fp8_benchmark_results_NVIDIA_GB200.csv",
                        "d48a60eb146eada7aee2e00b8f8c1d6ddcf96c51", "MIT"),
    # Rows read from the files (public_figures.CUDNN_GPT_OSS): head dim 64, sliding windows.
    "cudnn-gpt-oss": ("NVIDIA/cudnn-frontend",
                      "benchmark/sdpa_benchmark_training/results/{h200_919_only_cudnn/gpt_oss_20260227_034819.csv,"
                      "gpt_oss/gb200/gpt_oss_20260424_100011.csv,gpt_oss/gb300/gpt_oss_20260424_100022.csv}",
                      "3929da2ef4c1dba1bb8acb68727b9134f26f40c0", "MIT"),
    # Figures read from the paper's bar charts (public_figures.FA3_CUDNN_H100_TFLOPS); nothing copied.
    "fa3": ("Dao-AILab/flash-attention", "assets/flash3_fp16_fwd.png (Shah et al. 2024, FlashAttention-3, "
            "arXiv:2407.08608, Figure 5; its Figure 6 for the backward)",
            "7ef24848cf2f855077cef88fe122775b727dcd74", "BSD-3-Clause"),
    # Figures read from the README's tables (public_figures.DEEPGEMM_H800_FP8); nothing copied.
    "deepgemm": ("deepseek-ai/DeepGEMM", "README.md", "55ab91f72f76e8a6db0e86282c3169a88d93df1b", "MIT"),
    # Figures only (a ratio of two measured rates), no rows: CC-BY-SA-4.0 text, nothing copied.
    "mamf": ("stas00/ml-engineering", "compute/accelerator/README.md",
             "744d01e18b79512572f64a6bbd8b5f4a725203a7", "CC-BY-SA-4.0"),
}

# The rule of each derived origin, for the table headers (the docstring has the reasoning).
RULES = {
    "h100-gemm-rate": "H200 GEMM = the H100's measured time at the shape (same compute dies, 989 TFLOP/s bf16 "
                      "both: NVIDIA H100 and H200 datasheets)",
    "deepgemm-fp8-gain": "fp8 GEMM, dense and grouped (batched) = the H100's measured bf16 time x DeepGEMM's measured "
                         "fp8 time over the H100's XLA bf16 time at the same (per-group) shape (H800 FP8, 16 shapes, 256..8192 "
                         "rows, k 512..16384; dense rows from its 6 dense GEMMs alone), weighted by inverse squared "
                         "distance in (log2 rows, log2 k); dense rows also at k 8192 and 16384 from the bf16 rate at "
                         "4096; H200 x 1402.6/1453.4; never below the MAMF ratio (hopper_fp8.py)",
    "h200-cudnn": "H100 fused attention = the H200's measured cuDNN time at the shape (same tensor cores)",
    "fa2-efficiency": "A100 fused attention: 73 % of 312 TFLOP/s at the longest sequence (FlashAttention-2, "
                      "Dao 2023), the H200 cuDNN efficiency curve below it, the H200's backward/forward ratio",
    "gb200-mamf-ratio": "B200 fused attention at sequences shorter than any B200 measurement, and at head dim 64 "
                        "(sliding window), = GB200 cuDNN time x "
                        "1822.0/1745.0 (the measured bf16 MAMF of GB200 and B200; stas00/ml-engineering)",
    "simumax-host-gap": "B200 fused attention forward at SimuMax's shapes = SimuMax's measured span less the host gap "
                        "inside it (Transformer Engine launches its rng-state kernel before the workspace query and "
                        "cuDNN's launch; SimuMax times first kernel start to last kernel end on an idle GPU): the "
                        "intercept of time against query heads through the 16- and 32-head rows at 4096 tokens, "
                        "mean of head dims 128 and 192/128 (44.4 us), never below the total FLOPs at 2250 TFLOP/s nor "
                        "one 128-row query tile over all keys at one SM's share of it",
    "b200-mamf-fp8-ratio": "B200 fp8 GEMM at a SimuMax shape beyond XLA's 4096 = SimuMax's measured bf16 time of the "
                           "same layout x 1745.0/3432.5 (B200 bf16 / fp8 MAMF; XLA's own fp8/bf16 ratio at 4096^3 "
                           "is 0.51 too)",
    "b200-xla-fp8-ratio": "B200 fp8 grouped GEMM = SimuMax's measured bf16 grouped time x XLA's measured fp8/bf16 time "
                          "ratio of its batch-4 rows at the per-group shape (m, n, k clamped to 256..4096, log-linear), "
                          "at least the MAMF ratio 1745.0/3432.5",
    "b200-mamf-ratio": "GB200 row = the B200 table's row (measured or derived) x B200 MAMF / GB200 MAMF "
                       "of its dtype: bf16, tf32, attention and grouped GEMMs 1745.0/1822.0, fp8, mxfp8 and nvfp4 3432.5/3615.6 "
                       "(measured rates; the device-reported maximum SM clocks, 1965 and 2062 MHz, give 0.953)",
    "gb300-over-gb200": "GB300 fused attention at shapes GB300 was not timed at = the GB200 table's row x the "
                        "median GB300/GB200 cuDNN time ratio of the pass over the shapes both were timed at",
    "b200-lowprec-ratio": "B200 nvfp4 / mxfp8 GEMM (dense and grouped, by the per-group shape) = the B200 bf16 row "
                          "x the format's time ratio over bf16 at the GEMM's size: nvfp4 the measured pytorch/ao#2427 "
                          "ratio at side = (m n k)^(1/3), log-linear in log side, held at the ends (1.16 at 1024^3, "
                          "0.32 at 4096^3, 0.265 from 6144^3); mxfp8 the fp8 ratio of the shape (XLA's, at least the "
                          "MAMF ratio) ** a, a making it Transformer Engine's measured B300 MXFP8/BF16 kernel ratio "
                          "0.547 at TE's GEMMs (the sibling die; no benchmark times MXFP8 and BF16 together on B200). "
                          "The measured rows keep their times (short benchmarks, boost clock), the derived ones the "
                          "table's bf16 time (SimuMax's sustained clock beyond 4096)",
    "te-pass-share": "B300 GEMM at Transformer Engine's shapes (15872 tokens, hidden 4096, FFN 16384) other than the "
                     "four measured bf16 forward GEMMs = the pass's measured kernel-only sum in the format (fprop, "
                     "dgrad, wgrad; bf16 4.250/4.434/4.418, fp8 current scaling 2.158/2.329/2.325, mxfp8 "
                     "2.365/2.397/2.400, nvfp4 1.254/1.305/1.205 ms) x the GEMM's share of the measured bf16 "
                     "forward time (1.071, 0.307, 1.393, 1.426 ms)",
    "b300-over-b200": "B300 bf16 and tf32 GEMM = the B200 table's bf16 (tf32) row x B300/B200 = the median over TE's "
                      "four forward GEMMs of TE's B300 time over pytorch/ao#2427's B200 bf16 time at the same size "
                      "(both PyTorch benchmarks timing repeated calls with CUDA events)",
    "b300-lowprec-ratio": "B300 fp8 / mxfp8 / nvfp4 GEMM = the B300 bf16 row x r_B200(fmt, size) ** a_fmt, a_fmt = "
                          "ln(TE's measured kernel-only layer ratio: fp8 0.520, mxfp8 0.547, nvfp4 0.287) / ln(r_B200 "
                          "at TE's GEMMs): the gain over bf16 follows B200's measured size curve (fp8: XLA's ratio, "
                          "at least the MAMF ratio) and equals Blackwell Ultra's own at TE's size",
    "b300-board-ratio": "GB300 GEMM = the B300 row x B200 MAMF / GB200 MAMF of the dtype (bf16, tf32 1745.0/1822.0; "
                        "fp8, mxfp8, nvfp4 3432.5/3615.6): B300 and GB300 are the same Blackwell Ultra die, HGX at "
                        "1,100 W and Grace superchip at 1,400 W; the board's gain is the one measured on the "
                        "Blackwell die (GB200 over B200), no GB300 GEMM timing being public",
    "gb300-cudnn": "B300 fused attention = the GB300 table's attention time x 1822.0/1745.0 (the same Blackwell Ultra "
                   "die on an HGX board: the inverse of the measured Blackwell GB200/B200 MAMF gain)",
    "fa3-headdim-ratio": "fused causal attention at head dim 64 (no cuDNN results file times the full causal "
                         "kernel at 64) = the table's head-dim-128 row at the same sequence, batch and heads, half "
                         "its FLOPs and bytes, at its rate x cuDNN's measured head-dim-64 / head-dim-128 rate "
                         "ratio at the sequence on H100 (FlashAttention-3 paper, Figures 5 and 6: forward causal "
                         "0.714 at 512 .. 0.701 at 4K .. 0.720 at 16K, backward 0.872 .. 0.836 .. 0.839; "
                         "log-linear between, held beyond 16K), on every GPU (FlashAttention-4 on B200: 0.67 "
                         "forward at 4K)",
    "gb200-window-h200-rate": "H200 fused attention at head dim 64 and a 128-key window (timed on H200 at 1024 "
                              "only) = GB200's measured cuDNN time x the GB200/H200 head-dim-128 cuDNN rate ratio "
                              "of the pass (median over the sequences both timed): the window kernel at the same "
                              "share of each GPU's measured attention rate",
    "h100-bandwidth": "H200 memory-bound = o + (t_H100 - o) x 3350/4800, o = min(3 us, t_H100)",
    "hbm-roofline": "memory-bound with no measurement: 3 us + bytes / (0.85 x HBM bandwidth)",
}

MAMF_BF16 = 794.5e12                                  # H100 SXM and H200 (public.md D3)
MAMF_FP8 = {"h100-sxm": 1402.6e12, "h200": 1453.4e12}  # public.md D3
SM90_FP8_PEAK = 1979e12                               # H100 SXM dense fp8 (public.md D3)
FA2_FRACTION = 0.73                                   # Dao 2023, abstract: "50-73%"
A100_PEAK_BF16 = 312e12                               # public.md D3
H200_PEAK_BF16 = 989e12                               # public.md D3
# Maximum achievable matmul TFLOP/s (mean of 100 torch matmuls after 50 warm-up, best shape
# of a search) of the Blackwell GPUs, stas00/ml-engineering compute/accelerator/README.md
# @744d01e1 (REFS["mamf"]): the ratios between GPUs, and B200's fp8/bf16 ratio.
BLACKWELL_MAMF = {"b200": {"bf16": 1745.0, "fp8": 3432.5}, "gb200": {"bf16": 1822.0, "fp8": 3615.6},
                  "b300": {"bf16": 1769.0, "fp8": 3353.3}}
XLA_EDGE = 4096  # XLA's largest M, N, K: SimuMax shapes beyond it get fp8 rows (b200-mamf-fp8-ratio)


LOW_PRECISION = ("fp8", "mxfp8", "nvfp4")  # the dtypes that take the fp8 MAMF ratio


def mamf_ratio(source, target, dtype):
    """Time of a `target` kernel over the `source` one: source MAMF / target MAMF (fp8 stands for
    the low-precision tensor-core formats, bf16 for every other dtype)."""
    key = "fp8" if dtype in LOW_PRECISION else "bf16"
    return BLACKWELL_MAMF[source][key] / BLACKWELL_MAMF[target][key]


# Table-wide rules that are not a derivation: which measurement times which shapes. Written as
# "# rule <name>: <text>" header lines of the tables they apply to.
B200_SOURCE_RULES = [
    ("gemm-sources",
     "bf16 GEMMs keep both measurements, XLA (M, N, K <= 4096, each call alone with the GPU idle between "
     "calls: boost clock) and SimuMax (75 calls back to back after 25: the power-limited clock a training "
     "step runs at). Where both timed a shape (4096 x 4096 x 512..4096) SimuMax's forward GEMMs run at 1.01 "
     "to 1.29 x XLA's rate (4096^3: 1435 vs 1417 TFLOP/s), its other layouts at 0.95 to 1.21 x. Beyond 4096 only SimuMax measures, and its rate falls from ~1450 to ~1100 TFLOP/s as a "
     "call passes ~1 ms (every layout; the B200 holds 1965 MHz for a few ms, then ~1580 MHz at its 1000 W "
     "limit: flashinfer-ai/flashinfer#2899), so those shapes take SimuMax's rows, not XLA's 4096 edge rate"),
    ("gemm-layouts",
     "gemm = forward (TN), gemm_dgrad = data gradient (NN), gemm_wgrad = weight gradient (NT, accumulated "
     "into an fp32 main_grad by the GEMM), each in the workload's shapes (kernels/README.md); SimuMax's 82 NT "
     "rows into a bf16 main_grad are left out"),
    ("attention-sources",
     "fused attention: the measured rows (cuDNN artifacts; SimuMax's Transformer Engine attention, "
     "contiguous Q, K, V as SimuMax's own simulator reads them) at every sequence they time, GB200-derived "
     "rows only at shorter sequences"),
    ("grouped-gemm",
     "grouped_gemm, grouped_gemm_dgrad, grouped_gemm_wgrad (m tokens per group, n, k, batch groups; "
     "SimuMax, Transformer Engine's grouped GEMM) time the expert GEMMs of their dtype by rows per expert, "
     "n, k and groups; their weight-gradient rows accumulate into an fp32 main_grad"),
]

