#pragma once
// What a scenario's [variations] cost, for `trainsim run`: the step against the same cluster
// uniform (simulated in a child process: one SimGrid engine per process), the slow GPUs and
// NICs and where they sit, and the time the GPUs waited for slower replicas.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/step/step_result.hpp"

namespace trainsim::cli {

struct VariationCost {
  double uniform_step_time_s = 0;  ///< the same scenario with every GPU at full speed (and no neighbour)
  ClusterSpec parts;               ///< the cluster with its slow parts resolved (topologies/slow_parts.hpp)
  double neighbour_alone_step_time_s = 0;  ///< the neighbour's step without the job beside it (0: none)
};

/// The uniform step of `s`, if its [variations] make any GPU or NIC differ or put a neighbour
/// beside it (else nothing), and the neighbour's step alone.
std::optional<VariationCost> variation_cost(const Scenario& s, const ComputeModel& compute, bool reduce_symmetry);

/// The table's lines: the slow GPUs (up to eight listed, with their stage and replica) and
/// NICs (with their node), the neighbour's step beside the job's and alone, the step against
/// the uniform one and the wait at the gradient collectives.
std::string variation_lines(const Scenario& s, const StepResult& r, const VariationCost& cost);

/// `run --json`'s "variations" object.
nlohmann::ordered_json variation_json(const Scenario& s, const StepResult& r, const VariationCost& cost);

}  // namespace trainsim::cli
