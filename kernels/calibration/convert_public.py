#!/usr/bin/env python3
"""Writes the shipped calibration tables a100-80g.csv, h100-sxm.csv, h200.csv, b200.csv,
gb200.csv, b300.csv and gb300.csv from public GPU measurements (public.md, section D4: ../shared/validation/public.md
from the repository root).

    python3 kernels/calibration/convert_public.py [OUT_DIR] [--sources DIR] [--simumax DIR]

OUT_DIR defaults to this folder. Standard library only; deterministic: the same extracts
give byte-identical tables. The inputs are third-party files, so the project does not
carry them: they are the extracts in ../shared/data/calibration-sources/ beside the
checkout (found from this script's place: the repository root's ../shared/data; CI and
every developer have it), or in the folder --sources names. Each of its folders has a
README.md giving repository, path, commit and license; every table's header repeats them
("# ref ..." lines). SimuMax's B200 file (b200_bf16_ceperm.json, with its LICENSE) is in
../shared/data/simumax/, found as the folder simumax/ beside the --sources folder, or where
--simumax names. Without either the script says so on one line and exits 2. A table whose
header says "source: measured" (written by
trainsim-calibrate on the GPU itself, kernels/README.md) is never overwritten: it wins over
anything converted here.

Every row says where it comes from in its 12th column, `origin`:
  measured:<source>   a row of the named extract, converted without changing its time;
  derived:<rule>      a row no measurement covers, made by one of the rules below.

MEASURED (the time of a row is the source's time; only units and shape conventions change)
  measured:xla         openxla/xla default_matmul_perf_table, sections sm_90 (H100 80GB HBM3)
                       and sm_100_B200: each entry's achieved FLOP/s for bf16 (bf16 out), f32
                       (XLA runs f32 dots on TF32 tensor cores by default: the table's f32
                       rates exceed the fp32 CUDA-core peaks, so they are `tf32` rows) and
                       fp8 e4m3 x e4m3 (bf16 out). time = 2*b*m*n*k / FLOP/s. b = 1 is a
                       `gemm` row, b = 2 and 4 are `batched_gemm` rows (tf32: b = 1 only).
                       The sm_90 fp8 rows are NOT used: they reach 2,593 TFLOP/s, above the
                       H100 SXM's dense fp8 peak of 1,979 (public.md D3), so they cannot be
                       H100 kernel times (the converter checks this and stops if that changes).
  measured:vidur       microsoft/vidur mlp.csv, forward layers of Llama-2-7B/70B (A100, H100)
                       and Llama-3-8B/70B (A100 only: Vidur has no Llama-3 profile for H100),
                       TP 1, 2, 4, 8, 128..32768 tokens; fp16; the median of 20 timed runs
                       (milliseconds). attn_pre_proj, attn_post_proj, mlp_up_proj (gate and up
                       fused: n = 2*ffn/tp), mlp_down_proj -> `gemm` (m = tokens); mlp_act
                       (SiLU and multiply) -> `swiglu` (rows = tokens, columns = ffn/tp);
                       attn_rope -> `rope` (rows = tokens, columns = (heads + kv_heads) *
                       head_dim / tp); input_layernorm and post_attention_layernorm -> `rmsnorm`;
                       add -> `add` (rows = tokens, columns = hidden). Norms and the residual
                       add are not split by tensor parallelism in Vidur's profiler, so they are
                       taken from the TP 1 rows only (the other TP rows re-measure the shape).
                       Vidur's attention.csv files are not in the public snapshot (over 4 MiB)
                       and its emb column (a vocabulary-parallel lookup) has no table kernel.
  measured:cudnn       NVIDIA/cudnn-frontend sdpa_benchmark_training results: causal
                       (top_left) bf16 cuDNN fused attention, forward and backward (not the
                       deterministic backward), Llama-3.1-405B-style GQA (64 query, 8 KV heads,
                       head_dim 128): H200 (cuDNN 9.19, torch-profiler kernel time, median of
                       10) and GB200 (batch 2, sequence 2048..32768, cuDNN 9.22, the same
                       timing; the gb200 table's own rows). The B200 artifacts file of the
                       older commit (128 query, 8 KV heads, pyt_cudnn backend) is
                       measured:cudnn too, see the host-timing rule.
  measured:llmcompass  PrincetonUniversity/LLMCompass ae/figure5 real_hardware A100 files:
                       20 fp16 GEMMs (M, N, K, ms), softmax and layernorm (M x N at the
                       stated elements per ns), GeLU (tanh approximation; M elements).
  measured:simumax     MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json, one 8x B200
                       node (Transformer Engine 2.11, NVIDIA PyTorch 26.01): per shape the
                       achieved fraction of 2,250 TFLOP/s. time = FLOP / (fraction x 2250e12)
                       with SimuMax's FLOP count. Dense bf16 GEMMs (general_gemm, 75 calls back
                       to back after 25, host-timed around the loop) by layout: TN forward ->
                       `gemm` (m tokens, n out, k in), NN data gradient -> `gemm_dgrad` (m
                       tokens, n in, k out: SimuMax's m, n, k), NT weight gradient accumulated
                       into an fp32 main_grad -> `gemm_wgrad` (SimuMax's m out x n in over k
                       tokens, written m in x n out as the workload's wgrad); its 82 NT rows into
                       a bf16 main_grad are left out. Grouped (MoE expert) GEMMs (fwd,
                       bwd_grad_act, bwd_grad_w; ng groups of M tokens, N out, K in) ->
                       `grouped_gemm`, `grouped_gemm_dgrad`, `grouped_gemm_wgrad` (batch = ng,
                       the same shape conventions; not read by the compute model yet), the
                       forward and data-gradient rows measured under both main_grad formats
                       kept as repeats, the bf16-main_grad weight gradients left out. Fused
                       attention (Transformer Engine DotProductAttention, causal; torch-profiler
                       kernel span, median): SimuMax counts 2*b*s^2*max(h, h_kv)*(d_qk + d_v)
                       forward, 2.5x backward; the rows count the causal half as the workload
                       does; contiguous Q, K, V only (what SimuMax's simulator reads; the
                       non-contiguous repeats are within 6 %).
  Which B200 measurement times which GEMM: XLA and SimuMax agree where both timed a shape
  (4096 x 4096 x 512..4096: SimuMax's forward at 1.01..1.29x XLA's rate, 4096^3 1435 vs 1417
  TFLOP/s, its data- and weight-gradient GEMMs at 0.95..1.21x); XLA
  runs each dot alone (host work between executions: boost clock), SimuMax 75 back to back,
  and beyond 4096, where only SimuMax measures, its rate falls from ~1450 to ~1100 TFLOP/s
  once a call passes ~1 ms in every layout: the B200 reaches its 1,000 W limit and its SM
  clock drops from 1,965 to ~1,580 MHz after a few ms of sustained load (flashinfer-ai/
  flashinfer#2899, measured on B200), as in a training step. Both sets are rows of one curve
  (B200_SOURCE_RULES, the table's "# rule" lines): SimuMax's time the large shapes, where
  the XLA-only table extrapolated its 4096 edge rate (1,410-1,416 TFLOP/s for Llama 3 70B MLP
  shapes against SimuMax's measured 1,021-1,112).
  Host-timed sources: LLMCompass times one call between time.time() and a synchronize, and
  the cuDNN B200 artifacts time the PyTorch call between two CUDA events, so launch and
  dispatch are inside the time (LLMCompass's 8192x64x64 GEMM takes 30 us). Rows of these
  files shorter than 10x the file's shortest time (per column: forward and backward
  separately) are dropped: there the overhead is more than a tenth of the time.

DERIVED (stated assumptions; every rule names its figures)
  derived:h100-gemm-rate   H200 GEMMs (gemm, batched_gemm; bf16, fp16, tf32) take the H100's
                           measured time at the same shape: H200 has the H100's compute dies,
                           SM count and clocks (989 TFLOP/s bf16 both; public.md D3 and D4
                           "Gaps"). Its 4.8 vs 3.35 TB/s HBM would only speed up memory-bound
                           shapes, so these rows are an upper bound there.
  derived:mamf-fp8-ratio   H100 and H200 fp8 GEMMs (the sm_90 fp8 rows being unusable): the
                           H100's measured bf16 XLA time at the same shape x (bf16 MAMF / fp8
                           MAMF): 794.5/1402.6 on H100, 794.5/1453.4 on H200 (stas00/ml-
                           engineering maximum achievable matmul FLOP/s, public.md D3). It
                           assumes the fp8 speed-up of the largest GEMMs holds at every shape,
                           which overstates it for small, latency-bound ones.
  derived:h200-cudnn       H100 fused attention = the H200's measured cuDNN time at the same
                           shape: attention at these sequence lengths is bound by the tensor
                           cores, which the two GPUs share; FlashAttention-style kernels read
                           Q, K and V once, so the H200's extra bandwidth does not matter.
  derived:fa2-efficiency   A100 fused attention (no A100 measurement exists): at the H200
                           cuDNN shapes, the forward reaches 73 % of the A100's 312 TFLOP/s
                           bf16 peak at the longest sequence (upper end of FlashAttention-2's
                           "50-73 % of the theoretical maximum FLOPs/s on A100", Dao 2023,
                           abstract), and below it the H200's measured efficiency curve scaled
                           to that level (eff(s) = 0.73 * eff_H200(s) / eff_H200(s_max)); the
                           backward takes the H200's backward/forward time ratio at the shape.
  derived:gb200-mamf-ratio B200 fused attention at the GB200 results' shapes shorter than any
                           B200 measurement (sequence 2048; 64 query, 8 KV heads, batch 2, cuDNN
                           9.22): the GB200's time x 1822.0/1745.0, the GB200 / B200 ratio of the
                           measured maximum achievable matmul TFLOP/s (MAMF; stas00/ml-
                           engineering compute/accelerator/README.md @744d01e1), which the
                           device-reported maximum SM clocks (2062 vs 1965 MHz, the same table)
                           match within 1 %. It replaces the datasheet ratio 2500/2250.
  derived:b200-mamf-fp8-ratio  B200 fp8 GEMMs at SimuMax's shapes beyond XLA's 4096 (per layout:
                           gemm, gemm_dgrad, gemm_wgrad): SimuMax's measured bf16 time x
                           1745.0/3432.5 (B200 bf16 / fp8 MAMF, the same table; XLA's own
                           fp8/bf16 time ratio at 4096^3 is 0.512). As the H100's mamf-fp8-ratio,
                           it carries the measured sustained bf16 rate over to fp8.
  derived:b200-xla-fp8-ratio  B200 fp8 grouped (expert) GEMMs at every shape of SimuMax's grouped
                           rows (grouped_gemm, _dgrad, _wgrad; no source times an fp8 grouped
                           GEMM at these shapes): SimuMax's measured bf16 time x XLA's measured
                           fp8/bf16 time ratio of its batch-4 rows at the per-group shape (each
                           of m, n, k clamped to 256..4096, log-linear between grid points),
                           never below the MAMF ratio 1745.0/3432.5. The ratio is the shape's
                           own: 0.53 at 2048^3, 0.61 at 2048 x 1024 x 2048, 0.509 at 4096^3, so
                           fine-grained experts gain less from fp8 than large GEMMs do. The one
                           MXFP8 grouped GEMM measured on B200 (pytorch/ao
                           torchao/prototype/moe_training/README.md @ 0b1bb117, BSD-3-Clause,
                           "MXFP8 Kernel Breakdown by Pass": DeepSeek-V3's 131,072 rows in 8
                           groups, K 7,168, N 2,048; public.md D5) takes 1838.1 us forward,
                           1838.1 us for the data gradient and 2412.4 us for the weight
                           gradient; this rule gives 1754, 1888 and 1830 us there.
  derived:b200-mamf-ratio  GB200 rows no GB200 measurement covers (every GEMM kind, bf16, tf32,
                           fp8; attention at the B200's measured shapes): the B200 table's row
                           (measured, or b200-*-fp8-ratio) x B200 MAMF / GB200 MAMF of the
                           dtype, 1745.0/1822.0 for bf16 (tf32 and attention too), 3432.5/3615.6
                           for fp8: measured rates of the same silicon at 1,000 and 1,200 W,
                           instead of the datasheet peak ratio 2250/2500.
  derived:b200-mamf-ratio-gb300  GB300 GEMMs: as derived:b200-mamf-ratio; GB300's dense peaks (bf16
                           2,500, fp8 5,000 TFLOP/s at 1,400 W, topologies/README.md) are GB200's,
                           and no GB300 MAMF is published.
  derived:gb300-over-gb200 GB300 fused attention at shapes the GB300 results do not time (the
                           GB200 table's longer rows): that row's time x the median GB300/GB200
                           time ratio of the same pass over the shapes both files time (the
                           same cuDNN 9.22 and benchmark; Blackwell Ultra's faster exponentials
                           show as 0.83 forward, 0.92 backward).
  derived:b200-mamf-ratio-b300  B300 GEMMs: the B200 table's row x B200 MAMF / B300 MAMF (bf16
                           and tf32 1745.0/1769.0, fp8 3432.5/3353.3; the same table). No public
                           B300 kernel timing exists.
  derived:gb300-cudnn      B300 fused attention: the GB300 table's time x 2500/2250 (dense bf16
                           at 1,400 W in GB300 vs 1,100 W in HGX B300): the datasheet ratio, no
                           B300 or GB300 MAMF being published to replace it.
  derived:h100-bandwidth   H200 rmsnorm, swiglu, add and rope: the H100's measured (Vidur)
                           time with its streaming part scaled by the HBM bandwidths,
                           time = o + (t_H100 - o) * 3350/4800, o = min(3 us, t_H100): 3 us
                           of launch and tail (sim/compute/roofline_compute_model.cpp) that
                           bandwidth does not shorten.
  derived:hbm-roofline     Memory-bound kernels no source measures on the GPU (and all of them
                           on B200 and GB200), over trainsim-calibrate's grid (rows 256..65536
                           x 8192 columns, Adam 2^22..2^30 parameters, copies 4 MiB..4 GiB):
                           time = 3 us + bytes / (0.85 x HBM bandwidth), the roofline's figures
                           (sim/compute/roofline_compute_model.cpp); HBM: A100 2039, H100 3350,
                           H200 4800 GB/s (public.md D3), B200 8000 GB/s (NVIDIA DGX B200:
                           64 TB/s for eight GPUs), GB200 8000 GB/s (GB200 NVL72: 576 TB/s for
                           72 GPUs; topologies/gpu_presets.cpp).
  No row carries an end-to-end factor: the tables are kernel times only (the former A100
  factor 0.865, fitted to Megatron-LM Table 1, is gone; end-to-end calibration is done
  elsewhere).

NOT IN THE TABLES, HANDLED BY THE MODEL (sim/compute/calibrated_compute_model.hpp)
  * Backward GEMMs: only the Blackwell tables have them (SimuMax's gemm_dgrad, gemm_wgrad);
    elsewhere, and at shapes those rows lack, a backward GEMM (dgrad: m x k over n, wgrad:
    k x n over m) is looked up by its own transposed shape in the forward rows.
  * fp16 and bf16 run at the same tensor-core rate on these GPUs (datasheets), so a 16-bit
    curve is filled with the other 16-bit dtype's rows at shapes it lacks (the A100's
    measured GEMMs are all fp16).
  * A100 batched GEMMs: no source; the model runs `batch` GEMM rows back to back.

Shape fields and byte counts follow kernels/README.md ("Calibration table format").
"""

