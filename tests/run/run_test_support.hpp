#pragma once
// Scenarios and cost tables for the run-level simulation's tests: the run replays step and
// checkpoint costs, so the tests give it simple ones and check the run's own logic.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/checkpoint_size.hpp"
#include "sim/core/forked_call.hpp"
#include "sim/run/run_json.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace trainsim::test {

// Llama 3 8B on `nodes` DGX H100 nodes, checkpoints of `cost_s`, nodes failing every
// `node_mtbf_s` on average, for `days`.
inline Scenario run_scenario(int nodes, double cost_s, double node_mtbf_s, double days, const std::string& interval,
                             int seed) {
  std::vector<IniEntry> e{{"model.preset", "llama3-8b", "t"},
                          {"cluster.nodes", std::to_string(nodes), "t"},
                          {"run.duration", std::to_string(days) + "d", "t"},
                          {"run.seed", std::to_string(seed), "t"},
                          {"failures.mtbf", std::to_string(node_mtbf_s) + "s", "t"},
                          {"checkpoint.interval", interval, "t"}};
  Scenario s = load_scenario(e, "t");
  s.failures.causes = FailureCauses::hardware;
  s.checkpoint.write_bandwidth_Bps = checkpoint_size(s.model, s.training, s.parallel).total_bytes / cost_s;
  return s;
}

// Costs for every data-parallel size up to the scenario's: steps of `step_s` at full size (a
// fixed global batch: longer steps when smaller), checkpoints written at the file system's
// bandwidth alone (run_scenario's cost), read in a tenth of that, snapshots in a hundredth.
inline SizeCostTable unit_costs(const Scenario& s, double step_s) {
  SizeCostTable t;
  const double bytes = checkpoint_size(s.model, s.training, s.parallel).total_bytes;
  const double write_s = bytes / s.checkpoint.write_bandwidth_Bps;
  const double batch = static_cast<double>(s.training.micro_batch) * s.training.grad_accum * s.parallel.dp;
  for (int dp = 1; dp <= s.parallel.dp; ++dp)
    t[dp] = {step_s * s.parallel.dp / dp, batch, {bytes, write_s, write_s / 10, write_s / 100}};
  return t;
}

inline RunResult run(const Scenario& s, double step_s = 1.0) {
  const SizeCostTable costs = unit_costs(s, step_s);
  const std::string json = forked_call([&] { return run_json(*simulate_run(s, costs).result, true).dump(); });
  return run_from_json(nlohmann::json::parse(json));
}

}  // namespace trainsim::test
