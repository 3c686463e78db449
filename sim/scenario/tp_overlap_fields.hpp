#pragma once
// The scenario keys of Transformer Engine's userbuffers TP overlap (parallel.tp_comm_overlap_sms,
// parallel.tp_overlap_<gemm>): how each overlapped GEMM runs beside its collective.

#include <string>
#include <vector>

#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

/// The keys, in the order scenarios/README.md documents them.
std::vector<ScenarioField> tp_overlap_fields();

/// Refuses SM counts that leave the GPU none (a one-line InputError naming the key).
void check_tp_overlap(const Scenario& s);

}  // namespace trainsim
