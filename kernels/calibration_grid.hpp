#pragma once
// The shapes trainsim-calibrate measures (a complete grid per kernel, which the compute model
// interpolates multilinearly); the quick grid is a subset of it for a one-minute check.
// Counts and time estimates: README.md.
//
// GEMM axes cover transformer layers of 1B to 1T models: m = tokens of a micro-batch
// (b s = 512 ... 32768), n and k = hidden sizes and their TP shards (1B: h = 2048; 1T:
// h = 25600, Narayanan et al. SC21 Table 1), QKV, projections, MLP and logits
// (vocabulary shards); shapes beyond the grid are extrapolated by the fitted roofline
// (sim/compute/kernel_curve.hpp).

#include <string>
#include <vector>

namespace trainsim::kernels {

struct CalibrationGrid {
  std::vector<std::string> gemm_dtypes;     ///< of "bf16", "fp16", "fp8", "tf32", "fp32"
  std::vector<double> gemm_axis;            ///< m, n and k each take every value
  std::vector<std::string> batched_dtypes;  ///< batched GEMMs (unfused attention, grouped experts)
  std::vector<double> batched_m;
  std::vector<double> batched_nk;  ///< n and k each
  std::vector<double> batched_batch;
  std::vector<double> attention_seq;  ///< causal self-attention, queries = keys = seq
  double attention_head_dim = 128;
  double attention_batch_heads = 32;    ///< micro-batch x heads
  std::vector<double> row_rows;         ///< norms, softmax, GeLU, SwiGLU, add: rows of ...
  double row_cols = 8192;               ///< ... this many columns (bf16)
  std::vector<double> adam_params;      ///< parameters per Adam update
  std::vector<double> copy_bytes;       ///< device-to-device copies
  std::vector<double> host_copy_bytes;  ///< pinned host <-> device copies
};

/// Every shape; about 2 minutes on an H200 (README.md).
CalibrationGrid full_grid();
/// A subset of the full grid's values (so its rows are also full-grid rows); ~20 s.
CalibrationGrid quick_grid();
/// Number of rows the grid produces with `fp8` and `fp32` present or not.
int row_count(const CalibrationGrid& grid, bool has_fp8);

}  // namespace trainsim::kernels
