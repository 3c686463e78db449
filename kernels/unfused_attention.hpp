#pragma once
// Causal self-attention forward and backward, unfused: cuBLASLt batched GEMMs for the four
// (forward) and five (backward) matrix products and our own causal softmax between them,
// as eager PyTorch computes it (the "standard attention" of Dao et al. 2022, FlashAttention,
// Algorithm 0). bf16, Q K V O [batch_heads, seq, head_dim] row-major, scores
// [batch_heads, seq, seq]. Not FlashAttention: the score matrix goes through HBM, so this
// is an upper bound on a fused kernel's time (README.md, "Attention").

#include <memory>

#include "bench_context.hpp"
#include "device_buffer.hpp"
#include "gemm_plan.hpp"

namespace trainsim::kernels {

class UnfusedAttention {
 public:
  /// Allocates and fills the operands. Throws std::runtime_error on a CUDA or cuBLASLt error.
  UnfusedAttention(const BenchContext& ctx, long long batch_heads, long long seq, long long head_dim);
  void forward(const BenchContext& ctx) const;
  void backward(const BenchContext& ctx) const;

  /// FLOPs and HBM bytes of the fused causal op as trainsim's workload counts them
  /// (models/layer_workload.cpp): forward 4 s^2 d BH / 2, backward 2.5x that.
  double forward_flops() const;
  double forward_bytes() const;
  double backward_flops() const { return 2.5 * forward_flops(); }
  double backward_bytes() const { return 2.0 * forward_bytes(); }

 private:
  long long bh_, s_, d_;
  DeviceBuffer q_, k_, v_, o_, d_o_, d_q_, d_k_, d_v_, scores_, probs_, d_scores_;
  std::unique_ptr<GemmPlan> tn_plan_;  ///< S = Q K^T, dP = dO V^T   (TN, m = n = s, k = d)
  std::unique_ptr<GemmPlan> nn_plan_;  ///< O = P V, dQ = dS K        (NN, m = d, n = s, k = s)
  std::unique_ptr<GemmPlan> nt_plan_;  ///< dK = dS^T Q, dV = P^T dO  (NT, m = d, n = s, k = s)
};

}  // namespace trainsim::kernels
