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
  derived:deepgemm-fp8-gain H100 and H200 fp8 GEMMs, dense and batched (the grouped expert
                           GEMMs; the sm_90 fp8 rows being unusable): the H100's measured bf16
                           XLA time x DeepGEMM's measured FP8 time over the H100's XLA bf16
                           time at the same (per-group) shape (deepseek-ai/DeepGEMM README @
                           55ab91f7, H800 SXM5: 16 shapes, 256 .. 8192 rows per group, k 512 ..
                           16384; n = 2112 left out, a partial tile), weighted by inverse
                           squared distance in (log2 rows, log2 k); H200 x 1402.6/1453.4; never
                           below the MAMF ratio (794.5/1402.6, stas00/ml-engineering, public.md
                           D3), the gain of the best-shaped large GEMMs only. Dense rows take
                           DeepGEMM's six dense GEMMs alone (its grouped kernels' masked layout
                           runs 16 % below the dense kernel at the same total rows), and go on
                           at k = 8192 and 16384: the bf16 rate at k = 4096 (the base of the
                           measured gains) x the gain there. Dense FP8 gains 1.36 x at 4096
                           rows and k = 512, 1.5 to 1.6 x at 512 to 2048 rows, 1.6 x at 4096
                           rows and k = 2048 to 8192, 1.77 x (the MAMF cap) at k = 16384;
                           grouped: 1.45 x at Qwen3 30B-A3B's expert down-projection (4096
                           rows, k 768), 1.59 x at its up-projection (k 2048)
                           (converter/hopper_fp8.py).
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
  derived:simumax-host-gap B200 fused attention forward at SimuMax's shapes: SimuMax times a call
                           from its first kernel's start to its last kernel's end, synchronized
                           before and after (test_fa_efficiency.py @4dcaae5); Transformer
                           Engine's fused_attn_fwd launches a one-thread rng-state kernel, then
                           queries cuDNN's workspace, allocates it and has cuDNN launch the
                           attention kernel (pytorch/csrc/extensions/attention.cpp @015d2257), so
                           that host time lies in every forward span. Taken out: the intercept
                           of time against query heads through the 16- and 32-head rows at 4096
                           tokens (3.5 waves and more), the mean of the two head-dim families
                           (42.5 and 46.2 us); never below the total FLOPs at 2250 TFLOP/s or
                           one 128-row query tile over all keys at one SM's share of it. The
                           backward launches nothing before cuDNN's kernels (its intercept is
                           0 to 20 us) and stays measured.
  derived:b200-mamf-fp8-ratio  B200 fp8 GEMMs at SimuMax's shapes beyond XLA's 4096 (per layout:
                           gemm, gemm_dgrad, gemm_wgrad): SimuMax's measured bf16 time x
                           1745.0/3432.5 (B200 bf16 / fp8 MAMF, the same table; XLA's own
                           fp8/bf16 time ratio at 4096^3 is 0.512). It
                           carries the measured sustained bf16 rate over to fp8.
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
                           (measured or derived) x B200 MAMF / GB200 MAMF of the dtype,
                           1745.0/1822.0 for bf16 (tf32 and attention too), 3432.5/3615.6 for
                           fp8, mxfp8 and nvfp4: measured rates of the same silicon at 1,000 and 1,200 W,
                           instead of the datasheet peak ratio 2250/2500.
  derived:gb300-over-gb200 GB300 fused attention at shapes the GB300 results do not time (the
                           GB200 table's longer rows): that row's time x the median GB300/GB200
                           time ratio of the same pass over the shapes both files time (the
                           same cuDNN 9.22 and benchmark; Blackwell Ultra's faster exponentials
                           show as 0.83 forward, 0.92 backward).
  derived:gb300-cudnn      B300 fused attention (bf16 and fp8): the GB300 table's time x
                           1822.0/1745.0: B300 is GB300's Blackwell Ultra die on an HGX board,
                           slower by the measured Blackwell board gain (GB200 over B200 MAMF),
                           not the datasheet's 2500/2250.
  LOW PRECISION AND BLACKWELL ULTRA (converter/lowprec.py, converter/blackwell.py; figures in
  converter/public_figures.py, each with the page it was read from):
  derived:b200-lowprec-ratio  B200 nvfp4 and mxfp8 GEMMs (dense and grouped) at every bf16 GEMM
                           shape: the bf16 row x the measured format/bf16 time ratio at the
                           GEMM's size (side = (m n k)^(1/3)): nvfp4 pytorch/ao#2427's ratio;
                           mxfp8 the fp8 ratio raised to match TE's measured B300 MXFP8/BF16
                           (0.547) at TE's shapes. The measured rows (ao's cubes,
                           flashinfer's four shapes, torchao's DeepSeek-V3 grouped GEMMs) keep
                           their time: short benchmarks at the boost clock, while the derived
                           rows carry the table's bf16 time, SimuMax's sustained clock beyond
                           4096 (gemm-sources), so an 8192^3 nvfp4 GEMM takes ao's 205 us and a
                           nearby training shape 0.265 x SimuMax's bf16 time.
  measured:te / derived:te-pass-share  B300 at Transformer Engine's GEMM profile shapes (15872
                           tokens, hidden 4096, FFN 16384): the four forward bf16 GEMMs as
                           measured; the other passes and formats from TE's kernel-only pass
                           sums, split as the measured bf16 forward times split.
  derived:b300-over-b200   B300 bf16 and tf32 GEMMs elsewhere: B200's row x 0.940, the median of
                           TE's B300 time over ao#2427's B200 time at the same size.
  derived:b300-lowprec-ratio  B300 fp8, mxfp8 and nvfp4: the B300 bf16 row x B200's measured size
                           curve raised to the power that makes it TE's measured layer ratio
                           (fp8 0.520, mxfp8 0.547, nvfp4 0.287) at TE's shapes.
  derived:b300-board-ratio GB300 GEMMs: the B300 row x the GB200/B200 MAMF gain (bf16 1745/1822,
                           fp8 and the block-scaled formats 3432.5/3615.6): the same die on the
                           Grace board; no GB300 GEMM timing is public.
  measured:cudnn-fp8       cuDNN FP8 (and the same run's BF16) fused attention, cudnn-frontend's
                           sdpa_fp8 artifacts: B200, GB300 @0b1577c8, GB200 @d48a60eb; dtype fp8
                           rows (one byte per Q, K, V, O element), host-timed as the B200 bf16
                           artifacts. The compute model reads them only for FP8 attention.
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
                           72 GPUs; topologies/presets/gpus/).
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
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the tables

from converter.rows import PATHS, SIMUMAX_FILE  # noqa: E402 (after the line above)
from converter.tables import table_rows  # noqa: E402
from converter.text import is_measured, table_text  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The third-party extracts and SimuMax's B200 file, beside the checkout (module docstring).
SOURCES = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "calibration-sources"))

def main():
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
    PATHS["sources"] = args.sources
    PATHS["simumax"] = args.simumax or os.path.join(os.path.dirname(os.path.normpath(args.sources)), "simumax")
    if not os.path.isfile(os.path.join(PATHS["simumax"], SIMUMAX_FILE)):
        sys.stderr.write("convert_public.py: %s: no such file: SimuMax's B200 measurements are kept beside the checkout "
                         "in ../shared/data/simumax/ (or give --simumax DIR)\n" % os.path.join(PATHS["simumax"], SIMUMAX_FILE))
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
