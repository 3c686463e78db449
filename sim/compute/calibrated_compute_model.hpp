#pragma once
// Op times from a calibration table (calibration_table.hpp): each op is timed by the
// table's curve for the kernel that runs it (kernel_curve.hpp: log-space interpolation over a
// complete grid or over scattered samples, a fitted roofline beyond them).
//
// Which rows time which op (the choice is made here and nowhere else):
//   gemm          forward and recomputed GEMMs: 'gemm' rows of the precision's dtype, by
//                 (m, n, k); a gemm op with batch > 1 (grouped MoE experts) as batched_gemm.
//                 Backward GEMMs by their own layout's rows where the table has them:
//                 'gemm_dgrad' for the input gradient (m tokens, n input features, k output
//                 features), 'gemm_wgrad' for the weight gradient (m input features, n output
//                 features, k tokens; timed accumulating into the gradient buffer, so the
//                 workload's separate accumulation op then takes no time). Those curves take the
//                 'gemm' rows at shapes their layout was not timed at, and a table without
//                 them times backward GEMMs by 'gemm' at their own, transposed (m, n, k)
//   batched_gemm  'batched_gemm' rows by (m, n, k, batch); without them the fallback roofline
//                 (one strided-batched kernel; its head-dimension k is far from any 'gemm' row)
//   attention     'attention_fwd' (forward, recompute) or 'attention_bwd' rows, by the
//                 op's executed FLOPs and HBM bytes: fused kernels only. Two axes, because at
//                 the same FLOPs a longer sequence runs faster (fewer, longer tiles: the
//                 cuDNN and FlashAttention-2 benchmarks' TFLOP/s rise with the sequence
//                 length); for causal attention FLOPs / bytes = s h / ((h + h_kv) e), so
//                 the pair (FLOPs, bytes) stands for (work, sequence length) without the op
//                 having to carry its shape. trainsim-calibrate's 'attention_unfused_*' rows
//                 are not used for it: unfused attention moves the score matrix through HBM
//                 (Dao et al. 2022, §2.2, Algorithm 0), so it would overstate a fused
//                 kernel's time. The workload's unfused path (AttentionKernel::standard) is
//                 timed by its batched_gemm and softmax rows. By head dim (the row's k, the
//                 op's gemm.k, which carries an attention op's row shape): rows of head dim 128 and more form one curve; each
//                 narrower head dim (GPT-OSS's 64: cuDNN runs it at 0.7 of the 128 rate, 0.84
//                 backward, its sliding-window kernel at about half)
//                 its own, and an op takes the curve of the measured head dim nearest its own
//                 (in ratio, the wider on a tie; no interpolation between head dims: no
//                 source times a head dim between them; an op without a shape, gemm.k 0,
//                 as head dim 128). A sliding window's op counts only
//                 the keys its window reads (models/layer_workload.cpp), as its rows do
//                 (kernels/README.md), so it is timed by windowed rows of that head dim
//   norm          'rmsnorm', else 'layernorm', by HBM bytes
//   elementwise   'softmax' for ops named *softmax*, 'rope' (else 'add') for *rope*
//                 (rotary embedding of Q and K), 'swiglu' then 'gelu' for *activation*,
//                 else 'add'; by HBM bytes
//   loss          'softmax' (cross-entropy is a log-softmax over the vocabulary), by bytes
//   embedding     'copy_d2d' (a gather moves the rows it reads), by bytes
//   optimizer     'adam', by bytes
// and for every memory-bound kind 'copy_d2d' as the last resort. dtypes: bf16 -> bf16 then
// fp16, fp16 -> fp16 then bf16, fp8 -> fp8, fp32 -> tf32 then fp32 (fp32 matmuls run on TF32
// tensor cores, as in roofline_compute_model.cpp); attention and memory-bound rows of the
// precision's dtype, else bf16, fp16, fp32, u8 (copies). bf16 and fp16 run at the same
// tensor-core and memory rates on the A100, H100, H200 and B200 (NVIDIA datasheets: the same
// TFLOP/s for both), so a bf16 curve also takes the fp16 rows at shapes it has no bf16 row for,
// and the other way round (public GEMM timings are often fp16: Vidur, LLMCompass). An op no row
// covers is timed by the fallback roofline.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/training_spec.hpp"
#include "sim/compute/calibration_table.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/compute/kernel_curve.hpp"
#include "sim/compute/roofline_compute_model.hpp"

namespace trainsim {

class CalibratedComputeModel final : public ComputeModel {
 public:
  /// Builds the curves of the kernels listed above from `table` (other rows, e.g.
  /// memcpy_h2d or layer timings, are kept in the table but not used). Throws InputError
  /// naming the table's file for inconsistent rows (kernel_curve.hpp), or a gemm, gemm_dgrad or gemm_wgrad row with
  /// batch != 1.
  CalibratedComputeModel(CalibrationTable table, Precision precision, RooflineParameters fallback);

  double op_time_s(const Op& op) const override;
  /// The table, its source and GPU, how many of its rows are measured, and its curves, e.g.
  /// "... (converted from public measurements, 932 of 1343 rows measured; ...)".
  std::string description() const override;

  /// True if some table curve (not the fallback roofline) times `op`.
  bool covers(const Op& op) const;
  /// True if the table has fp8 attention_fwd and attention_bwd rows (what
  /// training.attention_precision = fp8 is timed from).
  bool has_fp8_attention() const;
  const CalibrationTable& table() const { return table_; }

 private:
  const KernelCurve* find(const std::string& kernel, const std::vector<std::string>& dtypes) const;
  const KernelCurve* memory_curve(const Op& op) const;
  /// The head dim whose attention rows time an op of `op_head_dim` (128: the pooled rows).
  int attention_head_dim(int op_head_dim) const;
  double gemm_time_s(const Op& op, bool& covered) const;
  double time_s(const Op& op, bool& covered) const;

  CalibrationTable table_;
  Precision precision_;
  RooflineComputeModel fallback_;
  std::map<std::string, KernelCurve> curves_;  ///< by "kernel/dtype"
  std::set<int> attention_head_dims_;          ///< the attention head dims below 128 with rows of their own
  bool fused_wgrad_accumulation_ = false;      ///< the table has gemm_wgrad rows (accumulating in the GEMM)
};

}  // namespace trainsim