import argparse
import csv
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The third-party extracts (module docstring); main() sets it from --sources.
SOURCES = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "calibration-sources"))
# SimuMax's B200 file, beside the extracts in ../shared/data/simumax/; main() sets it from
# --simumax (default: the folder `simumax` beside the --sources folder).
SIMUMAX = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "simumax"))
SIMUMAX_FILE = "b200_bf16_ceperm.json"

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
    # Figures only (a ratio of two measured rates), no rows: CC-BY-SA-4.0 text, nothing copied.
    "mamf": ("stas00/ml-engineering", "compute/accelerator/README.md",
             "744d01e18b79512572f64a6bbd8b5f4a725203a7", "CC-BY-SA-4.0"),
}

# The rule of each derived origin, for the table headers (the docstring has the reasoning).
RULES = {
    "h100-gemm-rate": "H200 GEMM = the H100's measured time at the shape (same compute dies, 989 TFLOP/s bf16 "
                      "both: NVIDIA H100 and H200 datasheets)",
    "mamf-fp8-ratio": "fp8 GEMM = the H100's measured bf16 time x bf16 MAMF / fp8 MAMF (794.5/1402.6 H100, "
                      "794.5/1453.4 H200; stas00/ml-engineering compute/accelerator/README.md, MAMF table)",
    "h200-cudnn": "H100 fused attention = the H200's measured cuDNN time at the shape (same tensor cores)",
    "fa2-efficiency": "A100 fused attention: 73 % of 312 TFLOP/s at the longest sequence (FlashAttention-2, "
                      "Dao 2023), the H200 cuDNN efficiency curve below it, the H200's backward/forward ratio",
    "gb200-mamf-ratio": "B200 fused attention at sequences shorter than any B200 measurement = GB200 cuDNN time x "
                        "1822.0/1745.0 (the measured bf16 MAMF of GB200 and B200; stas00/ml-engineering)",
    "b200-mamf-fp8-ratio": "B200 fp8 GEMM at a SimuMax shape beyond XLA's 4096 = SimuMax's measured bf16 time of the "
                           "same layout x 1745.0/3432.5 (B200 bf16 / fp8 MAMF; XLA's own fp8/bf16 ratio at 4096^3 "
                           "is 0.51 too)",
    "b200-xla-fp8-ratio": "B200 fp8 grouped GEMM = SimuMax's measured bf16 grouped time x XLA's measured fp8/bf16 time "
                          "ratio of its batch-4 rows at the per-group shape (m, n, k clamped to 256..4096, log-linear), "
                          "at least the MAMF ratio 1745.0/3432.5",
    "b200-mamf-ratio": "GB200 row = the B200 table's row (measured, b200-mamf-fp8-ratio or b200-xla-fp8-ratio) x B200 MAMF / GB200 MAMF "
                       "of its dtype: bf16, tf32, attention and grouped GEMMs 1745.0/1822.0, fp8 3432.5/3615.6 "
                       "(measured rates; the device-reported maximum SM clocks, 1965 and 2062 MHz, give 0.953)",
    "gb300-over-gb200": "GB300 fused attention at shapes GB300 was not timed at = the GB200 table's row x the "
                        "median GB300/GB200 cuDNN time ratio of the pass over the shapes both were timed at",
    "b200-mamf-ratio-gb300": "GB300 GEMM = the B200 table's row x the GB200 rule's MAMF ratio (GB300's dense bf16 "
                             "2500 and fp8 5000 TFLOP/s are GB200's; no GB300 MAMF is published)",
    "b200-mamf-ratio-b300": "B300 GEMM = the B200 table's row x B200 MAMF / B300 MAMF: bf16 and tf32 "
                            "1745.0/1769.0, fp8 3432.5/3353.3 (measured rates; no B300 kernel timing is public)",
    "gb300-cudnn": "B300 fused attention = the GB300 table's attention time x 2500/2250 (dense bf16 TFLOP/s at 1400 W vs "
                   "1100 W)",
    "h100-bandwidth": "H200 memory-bound = o + (t_H100 - o) x 3350/4800, o = min(3 us, t_H100)",
    "hbm-roofline": "memory-bound with no measurement: 3 us + bytes / (0.85 x HBM bandwidth)",
}

