#include "benchmarks.hpp"
#include "unfused_attention.hpp"

namespace trainsim::kernels {

std::vector<MeasuredRow> bench_attention(const BenchContext& ctx, const CalibrationGrid& grid) {
  std::vector<MeasuredRow> rows;
  const auto bh = static_cast<long long>(grid.attention_batch_heads);
  const auto d = static_cast<long long>(grid.attention_head_dim);
  for (double s : grid.attention_seq) {
    const UnfusedAttention attention(ctx, bh, static_cast<long long>(s), d);
    const double fwd = time_per_call_s([&] { attention.forward(ctx); }, ctx.stream(), ctx.policy());
    attention.forward(ctx);  // the backward reads the forward's probabilities
    const double bwd = time_per_call_s([&] { attention.backward(ctx); }, ctx.stream(), ctx.policy());
    const double b = static_cast<double>(bh);
    const double hd = static_cast<double>(d);
    rows.push_back({"attention_unfused_fwd", "bf16", s, s, hd, b, fwd, attention.forward_flops(), attention.forward_bytes()});
    rows.push_back({"attention_unfused_bwd", "bf16", s, s, hd, b, bwd, attention.backward_flops(), attention.backward_bytes()});
  }
  return rows;
}

}  // namespace trainsim::kernels
