#include "sim/cli/variation_report.hpp"

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <vector>

#include "sim/cli/formatted_number.hpp"
#include "sim/core/forked_call.hpp"
#include "sim/step/simulated_scope.hpp"
#include "sim/step/step_simulation.hpp"
#include "topologies/fabric_layout.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/slow_parts.hpp"

namespace trainsim::cli {

namespace {

constexpr size_t k_listed = 8;  // GPUs or NICs named, the rest counted

// The step time of `s`, simulated in a child process (one SimGrid engine per process).
double step_time_in_child(const Scenario& s, const ComputeModel& compute, bool reduce_symmetry) {
  const std::string text = forked_call([&] {
    StepOptions options;
    options.reduce_symmetry = reduce_symmetry;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", simulate_step(s, compute, options).step_time_s);
    return std::string(buf);
  });
  return std::stod(text);
}

}  // namespace

std::optional<VariationCost> variation_cost(const Scenario& s, const ComputeModel& compute, bool reduce_symmetry) {
  const ClusterSpec parts = with_slow_parts(s.cluster, s.variations, s.run.seed, s.fabric());
  if (parts.slow_gpus.empty() && parts.slow_nics.empty() && parts.down_uplinks.empty() && parts.down_spines.empty() &&
      !s.neighbour)
    return std::nullopt;
  Scenario uniform = s;
  uniform.variations = VariationSpec{};
  uniform.neighbour = nullptr;
  VariationCost cost{step_time_in_child(uniform, compute, reduce_symmetry), parts, 0};
  if (s.neighbour) cost.neighbour_alone_step_time_s = step_time_in_child(*s.neighbour, compute, reduce_symmetry);
  return cost;
}

std::string variation_lines(const Scenario& s, const StepResult& r, const VariationCost& cost) {
  const std::vector<int>& gpus = cost.parts.slow_gpus;
  const std::vector<int>& nics = cost.parts.slow_nics;
  const RankMapping mapping(s.parallel, s.cluster);
  std::ostringstream out;
  if (!gpus.empty()) {
    out << "slow GPUs             " << gpus.size() << " at " << formatted("%.0f %%", 100 * cost.parts.slow_gpu_speed)
        << " speed:";
    for (size_t i = 0; i < gpus.size() && i < k_listed; ++i)
      out << (i ? "," : "") << " GPU " << gpus[i] << " (stage " << mapping.coordinate(gpus[i], ParallelAxis::pp)
          << ", dp " << mapping.coordinate(gpus[i], ParallelAxis::dp) << ")";
    out << (gpus.size() > k_listed ? ", ...\n" : "\n");
  }
  if (!nics.empty()) {
    out << "slow NICs             " << nics.size() << " at " << formatted("%.0f %%", 100 * cost.parts.slow_nic_speed)
        << " bandwidth:";
    for (size_t i = 0; i < nics.size() && i < k_listed; ++i)
      out << (i ? "," : "") << " NIC " << nics[i] << " (node " << nics[i] / s.cluster.nics_per_node << ", NIC "
          << nics[i] % s.cluster.nics_per_node << ")";
    out << (nics.size() > k_listed ? ", ...\n" : "\n");
  }
  const std::vector<int>& uplinks = cost.parts.down_uplinks;
  if (!uplinks.empty()) {
    const int per_leaf = fabric_layout(s.cluster).leaf_uplinks;
    out << "uplinks down          " << uplinks.size() << " of " << per_leaf << " per leaf:";
    for (size_t i = 0; i < uplinks.size() && i < k_listed; ++i)
      out << (i ? "," : "") << " " << uplinks[i] << " (leaf " << uplinks[i] / per_leaf << ")";
    out << (uplinks.size() > k_listed ? ", ...\n" : "\n");
  }
  const std::vector<int>& spines = cost.parts.down_spines;
  if (!spines.empty()) {
    const FabricLayout layout = fabric_layout(s.cluster);
    out << "spines down           " << spines.size() << " of " << layout.spines << ":";
    const char* group = s.cluster.fabric == Fabric::rail_optimized ? "rail" : "pod";
    for (size_t i = 0; i < spines.size() && i < k_listed; ++i) {
      out << (i ? "," : "") << " " << spines[i];
      if (layout.groups > 1) out << " (" << group << " " << spines[i] / layout.leaf_uplinks << ")";
    }
    out << (spines.size() > k_listed ? ", ...\n" : "\n");
  }
  if (r.neighbour) {
    const NeighbourStep& n = *r.neighbour;
    // The file's name, not the absolute path the loader made of it: the report reads the
    // same from any checkout or install location.
    out << "neighbour             " << std::filesystem::path(s.variations.neighbour).filename().string() << ": " << n.gpus << " GPUs on the nodes "
        << (s.variations.neighbour_placement == NeighbourPlacement::after ? "after the job's" : "between the job's")
        << "; its step " << formatted("%.4f s", n.step_time_s) << " ("
        << formatted("%+.2f %%", 100 * (n.step_time_s / cost.neighbour_alone_step_time_s - 1)) << " against "
        << formatted("%.4f s", cost.neighbour_alone_step_time_s) << " alone; " << n.steps << " step(s) beside)\n";
    const bool own_parts = !gpus.empty() || !nics.empty();  // the job's slow parts cost it too
    out << "                      step " << formatted("%+.2f %%", 100 * (r.step_time_s / cost.uniform_step_time_s - 1))
        << " against the job alone" << (own_parts ? " on a uniform cluster" : "") << ", "
        << formatted("%.4f s", cost.uniform_step_time_s) << "\n";
    return out.str();
  }
  out << "                      step " << formatted("%+.2f %%", 100 * (r.step_time_s / cost.uniform_step_time_s - 1))
      << " against the uniform cluster's " << formatted("%.4f s", cost.uniform_step_time_s) << "; the GPUs wait "
      << formatted("%.4f s", r.straggler_wait_s)
      << " each on average for slower replicas at the gradient reductions and gathers";
  if (r.most_waited_for_replica >= 0)
    out << ", most for replica " << r.most_waited_for_replica << " (dp "
        << mapping.coordinate(rank_of(mapping, r.most_waited_for_replica, 0), ParallelAxis::dp) << ")";
  out << "\n";
  return out.str();
}

nlohmann::ordered_json variation_json(const Scenario& s, const StepResult& r, const VariationCost& cost) {
  nlohmann::ordered_json j;
  j["slow_gpu_ids"] = cost.parts.slow_gpus;
  j["slow_gpu_speed"] = s.variations.slow_gpu_speed;
  j["slow_nic_ids"] = cost.parts.slow_nics;
  j["slow_nic_speed"] = s.variations.slow_nic_speed;
  j["down_uplink_ids"] = cost.parts.down_uplinks;
  j["down_spine_ids"] = cost.parts.down_spines;
  j["uniform_step_time_s"] = cost.uniform_step_time_s;
  j["step_time_increase"] = r.step_time_s / cost.uniform_step_time_s - 1;
  j["most_waited_for_replica"] = r.most_waited_for_replica;
  if (r.neighbour) {
    nlohmann::ordered_json n;
    n["scenario"] = s.variations.neighbour;
    n["placement"] = s.variations.neighbour_placement == NeighbourPlacement::after ? "after" : "interleaved";
    n["gpus"] = r.neighbour->gpus;
    n["steps"] = r.neighbour->steps;
    n["step_time_s"] = r.neighbour->step_time_s;
    n["tokens_per_s_per_gpu"] = r.neighbour->tokens_per_s_per_gpu;
    n["alone_step_time_s"] = cost.neighbour_alone_step_time_s;
    n["step_time_increase"] = r.neighbour->step_time_s / cost.neighbour_alone_step_time_s - 1;
    j["neighbour"] = n;
  }
  return j;
}

}  // namespace trainsim::cli