OVERHEAD_S = 3e-6          # launch and tail per kernel (sim/compute/roofline_compute_model.cpp)
MEMORY_EFFICIENCY = 0.85   # streaming kernels' share of datasheet HBM bandwidth (same file)
HOST_TIMED_FACTOR = 10.0   # host-timed rows shorter than this x the file's shortest are dropped

MAMF_BF16 = 794.5e12                                  # H100 SXM and H200 (public.md D3)
MAMF_FP8 = {"h100-sxm": 1402.6e12, "h200": 1453.4e12}  # public.md D3
SM90_FP8_PEAK = 1979e12                               # H100 SXM dense fp8 (public.md D3)
FA2_FRACTION = 0.73                                   # Dao 2023, abstract: "50-73%"
A100_PEAK_BF16 = 312e12                               # public.md D3
H200_PEAK_BF16 = 989e12                               # public.md D3
GB300_TO_B300 = 2500.0 / 2250.0                       # dense bf16: GB300 2500, B300 2250 (topologies/README.md presets)
# Maximum achievable matmul TFLOP/s (mean of 100 torch matmuls after 50 warm-up, best shape
# of a search) of the Blackwell GPUs, stas00/ml-engineering compute/accelerator/README.md
# @744d01e1 (REFS["mamf"]): the ratios between GPUs, and B200's fp8/bf16 ratio.
BLACKWELL_MAMF = {"b200": {"bf16": 1745.0, "fp8": 3432.5}, "gb200": {"bf16": 1822.0, "fp8": 3615.6},
                  "b300": {"bf16": 1769.0, "fp8": 3353.3}}
