#include "sim/run/run_in_processes.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "sim/core/forked_call.hpp"
#include "sim/run/job_size.hpp"
#include "sim/run/run_event_budget.hpp"
#include "sim/run/run_json.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/step/step_simulation.hpp"

namespace trainsim {

namespace {

// The step and the checkpoint storage of `s` at `dp` replicas, each simulated in a child.
SizeCosts costs_at(const Scenario& s, const ComputeModel& compute, int dp) {
  const Scenario sized = scenario_at_dp(s, dp);
  const auto step = nlohmann::json::parse(forked_call([&] {
    const StepResult r = simulate_step(sized, compute);
    return nlohmann::json{r.step_time_s, r.global_batch_samples}.dump();  // exact doubles
  }));
  const auto storage = nlohmann::json::parse(forked_call([&] {
    const CheckpointCosts c = simulate_checkpoint_storage(sized);
    return nlohmann::json{c.bytes, c.write_s, c.read_s, c.snapshot_s}.dump();
  }));
  SizeCosts c;
  if (s.variations.straggler_mtbf_s > 0) {
    // A straggler's step: one more slow GPU, drawn with run.seed (topologies/slow_parts.hpp).
    Scenario slowed = sized;
    ++slowed.variations.slow_gpu_count;
    c.straggler_step_time_s = std::stod(forked_call([&] {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", simulate_step(slowed, compute).step_time_s);
      return std::string(buf);
    }));
  }
  c.step_time_s = step[0].get<double>();
  c.samples_per_step = step[1].get<double>();
  c.checkpoint = {storage[0].get<double>(), storage[1].get<double>(), storage[2].get<double>(),
                  storage[3].get<double>()};
  return c;
}

}  // namespace

RunResult simulate_run_in_processes(const Scenario& s, const ComputeModel& compute, std::ostream* progress) {
  SizeCostTable table;
  int dp = s.parallel.dp;
  table[dp] = costs_at(s, compute, dp);
  check_run_events(s, table[dp]);  // before the run: refused if it would not end in bounded time
  for (;;) {
    if (!table.count(dp)) table[dp] = costs_at(s, compute, dp);
    const auto j = nlohmann::json::parse(forked_call([&] {
      const RunOutcome o = simulate_run(s, table, progress);
      return o.result ? run_json(*o.result, true).dump() : nlohmann::json{{"missing_dp", o.missing_dp}}.dump();
    }));
    if (!j.contains("missing_dp")) return run_from_json(j);
    dp = j.at("missing_dp").get<int>();
  }
}

std::optional<RunResult> simulate_run_if_any(const Scenario& s, const ComputeModel& compute,
                                             std::ostream* progress) {
  if (!s.run.simulates_run()) return std::nullopt;
  return simulate_run_in_processes(s, compute, progress);
}

}  // namespace trainsim
