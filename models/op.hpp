#pragma once
// One kernel-sized unit of work on one GPU: what the compute model times and the step
// simulation schedules.

#include <string>

#include "models/training_spec.hpp"

namespace trainsim {

enum class OpKind {
  gemm,          ///< dense matrix multiply (cuBLAS)
  batched_gemm,  ///< per-head products of unfused attention
  attention,     ///< fused attention (FlashAttention-style)
  norm,          ///< LayerNorm / RMSNorm
  elementwise,   ///< activation functions, residual adds, dropout, softmax
  embedding,     ///< table lookup / scatter-add
  loss,          ///< softmax cross-entropy over the vocabulary
  optimizer,     ///< parameter update
};

/// forward, backward (input and weight gradients), or forward work repeated in backward.
enum class OpPass { forward, backward, recompute };

/// C[m x n] = A[m x k] B[k x n], `batch` times.
struct GemmShape {
  double m = 0;
  double n = 0;
  double k = 0;
  double batch = 1;
};

struct Op {
  std::string name;  ///< "qkv", "qkv.dgrad", "qkv.wgrad", "attention.bwd", ...
  OpKind kind = OpKind::elementwise;
  OpPass pass = OpPass::forward;
  bool weight_gradient = false;  ///< the W part that zero-bubble schedules defer
  double flops = 0;              ///< executed on the GPU (e.g. causal fused attention skips masked blocks)
  double model_flops = 0;        ///< model FLOPs, attention counted in full (Megatron-LM eq. 3, PaLM)
  /// Model FLOPs with causal attention counted as the half it needs (the scores above the
  /// diagonal are masked): trainsim's MFU convention (step_result.hpp).
  double causal_model_flops = 0;
  double bytes = 0;              ///< HBM bytes read and written
  /// For gemm and batched_gemm; for a weight gradient's accumulation into its buffer (the
  /// elementwise op with weight_gradient), the shape of the weight-gradient GEMM it follows;
  /// for fused attention its calibration-row shape (m queries, n keys a query reads, k the
  /// query/key head width, batch x heads), by which head width's rows time it.
  GemmShape gemm;
  /// The number format the op's math runs in: under fp8 training only the transformer
  /// layers' linear GEMMs run in fp8 (Transformer Engine); attention, the router and the
  /// output layer stay bf16 (Megatron-LM / NeMo FP8 recipes).
  Precision precision = Precision::bf16;
  /// CUDA kernels the op launches (a launch gap is paid per kernel; the host pays
  /// training.kernel_host_time per kernel, sim/step/host_bound_pass.hpp). A grouped expert GEMM
  /// launches one GEMM per expert (Transformer Engine's GroupedLinear).
  int kernels = 1;
  /// Of `kernels`, those the framework issues one call each from Python (torch ops, Triton
  /// launches: op_s each on the host); the rest a module launches from its own C++ loop.
  int calls = 1;
  /// The host waits for the GPU to drain before it launches this op: a device-to-host copy
  /// whose value the host needs (Megatron-Core's all-to-all token dispatcher copies the
  /// per-expert token counts to the host before the dispatch), so the launch queue is empty
  /// here and the ops from this one on start only as the host launches them.
  bool host_sync = false;
  /// torch.distributed collectives (c10d over NCCL) the host issues just before this op's
  /// first kernel, each at HostLaunchCost::collective_s beyond one framework call
  /// (sim/step/host_bound_pass.hpp; which ops: models/moe_collective_calls.hpp). The
  /// collective's time on the links is the step's; this is the host's call only.
  int collective_calls = 0;
  /// The CUDA graph scope whose graph launches the op (models/cuda_graphs.hpp); -1: the host
  /// launches it eagerly.
  int graph_scope = -1;
  /// A GEMM run as `splits` GEMMs of m / splits rows each, one after another (Transformer
  /// Engine's ring-exchange TP overlap computes each chunk as its slice of the all-gather
  /// arrives); `gemm` and the counts are the whole op's.
  int splits = 1;
  /// Runs while context parallelism's ring K/V exchange is in flight, able to hide it
  /// (Transformer Engine's P2P attention: models/cp_ring_attention.hpp).
  bool beside_cp_exchange = false;
};

/// One of the `op.splits` equal GEMMs `op` runs as (the op itself when not split).
inline Op gemm_chunk(const Op& op) {
  if (op.splits <= 1) return op;
  Op chunk = op;
  chunk.gemm.m /= op.splits;
  chunk.flops /= op.splits;
  chunk.model_flops /= op.splits;
  chunk.causal_model_flops /= op.splits;
  chunk.bytes /= op.splits;  // the rows' share (each chunk also re-reads B: compute-bound, left out)
  chunk.kernels = 1;
  chunk.calls = 1;
  chunk.splits = 1;
  return chunk;
}

}  // namespace trainsim
