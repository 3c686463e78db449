#include "sim/scenario/token_drop_fields.hpp"

#include <string>

#include "models/cuda_graphs.hpp"
#include "models/expert_capacity.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/field_kinds.hpp"

namespace trainsim {

namespace {

using field_kinds::number_text;

const parse::EnumNames<TokenDropPolicy> k_drop_policies{
    {{"probs", TokenDropPolicy::probs}, {"position", TokenDropPolicy::position}}};

}  // namespace

std::vector<ScenarioField> token_drop_fields() {
  using field_kinds::bool_field;
  using field_kinds::enum_field;
  using field_kinds::number_field;
  return {
      bool_field(
          "model.pad_to_capacity",
          "pad every expert's rows to its capacity (static shapes, no host sync; needs capacity_factor > 0)",
          [](auto& s) -> auto& { return s.model.pad_to_capacity; }),
      enum_field(
          "model.token_drop_policy",
          "which tokens an over-capacity expert drops: probs (lowest probability) or position (latest)",
          [](auto& s) -> auto& { return s.model.token_drop_policy; }, k_drop_policies),
      number_field(
          "model.rank_capacity_factor",
          "each expert-parallel rank's token budget as a multiple of its balanced share (HybridEP; 0: none)",
          [](auto& s) -> auto& { return s.model.rank_capacity_factor; }, 0.0),
  };
}

void check_token_drop(const Scenario& s) {
  const ModelSpec& m = s.model;
  const MoeDispatcher dispatcher = s.parallel.moe_dispatcher;
  if (m.pad_to_capacity && !(m.capacity_factor > 0))
    throw InputError(s.source, "model.pad_to_capacity", "true",
                     "pads each expert to its capacity: needs model.capacity_factor > 0 (Megatron-Core)");
  if (m.pad_to_capacity && dispatcher == MoeDispatcher::deepep)
    throw InputError(s.source, "model.pad_to_capacity", "true",
                     "Megatron-Core's DeepEP backend does not pad to capacity: use alltoall or hybridep");
  if (m.rank_capacity_factor > 0 && dispatcher != MoeDispatcher::hybridep)
    throw InputError(s.source, "model.rank_capacity_factor", number_text(m.rank_capacity_factor),
                     "a rank's token budget is HybridEP's (Megatron-Core): needs parallel.moe_dispatcher = hybridep");
  const CudaGraphs& g = s.training.cuda_graphs;
  if (!m.is_moe() || g.none()) return;
  const bool host_copies = m.capacity_factor > 0 && !m.pad_to_capacity;
  if (g.has(GraphScope::moe_preprocess) && host_copies && dispatcher == MoeDispatcher::alltoall)
    throw InputError(s.source, "training.cuda_graphs", graph_scopes_text(g),
                     "with model.capacity_factor and no padding the preprocess copies token counts to the host: "
                     "moe_preprocess needs model.pad_to_capacity = true (Megatron-Core)");
  if (g.has(GraphScope::moe) && !pads_to_capacity(m))
    throw InputError(s.source, "training.cuda_graphs", graph_scopes_text(g),
                     "the moe scope captures the experts, whose shapes are static only padded to capacity: needs "
                     "model.capacity_factor > 0 with model.pad_to_capacity = true (Megatron-Core)");
  if (g.has(GraphScope::full_iteration) && !static_expert_shapes(m))
    throw InputError(s.source, "training.cuda_graphs", graph_scopes_text(g),
                     "an MoE layer without static shapes waits on the host for its token counts: full_iteration "
                     "needs model.capacity_factor > 0 with model.pad_to_capacity = true, or "
                     "model.rank_capacity_factor > 0");
}

}  // namespace trainsim
