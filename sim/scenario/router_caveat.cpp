#include "sim/scenario/router_caveat.hpp"

#include <cstdio>

#include "models/expert_load.hpp"

namespace trainsim {

std::optional<std::string> router_balance_caveat(const Scenario& s) {
  const ModelSpec& m = s.model;
  if (!m.is_moe() || !m.router_aux_loss) return std::nullopt;
  const int ep = s.parallel.ep > 0 ? s.parallel.ep : 1;
  const int per_rank = m.experts / ep;
  if (per_rank == k_aux_loss_measured_experts_per_rank) return std::nullopt;
  // The seed is not used under aux_loss: its draws are a property of the router.
  const double load = busiest_expert_rank_load(m, s.parallel, 0);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", load);
  return "model.router_balance = aux_loss at " + std::to_string(per_rank) + " expert" + (per_rank == 1 ? "" : "s") +
         " per expert-parallel rank puts the busiest rank at " + buf +
         " x its balanced share, an extrapolation: the spread is measured only at " +
         std::to_string(k_aux_loss_measured_experts_per_rank) + " per rank (models/README.md, \"Router balance\")";
}

}  // namespace trainsim
