#pragma once
// The step's result from the stage actors' GPU accounts (gpu_account.hpp): their times,
// bytes and FLOPs averaged per GPU and per step, each account weighted by the GPUs it stands
// for; throughput, MFU and HFU, the bubble, energy and the memory budget's peak.

#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/step/gpu_account.hpp"
#include "sim/step/step_result.hpp"

namespace trainsim {

/// The result of `scenario.run.steps` steps that ended at `end_s` simulated seconds.
/// `gpus_per_account[i]`: the GPUs accounts[i] stands for (its TP group, times the replicas
/// it stands for with symmetry reduced); the first pp accounts are replica 0's stages.
/// sim_wall_s is left 0.
StepResult summarize_accounts(const Scenario& scenario, const std::vector<GpuAccount>& accounts,
                              const std::vector<int>& gpus_per_account, double end_s);

}  // namespace trainsim
