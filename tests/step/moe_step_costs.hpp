#pragma once
// A small Qwen3 MoE step's costs, for the dispatcher and token-dropping tests: the scenario,
// its costs under the datasheet roofline, and the expert group's collectives of a pass.

#include <utility>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/stage_costs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim::testing {

/// Qwen3 30B-A3B, 2 layers of 4,096 tokens, EP 8 on one DGX H100.
inline const Settings k_small_qwen3{{"model.preset", "qwen3-30b-a3b"}, {"model.layers", "2"},
                                    {"model.seq_len", "4096"},         {"training.grad_accum", "2"},
                                    {"parallel.ep", "8"},              {"cluster.nodes", "1"}};

inline StepCosts roofline_costs(const Scenario& s) {
  const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
  return build_step_costs(s, compute, false);
}

/// The expert group's collectives of `op` in `pass`: their count and the bytes of each.
inline std::vector<std::pair<int, double>> ep_collectives(const PassCost& pass, engine::CollectiveOp op) {
  std::vector<std::pair<int, double>> out;
  for (const GroupCollective& c : pass.collectives)
    if (c.group == CommGroup::ep && c.op == op) out.emplace_back(c.count, c.bytes);
  return out;
}

}  // namespace trainsim::testing
