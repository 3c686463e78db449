#include "sim/scenario/scenario_fields.hpp"

#include "sim/scenario/scenario_sections.hpp"

// Each section's keys and rules: its scenario_fields_<section>.cpp (scenario_sections.hpp).

namespace trainsim {

namespace schema {

const std::vector<SectionFields>& section_field_lists() {
  static const std::vector<SectionFields> lists{
      {"model", model_fields},           {"training", training_fields}, {"parallel", parallel_fields},
      {"cluster", cluster_fields},       {"run", run_fields},           {"failures", failures_fields},
      {"checkpoint", checkpoint_fields}, {"elastic", elastic_fields},   {"variations", variations_fields},
  };
  return lists;
}

}  // namespace schema

std::vector<std::string> scenario_sections() {
  std::vector<std::string> names;
  for (const schema::SectionFields& section : schema::section_field_lists()) names.emplace_back(section.name);
  return names;
}
std::vector<std::string> reserved_sections() {
  return {};
}

std::vector<ScenarioField> scenario_fields() {
  std::vector<ScenarioField> fields;
  for (const schema::SectionFields& section : schema::section_field_lists()) {
    std::vector<ScenarioField> keys = section.fields();
    fields.insert(fields.end(), std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
  }
  return fields;
}

}  // namespace trainsim
