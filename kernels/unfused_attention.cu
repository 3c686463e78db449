#include <cuda_bf16.h>

#include "own_kernels.hpp"
#include "unfused_attention.hpp"

namespace trainsim::kernels {

namespace {
std::size_t bf16_bytes(long long elements) {
  return static_cast<std::size_t>(elements) * 2;
}
}  // namespace

UnfusedAttention::UnfusedAttention(const BenchContext& ctx, long long batch_heads, long long seq, long long head_dim)
    : bh_(batch_heads),
      s_(seq),
      d_(head_dim),
      q_(bf16_bytes(bh_ * s_ * d_)),
      k_(bf16_bytes(bh_ * s_ * d_)),
      v_(bf16_bytes(bh_ * s_ * d_)),
      o_(bf16_bytes(bh_ * s_ * d_)),
      d_o_(bf16_bytes(bh_ * s_ * d_)),
      d_q_(bf16_bytes(bh_ * s_ * d_)),
      d_k_(bf16_bytes(bh_ * s_ * d_)),
      d_v_(bf16_bytes(bh_ * s_ * d_)),
      scores_(bf16_bytes(bh_ * s_ * s_)),
      probs_(bf16_bytes(bh_ * s_ * s_)),
      d_scores_(bf16_bytes(bh_ * s_ * s_)) {
  const std::size_t ws = ctx.workspace_bytes();
  // Column-major views: Q, K, V, O are d x s per head; scores are s_k x s_q per head, so
  // that each query's keys are contiguous for the softmax.
  tn_plan_ = std::make_unique<GemmPlan>(ctx.lt(), GemmType::bf16, GemmShape3{s_, s_, d_, bh_, true, false}, ws);
  nn_plan_ = std::make_unique<GemmPlan>(ctx.lt(), GemmType::bf16, GemmShape3{d_, s_, s_, bh_, false, false}, ws);
  nt_plan_ = std::make_unique<GemmPlan>(ctx.lt(), GemmType::bf16, GemmShape3{d_, s_, s_, bh_, false, true}, ws);
  const long long qkv = bh_ * s_ * d_;
  unsigned seed = 11;
  for (const DeviceBuffer* b : {&q_, &k_, &v_, &d_o_}) fill(b->get(), GemmType::bf16, qkv, seed++, 1.0f, ctx.stream());
  check_cuda(cudaStreamSynchronize(ctx.stream()), "attention fill");
}

void UnfusedAttention::forward(const BenchContext& ctx) const {
  const cudaStream_t st = ctx.stream();
  // S[j, i] = sum_d K[d, j] Q[d, i]
  tn_plan_->run(k_.get(), q_.get(), scores_.get(), ctx.workspace(), st);
  softmax_forward(scores_.as<__nv_bfloat16>(), probs_.as<__nv_bfloat16>(), bh_ * s_, static_cast<int>(s_),
                  static_cast<int>(s_), st);
  // O[d, i] = sum_j V[d, j] P[j, i]
  nn_plan_->run(v_.get(), probs_.get(), o_.get(), ctx.workspace(), st);
}

void UnfusedAttention::backward(const BenchContext& ctx) const {
  const cudaStream_t st = ctx.stream();
  // dP[j, i] = sum_d V[d, j] dO[d, i]
  tn_plan_->run(v_.get(), d_o_.get(), scores_.get(), ctx.workspace(), st);
  softmax_backward(probs_.as<__nv_bfloat16>(), scores_.as<__nv_bfloat16>(), d_scores_.as<__nv_bfloat16>(), bh_ * s_,
                   static_cast<int>(s_), st);
  // dQ[d, i] = sum_j K[d, j] dS[j, i]
  nn_plan_->run(k_.get(), d_scores_.get(), d_q_.get(), ctx.workspace(), st);
  // dK[d, j] = sum_i Q[d, i] dS[j, i];  dV[d, j] = sum_i dO[d, i] P[j, i]
  nt_plan_->run(q_.get(), d_scores_.get(), d_k_.get(), ctx.workspace(), st);
  nt_plan_->run(d_o_.get(), probs_.get(), d_v_.get(), ctx.workspace(), st);
}

double UnfusedAttention::forward_flops() const {
  return 4.0 * static_cast<double>(bh_) * static_cast<double>(s_) * static_cast<double>(s_) * static_cast<double>(d_) *
         0.5;
}

double UnfusedAttention::forward_bytes() const {
  return 4.0 * static_cast<double>(bh_) * static_cast<double>(s_) * static_cast<double>(d_) * 2.0;
}

}  // namespace trainsim::kernels
