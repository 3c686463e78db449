#pragma once
// One transformer layer of a scenario beside the kernels a PyTorch profiler trace measured
// (trainsim layer SCENARIO --measured TRACE). Each op of the layer (models/layer_workload.hpp)
// is looked up among the trace's rows (profile_calibration.hpp) by the row it would be:
//
//   gemm, batched_gemm   the same kernel and (m, n, k, batch), or (n, m, k, batch): a
//                        product and its transpose are one GEMM (C^T = B^T A^T); PyTorch's
//                        weight gradient is the transpose of the workload's wgrad
//   attention (fused)    attention_fwd / attention_bwd of the same executed FLOPs
//   norm                 layernorm or rmsnorm (the model's), _bwd backward, of as many
//                        elements (rows x columns) as the op's activation
//   *softmax             softmax / softmax_bwd, likewise
//   mlp.activation       gelu / gelu_bwd for a GELU MLP (SwiGLU runs as two PyTorch ops,
//                        silu and mul: no single row)
//   *.residual           add (forward; its backward launches no kernel in PyTorch)
//
// dtypes: the training precision's (fp32: tf32 or fp32 GEMMs, fp32 otherwise; fp8: fp8 or
// bf16 GEMMs, bf16 otherwise). Elements are the op's bytes over the bytes per element it
// moves (the workload's conventions: 2 per element for norms, softmax and activations
// forward, 3 backward and for adds). Ops no row matches are listed as not in the trace.

#include <optional>
#include <string>
#include <vector>

#include "models/layer_workload.hpp"
#include "models/model_spec.hpp"
#include "models/training_spec.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/compute/layer_check.hpp"
#include "sim/profile/profile_calibration.hpp"

namespace trainsim::profile {

/// What the lookup needs of the scenario besides its ops.
struct LayerTraceSpec {
  Precision precision = Precision::bf16;
  NormKind norm = NormKind::rmsnorm;
  FfnActivation activation = FfnActivation::swiglu;
};

/// One op of the layer and the trace row of the same kernel and shape, if any.
struct TraceLayerRow {
  std::string op;  ///< the workload op ("qkv.dgrad")
  OpPass pass = OpPass::forward;
  std::string wanted;               ///< the row looked for ("gemm 1024x768x256"), or why none can match
  std::optional<ProfileRow> found;  ///< the trace's row
  TimePair time;                    ///< the model's time; the row's median (0 when not found), seconds
};

struct TraceLayerCheck {
  std::vector<TraceLayerRow> rows;  ///< forward then backward, in workload order
  TimePair matched;                 ///< summed over the ops found in the trace
  int found() const;
  /// True when the matched total's deviation is at most `tolerance` either way (0.1 = 10 %).
  bool within(double tolerance) const;
};

/// Times the forward and backward ops of `ops` with `model` and sets them beside `rows`.
/// Recomputed forward work is not compared (as check_layer).
TraceLayerCheck check_layer_against_trace(const PassOps& ops, const ComputeModel& model,
                                          const std::vector<ProfileRow>& rows, const LayerTraceSpec& spec);

/// "gemm tf32 1024x2880x256", "batched_gemm bf16 4096x4096x128 x32", "layernorm fp32 1024x256".
std::string row_label(const RowShape& shape);

}  // namespace trainsim::profile
