#include "sim/cli/simulated_replicas.hpp"

#include <cstddef>
#include <vector>

#include "sim/cli/formatted_number.hpp"
#include "sim/step/replica_classes.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/slow_parts.hpp"

namespace trainsim::cli {

namespace {

constexpr size_t k_listed = 8;  // replicas named in the description, the rest counted

const char* const k_per_replica = "for each pipeline stage, tensor-parallel rank 0 of its group";

std::string note(const ReplicaClass& c, size_t stage, bool reduce_symmetry) {
  std::string out = "replica " + std::to_string(c.representative);
  if (reduce_symmetry) out += " standing for " + std::to_string(c.members.size());
  if (c.stage_slowdown[stage] > 1.0) out += "; compute " + formatted("%.3fx", c.stage_slowdown[stage]) + " as long";
  if (c.stage_slow_nic[stage]) out += "; a slow NIC in its groups";
  return out;
}

std::string uniform_description(bool reduce_symmetry) {
  return reduce_symmetry ? std::string("one data-parallel replica (replica 0): ") + k_per_replica +
                               "; the other replicas and TP ranks do identical work (symmetry reduction, "
                               "sim/step/step_simulation.hpp)"
                         : std::string("every data-parallel replica: for each replica and pipeline stage, "
                                       "tensor-parallel rank 0 of its group (--full)");
}

}  // namespace

SimulatedReplicas simulated_replicas(const Scenario& scenario, bool reduce_symmetry) {
  SimulatedReplicas out;
  out.description = uniform_description(reduce_symmetry);
  if (scenario.neighbour) return out;  // the jobs' classes are drawn on their shared fabric
  Scenario s = scenario;
  s.cluster = with_slow_parts(s.cluster, s.variations, s.run.seed, s.fabric());
  const RankMapping mapping(s.parallel, s.cluster);
  const std::vector<ReplicaClass> classes = replica_classes(s, mapping, s.cluster, reduce_symmetry);
  bool differs = reduce_symmetry && classes.size() > 1;
  for (const ReplicaClass& c : classes)
    for (size_t stage = 0; stage < c.stage_slowdown.size(); ++stage)
      differs = differs || c.stage_slowdown[stage] > 1.0 || c.stage_slow_nic[stage];
  if (!differs) return out;
  for (const ReplicaClass& c : classes)
    for (size_t stage = 0; stage < c.stage_slowdown.size(); ++stage)
      if (reduce_symmetry || c.stage_slowdown[stage] > 1.0 || c.stage_slow_nic[stage])
        out.notes[{c.representative, static_cast<int>(stage)}] = note(c, stage, reduce_symmetry);
  if (reduce_symmetry) {
    std::string listed;
    for (size_t i = 0; i < classes.size() && i < k_listed; ++i)
      listed += (i ? ", " : "") + std::to_string(classes[i].representative) + " (standing for " +
                std::to_string(classes[i].members.size()) + ")";
    if (classes.size() > k_listed) listed += ", ...";
    out.description = "one data-parallel replica per class of replicas that compute alike ([variations], "
                      "sim/step/replica_classes.hpp): " +
                      std::to_string(classes.size()) + " classes, replicas " + listed + ": " + k_per_replica +
                      "; a Chrome trace's tracks say what their replica stands for, which stages compute slower "
                      "and which have a slow NIC in their groups";
  } else {
    out.description += "; a Chrome trace's tracks say which stages compute slower and which have a slow NIC in their "
                       "groups";
  }
  return out;
}

}  // namespace trainsim::cli
