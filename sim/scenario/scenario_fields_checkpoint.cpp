// [checkpoint]: how often checkpoints are written (auto: Daly's optimum), how, at what bandwidth, and what
// they hold.

#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::Rule;
using field_kinds::bandwidth_field;
using field_kinds::bool_field;
using field_kinds::enum_field;
using field_kinds::number_text;

const parse::EnumNames<CheckpointMode> k_checkpoint_modes{
    {{"sync", CheckpointMode::sync}, {"async", CheckpointMode::async}}};
const parse::EnumNames<DataSampler> k_data_samplers{
    {{"global", DataSampler::global}, {"per_rank", DataSampler::per_rank}}};

ScenarioField checkpoint_interval_field() {
  ScenarioField f;
  f.name = "checkpoint.interval";
  f.help = "training between checkpoints: auto (Daly's optimum), a duration, a step count (500steps), or 0 (never)";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    s.checkpoint.automatic = text == "auto";
    s.checkpoint.interval_s = 0;
    s.checkpoint.interval_steps = 0;
    if (s.checkpoint.automatic) return std::nullopt;
    const std::string_view steps = "steps";
    if (text.size() > steps.size() && text.substr(text.size() - steps.size()) == steps) {
      const std::string_view count = parse::trimmed(text.substr(0, text.size() - steps.size()));
      const auto n = parse::integer(count);
      if (!n || *n < 1) return "expected a step count >= 1, e.g. 500steps";
      s.checkpoint.interval_steps = *n;
      return std::nullopt;
    }
    const auto v = units::parse_duration(text);
    if (!v)
      return std::string("expected auto, a step count (500steps) or a duration with a unit (") +
             units::k_duration_units + ")";
    s.checkpoint.interval_s = *v;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    if (s.checkpoint.automatic) return std::string("auto");
    if (s.checkpoint.interval_steps > 0) return std::to_string(s.checkpoint.interval_steps) + "steps";
    return number_text(s.checkpoint.interval_s) + "s";
  };
  return f;
}

}  // namespace

std::vector<ScenarioField> checkpoint_fields() {
  std::vector<ScenarioField> fields{
      checkpoint_interval_field(),
      enum_field(
          "checkpoint.mode", "sync (training stops for the write) or async (snapshot to host memory, write behind)",
          [](auto& s) -> auto& { return s.checkpoint.mode; }, k_checkpoint_modes),
      bandwidth_field(
          "checkpoint.write_bandwidth", "parallel file system write bandwidth, aggregate",
          [](auto& s) -> auto& { return s.checkpoint.write_bandwidth_Bps; }),
      bandwidth_field(
          "checkpoint.read_bandwidth", "parallel file system read bandwidth, aggregate",
          [](auto& s) -> auto& { return s.checkpoint.read_bandwidth_Bps; }),
      bandwidth_field(
          "checkpoint.node_bandwidth", "each node's link to the file system",
          [](auto& s) -> auto& { return s.checkpoint.node_bandwidth_Bps; }),
      bool_field(
          "checkpoint.save_data_cursor", "checkpoints record the data loader's position",
          [](auto& s) -> auto& { return s.checkpoint.save_data_cursor; }),
      enum_field(
          "checkpoint.sampler",
          "the saved data position: global (consumed samples) or per_rank (each rank's offset in its shard)",
          [](auto& s) -> auto& { return s.checkpoint.sampler; }, k_data_samplers),
      bool_field(
          "checkpoint.reshardable", "checkpoints load at another data-parallel size",
          [](auto& s) -> auto& { return s.checkpoint.reshardable; }),
  };
  return fields;
}

}  // namespace trainsim::schema
