#include "sim/compute/row_gather.hpp"

#include <algorithm>
#include <string>

namespace trainsim {

namespace {

// Measured rates of MoE row movers (../shared/validation/public.md D5, "Permute and quantisation
// kernels"), as fractions of the H200's 4.8 TB/s (datasheet):
// - Scattering each token's row to its top-k expert slots (the forward permute; the
//   unpermute's gradient is the same map): vLLM's Triton moe_permute, 4,096 tokens, top-8 of
//   128 experts, hidden 7,168, bf16 (58.7 MB read, 469.8 MB written): 0.274944 ms, DERIVED
//   1.922 TB/s = 0.40; TileOPs' hand-tuned kernel 0.220384 ms, 2.399 TB/s = 0.50
//   (tile-ai/TileOPs#2125, H200, CUDA 13.2, vLLM 0.27.1). Transformer Engine's permute
//   kernels are Triton kernels of one program per token row too
//   (transformer_engine/pytorch/triton/permutation.py), so the Triton figure.
// - Gathering the top-k rows of each token back and summing them with their probabilities (the
//   unpermute; the permute's gradient sums the same rows without them): vLLM's moe_unpermute
//   2.93 TB/s = 0.61, TileOPs' 2.95 TB/s (2,048 tokens, top-2, hidden 4,096, bf16;
//   tile-ai/TileOPs#608, H200): the reads scatter, the write streams.
// - Sorting the received chunks by local expert (moe_sort_chunks_by_index and its inverse):
//   Transformer Engine's _sort_chunks_by_map_kernel runs, as its permute kernel does, one program
//   per token row and hidden block, each looking its destination row up in a row map (the
//   structure TileOPs#1590 found bound by block scheduling, not bandwidth, at 14 KB rows): the
//   permute's 0.40.
// No public measurement of these kernels on H100, B200 or GB200 was found: every GPU takes the
// H200's fractions of its own datasheet bandwidth (a stated assumption; the H100 and H200 share
// their SMs, Blackwell's row movers are unmeasured).
constexpr double k_scatter_fraction = 1.922 / 4.8;
constexpr double k_gather_sum_fraction = 2.93 / 4.8;

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

double row_gather_bandwidth_fraction(const Op& op) {
  if (op.kind != OpKind::elementwise) return 0;
  const std::string& n = op.name;
  const bool backward = n.size() > 4 && n.compare(n.size() - 4, 4, ".bwd") == 0;
  if (starts_with(n, "moe.permute")) return backward ? k_gather_sum_fraction : k_scatter_fraction;
  if (starts_with(n, "moe.unpermute")) return backward ? k_scatter_fraction : k_gather_sum_fraction;
  if (starts_with(n, "experts.sort") || starts_with(n, "experts.unsort")) return k_scatter_fraction;
  return 0;
}

double row_gather_time_s(const Op& op, double streaming_s, double hbm_Bps) {
  const double fraction = row_gather_bandwidth_fraction(op);
  if (!(fraction > 0) || !(hbm_Bps > 0)) return streaming_s;
  return std::max(streaming_s, op.bytes / (fraction * hbm_Bps));
}

}  // namespace trainsim
