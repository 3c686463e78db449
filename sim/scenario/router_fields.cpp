#include "sim/scenario/router_fields.hpp"

#include <string>

#include "sim/core/error.hpp"
#include "sim/scenario/field_kinds.hpp"

namespace trainsim {

std::vector<ScenarioField> router_group_fields() {
  using field_kinds::int_field;
  return {
      int_field(
          "model.router_num_groups",
          "group-limited routing: the experts in this many equal groups (one a node: node-limited; 0: none)",
          [](auto& s) -> auto& { return s.model.router_num_groups; }, 0),
      int_field(
          "model.router_group_topk", "group-limited routing: the groups each token's experts are chosen in (0: none)",
          [](auto& s) -> auto& { return s.model.router_group_topk; }, 0),
  };
}

void check_router(const Scenario& s) {
  const ModelSpec& m = s.model;
  const auto refuse = [&](const char* key, int value, const std::string& rule) {
    throw InputError(s.source, key, std::to_string(value), rule);
  };
  if (m.router_aux_loss && m.expert_imbalance > 0)
    throw InputError(s.source, "model.router_balance", "aux_loss",
                     "the measured loads and model.expert_imbalance (drawn loads) exclude each other: give one");
  const int groups = m.router_num_groups;
  const int group_topk = m.router_group_topk;
  if (groups == 0 && group_topk == 0) return;
  if (!m.is_moe())
    refuse(groups > 0 ? "model.router_num_groups" : "model.router_group_topk", groups > 0 ? groups : group_topk,
           "group-limited routing needs model.experts > 1");
  if (groups == 0)
    refuse("model.router_group_topk", group_topk, "needs model.router_num_groups, the groups it picks from");
  if (group_topk == 0)
    refuse("model.router_num_groups", groups, "needs model.router_group_topk, the groups each token may use");
  if (m.experts % groups != 0)
    refuse("model.router_num_groups", groups,
           "must divide model.experts = " + std::to_string(m.experts) + " (groups of equal size)");
  if (group_topk > groups)
    refuse("model.router_group_topk", group_topk,
           "must be at most model.router_num_groups = " + std::to_string(groups));
  const int reachable = group_topk * (m.experts / groups);
  if (m.top_k > reachable)
    refuse("model.router_group_topk", group_topk,
           "its groups hold " + std::to_string(reachable) + " experts, fewer than model.top_k = " +
               std::to_string(m.top_k) + ": needs top_k <= router_group_topk x experts / router_num_groups");
}

}  // namespace trainsim
