#pragma once
// One kernel-sized unit of work on one GPU: what the compute model times and the step
// simulation schedules.

#include <string>

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
  double model_flops = 0;        ///< counted for MFU (Megatron-LM / PaLM convention: no causal saving)
  double bytes = 0;              ///< HBM bytes read and written
  GemmShape gemm;                ///< for gemm and batched_gemm
};

}  // namespace trainsim
