// [run]: how much is simulated (steps, a run's duration or its step target) and the seed, and the rules
// that keep a simulation bounded.

#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/run/run_limits.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/rule_helpers.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::Rule;
using field_kinds::duration_field;
using field_kinds::int_field;

// At most k_max_run_duration_s (sim/run/run_limits.hpp), said with the text as written.
ScenarioField run_duration_field() {
  ScenarioField f = duration_field(
      "run.duration", "run-level simulation of this long (0: until run.train_steps, or the step only)",
      [](auto& s) -> auto& { return s.run.duration_s; });
  f.apply = [parse = f.apply](Scenario& s, std::string_view text) -> Rule {
    if (auto rule = parse(s, text)) return rule;
    if (s.run.duration_s > k_max_run_duration_s)
      return "at most 100 years (36525d) are simulated, where a run.train_steps target stops too";
    return std::nullopt;
  };
  return f;
}

ScenarioField seed_field() {
  ScenarioField f;
  f.name = "run.seed";
  f.help = "random seed: same scenario and seed, same results";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::integer(text);
    if (!v || *v < 0) return "expected an integer >= 0";
    s.run.seed = static_cast<std::uint64_t>(*v);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return std::to_string(s.run.seed); };
  return f;
}

}  // namespace

std::vector<ScenarioField> run_fields() {
  std::vector<ScenarioField> fields{
      int_field(
          "run.steps", "optimizer steps to simulate", [](auto& s) -> auto& { return s.run.steps; }, 1,
          k_max_simulated_microbatches, k_simulated_microbatches_why),
      seed_field(),
      run_duration_field(),
      int_field(
          "run.train_steps", "run-level simulation until this many steps are trained (0: for run.duration)",
          [](auto& s) -> auto& { return s.run.train_steps; }, 0),
  };
  return fields;
}

// A step target without a duration runs until the steps are trained: the job must be able to
// train between interruptions, or the simulation would restart it for a century.
void check_run_target(const Scenario& s) {
  const FailureSpec& f = s.failures;
  if (s.run.train_steps == 0 || s.run.duration_s > 0 || f.mtbf_s <= 0) return;
  const double mtti_s = s.mtti_s(s.cluster.nodes);
  if (mtti_s <= f.detection_s + f.restart_s)
    throw InputError(s.source, "failures.mtbf", seconds(f.mtbf_s),
                     "the job is interrupted every " + seconds(mtti_s) + " on average, no longer than detection + " +
                         "restart = " + seconds(f.detection_s + f.restart_s) +
                         ": with run.train_steps it would never finish; set run.duration");
}

// Bounded simulations (issue 19). Steps x micro-batches per stage, and a run's length and its
// expected interruptions and maintenance stops (the checkpoints are counted once the step's
// time is known: sim/run/run_event_budget.hpp).
void check_simulated_work(const Scenario& s) {
  const long long microbatches = static_cast<long long>(s.run.steps) * s.training.grad_accum;
  require(s, microbatches <= k_max_simulated_microbatches, "run.steps", s.run.steps,
          "run.steps x training.grad_accum = " + str(microbatches) + ": " + k_simulated_microbatches_why);
}

void check_run_length(const Scenario& s) {
  const double duration_s = s.run.duration_s;  // at most k_max_run_duration_s (run_duration_field)
  if (duration_s <= 0) return;
  const auto over = [&](double events) { return events > k_max_run_events; };
  char expected[64];
  const double mtti_s = s.mtti_s(s.cluster.nodes);
  if (mtti_s > 0 && over(duration_s / mtti_s)) {
    std::snprintf(expected, sizeof expected, "%.3g", duration_s / mtti_s);
    throw InputError(s.source, "failures.mtbf", seconds(s.failures.mtbf_s),
                     "the job would be interrupted about " + std::string(expected) + " times in run.duration = " +
                         seconds(duration_s) + " (every " + seconds(mtti_s) +
                         "): at most 1e+06 run events are simulated (about 20 s), so that a run stays bounded in "
                         "time");
  }
  const double every_s = s.failures.maintenance_interval_s;
  if (every_s > 0 && over(duration_s / every_s)) {
    std::snprintf(expected, sizeof expected, "%.3g", duration_s / every_s);
    throw InputError(s.source, "failures.maintenance_interval", seconds(every_s),
                     "about " + std::string(expected) + " maintenance stops in run.duration = " + seconds(duration_s) +
                         ": at most 1e+06 run events are simulated (about 20 s), so that a run stays bounded in time");
  }
}

}  // namespace trainsim::schema
