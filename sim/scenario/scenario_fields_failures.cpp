// [failures]: interruptions (their rate, distribution and causes), detection, restart, maintenance, spare
// nodes and repair. Its rules with a run's length are the run's (scenario_fields_run.cpp).

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::Rule;
using field_kinds::duration_field;
using field_kinds::enum_field;
using field_kinds::number_field;
using field_kinds::number_text;

const parse::EnumNames<FailureDistribution> k_failure_distributions{
    {{"exponential", FailureDistribution::exponential}, {"weibull", FailureDistribution::weibull}}};
const parse::EnumNames<FailureUnit> k_failure_units{{{"node", FailureUnit::node}, {"gpu", FailureUnit::gpu}}};
const parse::EnumNames<FailureCauses> k_failure_causes{
    {{"llama3", FailureCauses::llama3}, {"hardware", FailureCauses::hardware}}};

// A mean time between failures, or its inverse as a rate: "264d", or "0.0038/day".
ScenarioField mtbf_field() {
  ScenarioField f;
  f.name = "failures.mtbf";
  f.help = "mean time between interruptions of one failure unit (a duration, or a rate like 0.004/day; 0: none)";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const std::string_view per_day = "/day";
    if (text.size() > per_day.size() && text.substr(text.size() - per_day.size()) == per_day) {
      const auto rate = parse::number(text.substr(0, text.size() - per_day.size()));
      if (!rate || *rate <= 0) return "expected a rate > 0 per day, e.g. 0.004/day";
      // A rate so small its mean time overflows is no rate a duration can state.
      if (!std::isfinite(86400.0 / *rate)) return "expected a rate > 0 per day whose mean time is finite";
      s.failures.mtbf_s = 86400.0 / *rate;
      return std::nullopt;
    }
    const auto v = units::parse_duration(text);
    if (!v)
      return std::string("expected a duration with a unit (") + units::k_duration_units + ") or a rate like 0.004/day";
    s.failures.mtbf_s = *v;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return number_text(s.failures.mtbf_s) + "s"; };
  return f;
}

ScenarioField spare_nodes_field() {
  ScenarioField f;
  f.name = "failures.spare_nodes";
  f.help = "healthy nodes beyond the job's: unlimited (a failed node is replaced at once) or a count";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text == "unlimited") {
      s.failures.spare_nodes = -1;
      return std::nullopt;
    }
    const auto v = parse::integer(text);
    if (!v || *v < 0 || *v > std::numeric_limits<int>::max()) return "expected unlimited or an integer >= 0";
    s.failures.spare_nodes = static_cast<int>(*v);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    return s.failures.spare_nodes < 0 ? std::string("unlimited") : std::to_string(s.failures.spare_nodes);
  };
  return f;
}

}  // namespace

std::vector<ScenarioField> failures_fields() {
  std::vector<ScenarioField> fields{
      mtbf_field(),
      enum_field(
          "failures.unit", "what fails on its own: a node, or each GPU (a node's rate is then gpus_per_node times)",
          [](auto& s) -> auto& { return s.failures.unit; }, k_failure_units),
      enum_field(
          "failures.distribution", "time between a node's interruptions",
          [](auto& s) -> auto& { return s.failures.distribution; }, k_failure_distributions),
      number_field(
          "failures.weibull_shape", "Weibull shape k (1: exponential)",
          [](auto& s) -> auto& { return s.failures.weibull_shape; }, 0.1),
      enum_field(
          "failures.causes",
          "causes drawn per interruption: llama3 (Llama 3 405B's mix; hardware ones send the node to repair) or "
          "hardware (all do)",
          [](auto& s) -> auto& { return s.failures.causes; }, k_failure_causes),
      duration_field(
          "failures.detection", "time to notice a failure", [](auto& s) -> auto& { return s.failures.detection_s; }),
      duration_field(
          "failures.restart", "time to restart the job", [](auto& s) -> auto& { return s.failures.restart_s; }),
      duration_field(
          "failures.maintenance_interval", "planned maintenance stops this often (0: none)",
          [](auto& s) -> auto& { return s.failures.maintenance_interval_s; }),
      duration_field(
          "failures.maintenance_downtime", "a planned stop's length, before the restart",
          [](auto& s) -> auto& { return s.failures.maintenance_downtime_s; }),
      spare_nodes_field(),
      duration_field(
          "failures.repair", "time to repair a node out for hardware (with a finite spare pool)",
          [](auto& s) -> auto& { return s.failures.repair_s; }),
  };
  return fields;
}

}  // namespace trainsim::schema