XLA_EDGE = 4096  # XLA's largest M, N, K: SimuMax shapes beyond it get fp8 rows (b200-mamf-fp8-ratio)


def mamf_ratio(source, target, dtype):
    """Time of a `target` kernel over the `source` one: source MAMF / target MAMF (bf16 stands
    for every dtype but fp8)."""
    key = "fp8" if dtype == "fp8" else "bf16"
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

GPUS = {
    "a100-80g": {"name": "NVIDIA A100-SXM4-80GB", "cc": "8.0", "hbm_Bps": 2039e9},
    "h100-sxm": {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "hbm_Bps": 3350e9},
    "h200": {"name": "NVIDIA H200", "cc": "9.0", "hbm_Bps": 4800e9},
    "b200": {"name": "NVIDIA B200", "cc": "10.0", "hbm_Bps": 8000e9},
    "gb200": {"name": "NVIDIA GB200", "cc": "10.0", "hbm_Bps": 8000e9},
    "b300": {"name": "NVIDIA B300", "cc": "10.3", "hbm_Bps": 8000e9},
    "gb300": {"name": "NVIDIA GB300", "cc": "10.3", "hbm_Bps": 8000e9},
}

KERNEL_ORDER = ["gemm", "gemm_dgrad", "gemm_wgrad", "batched_gemm", "grouped_gemm", "grouped_gemm_dgrad",
                "grouped_gemm_wgrad", "attention_fwd", "attention_bwd", "rmsnorm", "layernorm", "softmax",
                "gelu", "swiglu", "rope", "add", "adam", "copy_d2d"]
DTYPE_ORDER = ["bf16", "fp16", "fp8", "tf32", "fp32", "u8"]

IN_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "tf32": 4}
OUT_BYTES = {"bf16": 2, "fp16": 2, "fp8": 2, "tf32": 4}  # fp8 GEMMs write bf16

XLA_DTYPES = {"bf16xbf16->bf16": "bf16", "f32xf32->f32": "tf32", "f8e4m3fnxf8e4m3fn->bf16": "fp8"}

ROW_KERNEL_ROWS = [256, 1024, 4096, 16384, 65536]
ROW_KERNEL_COLS = 8192
ADAM_PARAMS = [1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30]
COPY_BYTES = [1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30, 1 << 32]


class Row:
    """One table row: shape fields, seconds, FLOP, bytes, and where it comes from."""

    def __init__(self, kernel, dtype, m, n, k, batch, time_s, flops, nbytes, origin):
        self.kernel, self.dtype = kernel, dtype
        self.m, self.n, self.k, self.batch = m, n, k, batch
        self.time_s, self.flops, self.bytes, self.origin = time_s, flops, nbytes, origin

    def with_time(self, time_s, origin, dtype=None, nbytes=None):
        return Row(self.kernel, dtype or self.dtype, self.m, self.n, self.k, self.batch, time_s, self.flops,
                   self.bytes if nbytes is None else nbytes, origin)

    def sort_key(self):
        return (KERNEL_ORDER.index(self.kernel), DTYPE_ORDER.index(self.dtype), self.m, self.n, self.k, self.batch,
                self.origin, self.time_s)


