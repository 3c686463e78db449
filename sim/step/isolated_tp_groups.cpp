#include "sim/step/isolated_tp_groups.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/engine/plan_runner.hpp"
#include "sim/step/gradient_groups.hpp"
#include "sim/step/simulated_scope.hpp"

namespace trainsim {

void mark_links_beyond_tp(const Scenario& s, const RankMapping& mapping, const engine::Platform& platform,
                          std::vector<bool>& links) {
  links.resize(static_cast<size_t>(platform.routes().link_count()), false);
  const ParallelSpec& par = s.parallel;
  // Pipeline transfers: between any two stages of a replica, each TP rank to the same TP
  // rank of the other stage (StageActor::send_output's pairs, for any target stage).
  for (int replica = 0; replica < par.dp * par.cp; ++replica) {
    std::vector<std::vector<int>> stages;
    for (int stage = 0; stage < par.pp; ++stage)
      stages.push_back(mapping.gpus_of(mapping.group_of(rank_of(mapping, replica, stage), GroupAxis::tp)));
    for (size_t i = 0; i < stages.size(); ++i)
      for (size_t j = 0; j < stages.size(); ++j)
        if (i != j)
          for (size_t k = 0; k < stages[i].size(); ++k)
            engine::mark_message_links(platform, stages[i][k], stages[j][k], links);
  }
  // The layers' other collectives, where they run (stage_costs.cpp): the token all-to-alls,
  // the folded experts' gathers (without folding the expert-TP group is the TP group, whose
  // collectives the stage actor issues in turn) and ring attention's exchange.
  const bool moe = s.model.is_moe();
  const std::pair<GroupAxis, bool> layer_groups[] = {
      {GroupAxis::ep, moe && par.ep > 1}, {GroupAxis::etp, moe && par.expert_folding()}, {GroupAxis::cp, par.cp > 1}};
  for (const auto& [axis, runs] : layer_groups)
    if (runs)
      for (const std::vector<int>& group : mapping.groups(axis))
        engine::mark_group_links(platform, mapping.gpus_of(group), links);
  // Gradient reductions and ZeRO gathers: every scope lies in the whole gradient group.
  for (int rank = 0; rank < mapping.world_size(); ++rank)
    for (const bool experts : {false, true}) {
      if (experts && !moe) continue;
      const std::vector<int> group = gradient_group(mapping, par, rank, experts);
      if (group.front() == rank) engine::mark_group_links(platform, mapping.gpus_of(group), links);
    }
  // A TP group across domains crosses NICs and, through PXN, other GPUs' ports.
  for (const std::vector<int>& group : mapping.groups(GroupAxis::tp)) {
    const std::vector<int> gpus = mapping.gpus_of(group);
    if (!platform.in_one_domain(gpus)) engine::mark_group_links(platform, gpus, links);
  }
}

std::vector<bool> isolated_tp_groups(const RankMapping& mapping, const engine::Platform& platform,
                                     const std::vector<bool>& links) {
  const engine::FabricRoutes& routes = platform.routes();
  // A GPU's NVLink port, either way (FabricRoutes: up 2e, down 2e + 1).
  const auto crossed = [&](int gpu) {
    return links[static_cast<size_t>(routes.port(gpu))] || links[static_cast<size_t>(routes.port(gpu) + 1)];
  };
  std::vector<bool> isolated(static_cast<size_t>(mapping.world_size()), false);
  for (const std::vector<int>& group : mapping.groups(GroupAxis::tp)) {
    const std::vector<int> gpus = mapping.gpus_of(group);
    const bool alone = platform.in_one_domain(gpus) && std::none_of(gpus.begin(), gpus.end(), crossed);
    for (const int r : group) isolated[static_cast<size_t>(r)] = alone;
  }
  return isolated;
}

}  // namespace trainsim
