#include "models/expert_capacity.hpp"

#include <cmath>

#include "models/expert_load.hpp"

namespace trainsim {

double expert_capacity(double tokens, int experts, int top_k, double capacity_factor) {
  return std::ceil(tokens * top_k / experts * capacity_factor);
}

double dispatcher_tokens(const ModelSpec& m, const TrainingSpec& t, const ParallelSpec& p) {
  const double tokens = static_cast<double>(t.micro_batch) * m.seq_len / p.cp;
  return p.sequence_parallel ? tokens / p.tp : tokens;
}

bool pads_to_capacity(const ModelSpec& m) {
  return m.is_moe() && m.pad_to_capacity && m.capacity_factor > 0;
}

bool static_expert_shapes(const ModelSpec& m) {
  return pads_to_capacity(m) || (m.is_moe() && m.rank_capacity_factor > 0);
}

double padded_row_share(const ModelSpec& m, double tokens) {
  if (!pads_to_capacity(m) || !(tokens > 0)) return 1.0;
  return expert_capacity(tokens, m.experts, m.top_k, m.capacity_factor) * m.experts / (tokens * m.top_k);
}

double expert_row_load(const ModelSpec& m, const TrainingSpec& t, const ParallelSpec& p, std::uint64_t seed) {
  if (pads_to_capacity(m)) return padded_row_share(m, dispatcher_tokens(m, t, p));
  return expert_loads(m, p, seed).busiest_rank;
}

double expert_buffer_share(const ModelSpec& m, double tokens) {
  if (pads_to_capacity(m)) return padded_row_share(m, tokens);
  if (m.is_moe() && m.rank_capacity_factor > 0) return m.rank_capacity_factor;
  return 1.0;
}

void keep_routed_model_flops(std::vector<Op>& ops, double kept) {
  for (Op& op : ops)
    if (op.name.rfind("experts.", 0) == 0) {
      op.model_flops *= kept;
      op.causal_model_flops *= kept;
    }
}

}  // namespace trainsim
