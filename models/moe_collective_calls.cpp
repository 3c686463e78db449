#include "models/moe_collective_calls.hpp"

#include <cstddef>
#include <string_view>

namespace trainsim {

namespace {

// The index of the first op named `name` in `ops`, or ops.size().
std::size_t find(const std::vector<Op>& ops, std::string_view name) {
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == name) return i;
  return ops.size();
}

// Adds `calls` to the op after the one named `name` (at_next) or to it.
void add(std::vector<Op>& ops, std::string_view name, int calls, bool at_next) {
  if (calls <= 0) return;
  const std::size_t i = find(ops, name) + (at_next ? 1 : 0);
  if (i < ops.size()) ops[i].collective_calls += calls;
}

}  // namespace

void apply_moe_collective_calls(std::vector<Op>& ops, OpPass pass, const MoePath& path, int ep, int expert_tp) {
  if (!path.alltoall) return;
  // token_dispatch / token_combine: one all-to-all of the tokens (and one of the
  // probabilities in the dispatch) when the expert group has more than one rank.
  const int a2a = ep > 1 ? 1 : 0;
  // dispatch_postprocess / combine_preprocess: the expert-TP all-gathers of tokens and
  // probabilities, and the reduce-scatter of the outputs.
  const int etp = expert_tp > 1 ? 1 : 0;
  if (pass == OpPass::backward) {
    add(ops, "moe.unpermute.bwd", a2a + etp, true);
    add(ops, "moe.permute.bwd", 2 * a2a + 2 * etp, false);
    return;
  }
  // The counts' all-gather over the tp x ep group (here tp = expert_tp when folding is off).
  if (path.dropless && ep * expert_tp > 1) add(ops, "moe.preprocess", 1, false);
  add(ops, "moe.permute", 2 * a2a + 2 * etp, true);
  add(ops, "moe.unpermute", a2a + etp, false);
}

}  // namespace trainsim
