#pragma once
// The scenario key parallel.pipeline_layout: Megatron-Core's pipeline layout string
// (models/pipeline_layout.hpp), parsed where it is read; checked against the model and the
// pipeline with the other [parallel] rules (scenario_fields_parallel.cpp).

#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

ScenarioField pipeline_layout_field();

/// Throws InputError(file = scenario.source) when parallel.pipeline_layout (set) does not fit
/// the model and the pipeline (check_pipeline_layout), or parallel.stage_split asks for a
/// split of its own beside it.
void check_pipeline_layout_rules(const Scenario& scenario);

}  // namespace trainsim