# ---------------------------------------------------------------------------------------
# Row builders (kernels/README.md conventions)

def gemm_row(dtype, m, n, k, batch, time_s, origin, kernel=None):
    """A GEMM row; `kernel` defaults to gemm (batch 1) or batched_gemm."""
    kernel = kernel or ("gemm" if batch == 1 else "batched_gemm")
    flops = 2 * m * n * k * batch
    nbytes = ((m * k + k * n) * IN_BYTES[dtype] + m * n * OUT_BYTES[dtype]) * batch
    return Row(kernel, dtype, m, n, k, batch, time_s, flops, nbytes, origin)


def attention_rows(seq, batch, heads, kv_heads, head_dim, fwd_s, bwd_s, origin, element=2, v_dim=None):
    """Fused causal attention, forward and backward, as layer_workload.cpp counts it: forward
    FLOP 2*b*s^2*h*(d_qk + d_v)/2 (causal half; 4*b*s^2*h*d/2 for d_qk = d_v = d), backward 2.5x;
    bytes Q and O over the query heads, K and V over the KV heads (x2 backward), each
    d_qk + d_v wide. Shape fields: seq, seq, head_dim (d_qk), batch x query heads."""
    v_dim = head_dim if v_dim is None else v_dim
    fwd_flops = 2 * batch * seq * seq * heads * (head_dim + v_dim) // 2
    fwd_bytes = (batch * seq * heads * (head_dim + v_dim) + batch * seq * kv_heads * (head_dim + v_dim)) * element
    bh = batch * heads
    return [Row("attention_fwd", "bf16", seq, seq, head_dim, bh, fwd_s, fwd_flops, fwd_bytes, origin),
            Row("attention_bwd", "bf16", seq, seq, head_dim, bh, bwd_s, fwd_flops * 5 // 2, 2 * fwd_bytes, origin)]


def memory_row(kernel, dtype, rows, cols, time_s, origin):
    """Memory-bound kernels: HBM bytes as trainsim-calibrate counts them (kernels/README.md)."""
    per_element = {"rmsnorm": 4, "layernorm": 4, "softmax": 4, "gelu": 4, "rope": 4, "swiglu": 6, "add": 6}
    nbytes = per_element[kernel] * rows * cols
    if kernel == "rmsnorm":
        nbytes += 2 * cols  # the weight
    return Row(kernel, dtype, rows, cols, 0, 1, time_s, 0, nbytes, origin)


def roofline_time(nbytes, gpu):
    return OVERHEAD_S + nbytes / (MEMORY_EFFICIENCY * gpu["hbm_Bps"])


# ---------------------------------------------------------------------------------------
# Sources

def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def xla_entries(section):
    """{(dtype, b, m, n, k): seconds} of one section of the XLA extract."""
    out = {}
    for r in read_csv(os.path.join(SOURCES, "openxla-xla", "default_matmul_perf_table.csv")):
        if r["section"] != section:
            continue
        b, m, n, k = (int(r[c]) for c in ("b", "m", "n", "k"))
        for key, dtype in XLA_DTYPES.items():
            out[(dtype, b, m, n, k)] = 2 * b * m * n * k / int(r[key])
    if not out:
        raise SystemExit("convert_public.py: no XLA section %s" % section)
    return out


def xla_rows(section, dtypes, entries=None):
    """Rows of XLA's measured GEMMs of `section` in `dtypes` (tf32 at batch 1 only); `entries`:
    that section's xla_entries when the caller has read them already."""
    rows = []
    for (dtype, b, m, n, k), t in sorted((entries or xla_entries(section)).items()):
        if dtype in dtypes and (dtype != "tf32" or b == 1):
            rows.append(gemm_row(dtype, m, n, k, b, t, "measured:xla"))
    return rows


def check_sm90_fp8_is_unusable():
    """public.md D4: the sm_90 fp8 rates exceed the H100's fp8 peak. Stop if that changes, so
    that the rule 'do not use them' is revisited rather than silently kept."""
    best = max(2 * b * m * n * k / t for (d, b, m, n, k), t in xla_entries("sm_90").items() if d == "fp8")
    if best <= SM90_FP8_PEAK:
        raise SystemExit("convert_public.py: the sm_90 fp8 rows no longer exceed the H100 fp8 peak; revisit")
    return best


VIDUR_MODELS = {
    "a100": ["Llama-2-7b-hf", "Llama-2-70b-hf", "Meta-Llama-3-8B", "Meta-Llama-3-70B"],
    "h100": ["Llama-2-7b-hf", "Llama-2-70b-hf"],
}


def vidur_rows(gpu_folder):
    rows = []
    for model in VIDUR_MODELS[gpu_folder]:
        path = os.path.join(SOURCES, "microsoft-vidur", gpu_folder, "meta-llama", model, "mlp.csv")
        for r in read_csv(path):
            heads, kv, hidden = int(r["n_head"]), int(r["n_kv_head"]), int(r["n_embd"])
            ffn, tokens, tp = int(r["n_expanded_embd"]), int(r["num_tokens"]), int(r["num_tensor_parallel_workers"])
            if r["use_gated_mlp"] != "True":
                raise SystemExit("convert_public.py: %s is not a gated MLP" % path)
            d = hidden // heads

            def ms(op):
                return float(r["time_stats.%s.median" % op]) * 1e-3

            o = "measured:vidur"
            rows.append(gemm_row("fp16", tokens, (heads + 2 * kv) * d // tp, hidden, 1, ms("attn_pre_proj"), o))
            rows.append(gemm_row("fp16", tokens, hidden, heads * d // tp, 1, ms("attn_post_proj"), o))
            rows.append(gemm_row("fp16", tokens, 2 * ffn // tp, hidden, 1, ms("mlp_up_proj"), o))
            rows.append(gemm_row("fp16", tokens, hidden, ffn // tp, 1, ms("mlp_down_proj"), o))
            rows.append(memory_row("swiglu", "fp16", tokens, ffn // tp, ms("mlp_act"), o))
            rows.append(memory_row("rope", "fp16", tokens, (heads + kv) * d // tp, ms("attn_rope"), o))
            if tp == 1:  # not split by TP: the other TP rows re-measure the same shape
                rows.append(memory_row("rmsnorm", "fp16", tokens, hidden, ms("input_layernorm"), o))
                rows.append(memory_row("rmsnorm", "fp16", tokens, hidden, ms("post_attention_layernorm"), o))
                rows.append(memory_row("add", "fp16", tokens, hidden, ms("add"), o))
    return rows


def host_timed_keep(times):
    """Which host-timed rows to keep: those at least HOST_TIMED_FACTOR x the shortest."""
    floor = HOST_TIMED_FACTOR * min(times)
    return [t >= floor for t in times]


def llmcompass_rows():
    base = os.path.join(SOURCES, "PrincetonUniversity-LLMCompass", "ae", "figure5")

    def fields(path):
        with open(path) as f:
            return [[x.strip() for x in line.split(",")] for line in f if line.strip()]

    rows = []
    o = "measured:llmcompass"
    gemms = [(int(a), int(b), int(c), float(t[:-2]) * 1e-3)
             for a, b, c, t, _ in fields(os.path.join(base, "ab", "real_hardware", "matmul_A100.csv"))]
    for (m, n, k, t), keep in zip(gemms, host_timed_keep([g[3] for g in gemms])):
        if keep:
            rows.append(gemm_row("fp16", m, n, k, 1, t, o))
    for kernel, sub in (("softmax", "cf"), ("layernorm", "de")):
        entries = [(int(a), int(b), int(a) * int(b) / (float(v) * 1e9))
                   for a, b, v in fields(os.path.join(base, sub, "real_hardware", kernel + "_A100.csv"))]
        for (r, c, t), keep in zip(entries, host_timed_keep([e[2] for e in entries])):
            if keep:
                rows.append(memory_row(kernel, "fp16", r, c, t, o))
    entries = [(int(a), int(a) / (float(v) * 1e9)) for a, v in fields(os.path.join(base, "g", "real_hardware",
                                                                                     "gelu_A100.csv"))]
    for (elements, t), keep in zip(entries, host_timed_keep([e[1] for e in entries])):
        if keep:
            rows.append(memory_row("gelu", "fp16", elements, 1, t, o))
    return rows


def cudnn_path(*parts):
    return os.path.join(SOURCES, "NVIDIA-cudnn-frontend", *parts)


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


def simumax_ops():
    """The `op` section of SimuMax's B200 file: {op: {"tflops": peak, "accurate_efficient_factor":
    {shape key: efficiency}}}."""
    import json
    with open(os.path.join(SIMUMAX, SIMUMAX_FILE)) as f:
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
    the causal half as the workload does."""
    fwd = {}
    for op in ("sdp_fwd", "sdp_bwd"):
        for f, s_per_flop in simumax_entries(op):
            if f["qkv_contiguous"] != "True":
                continue
            b, s, h, kv, dqk, dv = (int(f[c]) for c in ("batch", "seq_len", "head_num", "kv_head_num", "qk_head_dim",
                                                          "v_head_dim"))
            count = 2 * b * s * s * max(h, kv) * (dqk + dv) * (1 if op == "sdp_fwd" else 2.5)
            fwd.setdefault((s, b, h, kv, dqk, dv), {})[op] = count * s_per_flop
    rows = []
    for (s, b, h, kv, dqk, dv), t in sorted(fwd.items()):
        if set(t) != {"sdp_fwd", "sdp_bwd"}:
            raise SystemExit("convert_public.py: SimuMax attention %r: forward or backward missing" % ((s, b, h),))
        rows += attention_rows(s, b, h, kv, dqk, fwd_s=t["sdp_fwd"], bwd_s=t["sdp_bwd"], origin="measured:simumax",
                               v_dim=dv)
    return rows


# ---------------------------------------------------------------------------------------
# Derivations

XLA_GRID = [256, 512, 1024, 2048, 4096]  # XLA's m, n and k (every combination, batches 1, 2, 4)


def xla_fp8_ratio(entries, m, n, k, batch=4):
    """fp8 time over bf16 time of XLA's measured rows (one section's xla_entries) at batch
    `batch`, interpolated log-linearly in (log2 m, log2 n, log2 k), each clamped to XLA's grid
    (a shape beyond 4096 takes the edge's ratio, where large shapes approach the MAMF ratio)."""
    def bracket(x):
        x = min(max(x, XLA_GRID[0]), XLA_GRID[-1])
        for lo, hi in zip(XLA_GRID, XLA_GRID[1:]):
            if x <= hi:
                return lo, hi, (math.log2(x) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))
        raise AssertionError(x)
    (m0, m1, fm), (n0, n1, fn), (k0, k1, fk) = bracket(m), bracket(n), bracket(k)
    log_ratio = 0.0
    for mi, wm in ((m0, 1 - fm), (m1, fm)):
        for ni, wn in ((n0, 1 - fn), (n1, fn)):
            for ki, wk in ((k0, 1 - fk), (k1, fk)):
                if wm * wn * wk > 0:
                    log_ratio += wm * wn * wk * math.log(entries[("fp8", batch, mi, ni, ki)] /
                                                         entries[("bf16", batch, mi, ni, ki)])
    return math.exp(log_ratio)


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
    timed = {(r.kernel, r.m, r.n, r.k, r.batch) for r in measured}
    out = []
    for r in gb200_rows:
        if not r.kernel.startswith("attention_") or (r.kernel, r.m, r.n, r.k, r.batch) in timed:
            continue
        ratio = fwd_ratio if r.kernel == "attention_fwd" else bwd_ratio
        out.append(r.with_time(r.time_s * ratio, "derived:gb300-over-gb200"))
    return out


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


def fp8_from_bf16(bf16_rows, gpu_name):
    out = []
    for r in bf16_rows:
        if r.dtype != "bf16":
            continue
        fp8 = gemm_row("fp8", r.m, r.n, r.k, r.batch, r.time_s * MAMF_BF16 / MAMF_FP8[gpu_name],
                       "derived:mamf-fp8-ratio")
        out.append(fp8)
    return out


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


# ---------------------------------------------------------------------------------------
# Tables

def b200_table_rows():
    """The B200 table's rows before the memory-bound rule, and its refs. GEMMs: XLA's and
    SimuMax's measurements side by side (B200_SOURCE_RULES), fp8 at SimuMax's shapes beyond
    XLA's edge and at SimuMax's grouped shapes from SimuMax's bf16 time (b200-mamf-fp8-ratio,
    b200-xla-fp8-ratio); attention: every B200 measurement, GB200's only at
    shorter sequences; SimuMax's grouped GEMMs."""
    simumax_gemm = simumax_gemm_rows()
    grouped = simumax_grouped_rows()
    mamf = BLACKWELL_MAMF["b200"]["bf16"] / BLACKWELL_MAMF["b200"]["fp8"]
    fp8 = [gemm_row("fp8", r.m, r.n, r.k, 1, r.time_s * mamf, "derived:b200-mamf-fp8-ratio", r.kernel)
           for r in simumax_gemm if max(r.m, r.n, r.k) > XLA_EDGE]
    xla = xla_entries("sm_100_B200")
    fp8 += [gemm_row("fp8", r.m, r.n, r.k, r.batch, r.time_s * max(mamf, xla_fp8_ratio(xla, r.m, r.n, r.k)),
                     "derived:b200-xla-fp8-ratio", r.kernel) for r in grouped]
    attention = cudnn_b200_rows() + simumax_attention_rows()
    shortest = min(r.m for r in attention)
    gb200 = [row.with_time(row.time_s / mamf_ratio("b200", "gb200", "bf16"), "derived:gb200-mamf-ratio")
             for e in cudnn_llama("gb200") if e[0] < shortest
             for row in attention_rows(*e, origin="derived:gb200-mamf-ratio")]
    rows = xla_rows("sm_100_B200", ("bf16", "tf32", "fp8"), xla) + simumax_gemm + fp8 + grouped + \
        attention + gb200
    return rows, [("xla", "sm_100_B200"), ("simumax", "8x B200 node, Transformer Engine 2.11, bf16"),
                  ("cudnn-b200", "B200, cuDNN 9.10"), ("cudnn", "GB200, cuDNN 9.22, for the derived B200 rows"),
                  ("mamf", "B200 bf16 and fp8 and GB200 bf16 MAMF, for the derived rows")]


def table_rows():
    """{gpu: (rows, refs)}: every row of every table, and the sources each table cites."""
    sm90_fp8_best = check_sm90_fp8_is_unusable()
    h100_xla = xla_rows("sm_90", ("bf16", "tf32"))
    h100_vidur = vidur_rows("h100")
    h100_gemm = h100_xla + [r for r in h100_vidur if r.kernel == "gemm"]
    h100_memory = [r for r in h100_vidur if r.kernel != "gemm"]
    h200_attention = [row for e in cudnn_h200() for row in attention_rows(*e, origin="measured:cudnn")]

    tables = {}
    rows = vidur_rows("a100") + llmcompass_rows() + fa2_a100_attention()
    tables["a100-80g"] = (rows, [("vidur", "A100 80GB DGX"), ("llmcompass", "A100 80GB"), ("cudnn", "H200, for the "
                                                                                             "shape of the derived "
                                                                                             "A100 attention")])
    rows = h100_gemm + fp8_from_bf16(h100_xla, "h100-sxm") + h100_memory + \
        [r.with_time(r.time_s, "derived:h200-cudnn") for r in h200_attention]
    tables["h100-sxm"] = (rows, [("xla", "sm_90; fp8 rows not used: up to %.0f TFLOP/s, above the 1979 peak"
                                  % (sm90_fp8_best / 1e12)), ("vidur", "H100 DGX"), ("cudnn", "H200")])
    rows = [r.with_time(r.time_s, "derived:h100-gemm-rate") for r in h100_gemm] + \
        fp8_from_bf16(h100_xla, "h200") + h200_memory_from_h100(h100_memory) + h200_attention
    tables["h200"] = (rows, [("cudnn", "H200, cuDNN 9.19"), ("xla", "sm_90, via the H100 rules"),
                             ("vidur", "H100, via the H100 rules")])
    b200_rows, b200_refs = b200_table_rows()
    tables["b200"] = (b200_rows, b200_refs)
    # GB200, GB300, B300: the B200's measured rows (and its fp8 rows derived from them) at the
    # measured MAMF ratio of the two GPUs; their own measurements (cuDNN attention) as measured.
    b200_kernels = [r for r in b200_rows if not r.kernel.startswith("attention_")]
    b200_attention = [r for r in b200_rows if r.kernel.startswith("attention_") and r.origin.startswith("measured:")]
    gb200_attention = [row for e in cudnn_llama("gb200") for row in attention_rows(*e, origin="measured:cudnn")]
    rows = [r.with_time(r.time_s * mamf_ratio("b200", "gb200", r.dtype), "derived:b200-mamf-ratio")
            for r in b200_kernels + b200_attention] + gb200_attention
    tables["gb200"] = (rows, [("cudnn", "GB200, cuDNN 9.22"), ("xla", "sm_100_B200, for the derived GB200 rows"),
                              ("simumax", "B200, for the derived GB200 rows"),
                              ("cudnn-b200", "B200, cuDNN 9.10, for the derived GB200 rows"),
                              ("mamf", "B200 and GB200 MAMF, for the derived rows")])
    gb300_attention = [row for e in cudnn_llama("gb300") for row in attention_rows(*e, origin="measured:cudnn")]
    gb300_attention += gb300_attention_from_gb200(rows, gb300_attention)
    tables["gb300"] = ([r.with_time(r.time_s * mamf_ratio("b200", "gb200", r.dtype), "derived:b200-mamf-ratio-gb300")
                        for r in b200_kernels] + gb300_attention,
                       [("cudnn", "GB300 (and GB200 for the derived rows), cuDNN 9.22"),
                        ("xla", "sm_100_B200, for the derived GB300 rows"),
                        ("simumax", "B200, for the derived GB300 rows"),
                        ("cudnn-b200", "B200, cuDNN 9.10, via the GB200 table's derived rows"),
                        ("mamf", "B200 and GB200 MAMF, for the derived rows")])
    tables["b300"] = ([r.with_time(r.time_s * mamf_ratio("b200", "b300", r.dtype), "derived:b200-mamf-ratio-b300")
                       for r in b200_kernels] +
                      [r.with_time(r.time_s * GB300_TO_B300, "derived:gb300-cudnn") for r in gb300_attention],
                      [("cudnn", "GB300 (and GB200), cuDNN 9.22, for the derived B300 rows"),
                       ("xla", "sm_100_B200, for the derived B300 rows"),
                       ("simumax", "B200, for the derived B300 rows"),
                       ("cudnn-b200", "B200, cuDNN 9.10, via the GB200 table's derived rows"),
                       ("mamf", "B200 and B300 MAMF, for the derived rows")])
    out = {}
    for name, (rows, refs) in tables.items():
        present = {r.kernel for r in rows}
        rows = rows + roofline_memory_rows(GPUS[name], present)
        out[name] = (sorted(rows, key=Row.sort_key), refs)
    return out


def fmt(x):
    return "%.9g" % x


def fmt_count(x):
    return "%d" % x if float(x).is_integer() and abs(x) < 1e18 else "%.9g" % x


def table_text(name, rows, refs):
    gpu = GPUS[name]
    measured = sum(1 for r in rows if r.origin.startswith("measured:"))
    used_rules = sorted({r.origin.split(":", 1)[1] for r in rows if r.origin.startswith("derived:")})
    sources = sorted({REFS[key][0] for key, _ in refs})
    lines = [
        "# gpu: %s (converted)" % gpu["name"],
        "# trainsim_gpu: %s" % name,
        "# compute_capability: %s" % gpu["cc"],
        "# source: converted from public measurements (%s); rows no measurement covers are derived; "
        "the origin column says which" % ", ".join(sources),
        "# generator: kernels/calibration/convert_public.py (python3 kernels/calibration/convert_public.py)",
        "# note: kernel times only, no end-to-end factor. A table trainsim-calibrate measures on the GPU "
        "(source: measured) replaces this one.",
        "# rows: %d, measured %d, derived %d" % (len(rows), measured, len(rows) - measured),
    ]
    for key, what in refs:
        repo, path, commit, license_name = REFS[key]
        lines.append("# ref %s: %s %s @%s %s (%s)" % (key, repo, path, commit, license_name, what))
    for rule, text in (B200_SOURCE_RULES if name == "b200" else []):
        lines.append("# rule %s: %s" % (rule, text))
    for rule in used_rules:
        lines.append("# rule derived:%s: %s" % (rule, RULES[rule]))
    lines.append("kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin")
    for r in rows:
        lines.append(",".join([r.kernel, r.dtype, fmt_count(r.m), fmt_count(r.n), fmt_count(r.k),
                               fmt_count(r.batch), fmt(r.time_s), fmt_count(r.flops), fmt_count(r.bytes),
                               "%.6g" % (r.flops / r.time_s / 1e12), "%.6g" % (r.bytes / r.time_s / 1e9),
                               r.origin]))
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
    global SOURCES, SIMUMAX
    parser = argparse.ArgumentParser(description="Writes the shipped calibration tables from public measurements.")
    parser.add_argument("out_dir", nargs="?", default=HERE, metavar="OUT_DIR",
                        help="folder the tables are written to (default: kernels/calibration/)")
    parser.add_argument("--sources", default=SOURCES, metavar="DIR",
                        help="the third-party extracts (default: ../shared/data/calibration-sources/ beside the checkout)")
    parser.add_argument("--simumax", metavar="DIR",
                        help="the folder of SimuMax's %s (default: simumax/ beside the --sources folder, "
                             "../shared/data/simumax/)" % SIMUMAX_FILE)
    args = parser.parse_args()
    if not os.path.isdir(args.sources):
        sys.stderr.write("convert_public.py: %s: no such folder: the public measurements the tables are converted from "
                         "are kept beside the checkout in ../shared/data/calibration-sources/ (or give --sources DIR)\n"
                         % args.sources)
        sys.exit(2)
    SOURCES = args.sources
    SIMUMAX = args.simumax or os.path.join(os.path.dirname(os.path.normpath(SOURCES)), "simumax")
    if not os.path.isfile(os.path.join(SIMUMAX, SIMUMAX_FILE)):
        sys.stderr.write("convert_public.py: %s: no such file: SimuMax's B200 measurements are kept beside the checkout "
                         "in ../shared/data/simumax/ (or give --simumax DIR)\n" % os.path.join(SIMUMAX, SIMUMAX_FILE))
        sys.exit(2)
    folder = args.out_dir
    if not os.path.isdir(folder):
        sys.stderr.write("convert_public.py: %s: no such folder to write the tables to\n" % folder)
        sys.exit(2)
    for name, (rows, refs) in sorted(table_rows().items()):
        path = os.path.join(folder, name + ".csv")
        if is_measured(path):
            print("%s is measured: left as it is" % path)
            continue
        if os.path.lexists(path) and not os.path.isfile(path):
            sys.stderr.write("convert_public.py: %s: exists and is not a regular file: not replaced\n" % path)
            sys.exit(2)
        # Whole or not at all: a temporary file beside the table, renamed over it.
        temporary = "%s.%d.tmp" % (os.path.realpath(path), os.getpid())
        with open(temporary, "w", newline="\n") as f:
            f.write(table_text(name, rows, refs))
        os.replace(temporary, os.path.realpath(path))


if __name__ == "__main__":
    main()
