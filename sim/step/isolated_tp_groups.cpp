#include "sim/step/isolated_tp_groups.hpp"

#include <algorithm>
#include <utility>

#include "sim/step/gradient_groups.hpp"
#include "sim/step/simulated_scope.hpp"

namespace trainsim {

namespace {

// Marks the NVLink ports a message from GPU `a` to GPU `b` crosses: both ends' inside a
// domain, the sender's and its PXN relay's across domains on a rail-optimized fabric.
void mark_message_ports(const engine::Platform& platform, int a, int b, std::vector<bool>& touched) {
  for (const engine::Hop& h : platform.hops(a, b)) {
    if (h.src >= platform.gpu_count()) continue;  // NIC to NIC
    touched[static_cast<size_t>(h.src)] = true;
    touched[static_cast<size_t>(h.dst)] = true;
  }
}

void mark_group(const engine::Platform& platform, const std::vector<int>& gpus, std::vector<bool>& touched) {
  for (const int a : gpus)
    for (const int b : gpus)
      if (a != b) mark_message_ports(platform, a, b, touched);
}

bool in_one_domain(const engine::Platform& platform, const std::vector<int>& gpus) {
  return std::all_of(gpus.begin(), gpus.end(),
                     [&](int g) { return platform.domain_of(g) == platform.domain_of(gpus.front()); });
}

}  // namespace

void mark_ports_beyond_tp(const Scenario& s, const RankMapping& mapping, const engine::Platform& platform,
                          std::vector<bool>& touched) {
  touched.resize(static_cast<size_t>(platform.gpu_count()), false);
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
            mark_message_ports(platform, stages[i][k], stages[j][k], touched);
  }
  // The layers' other collectives, where they run (stage_costs.cpp): the token all-to-alls,
  // the folded experts' gathers (without folding the expert-TP group is the TP group, whose
  // collectives the stage actor issues in turn) and ring attention's exchange.
  const bool moe = s.model.is_moe();
  const std::pair<GroupAxis, bool> layer_groups[] = {
      {GroupAxis::ep, moe && par.ep > 1}, {GroupAxis::etp, moe && par.expert_folding()}, {GroupAxis::cp, par.cp > 1}};
  for (const auto& [axis, runs] : layer_groups)
    if (runs)
      for (const std::vector<int>& group : mapping.groups(axis)) mark_group(platform, mapping.gpus_of(group), touched);
  // Gradient reductions and ZeRO gathers: every scope lies in the whole gradient group.
  for (int rank = 0; rank < mapping.world_size(); ++rank)
    for (const bool experts : {false, true}) {
      if (experts && !moe) continue;
      const std::vector<int> group = gradient_group(mapping, par, rank, experts);
      if (group.front() == rank) mark_group(platform, mapping.gpus_of(group), touched);
    }
  // A TP group across domains crosses NICs and, through PXN, other GPUs' ports.
  for (const std::vector<int>& group : mapping.groups(GroupAxis::tp)) {
    const std::vector<int> gpus = mapping.gpus_of(group);
    if (!in_one_domain(platform, gpus)) mark_group(platform, gpus, touched);
  }
}

std::vector<bool> isolated_tp_groups(const RankMapping& mapping, const engine::Platform& platform,
                                     const std::vector<bool>& touched) {
  std::vector<bool> isolated(static_cast<size_t>(mapping.world_size()), false);
  for (const std::vector<int>& group : mapping.groups(GroupAxis::tp)) {
    const std::vector<int> gpus = mapping.gpus_of(group);
    const bool alone = in_one_domain(platform, gpus) &&
                       std::none_of(gpus.begin(), gpus.end(), [&](int g) { return touched[static_cast<size_t>(g)]; });
    for (const int r : group) isolated[static_cast<size_t>(r)] = alone;
  }
  return isolated;
}

}  // namespace trainsim
