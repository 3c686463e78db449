#pragma once
// The keys of a GPU preset file's [gpu] section (topologies/presets/gpus/<name>.ini, read by
// preset_files.hpp): a GPU type's datasheet figures, as the scenario's keys are built
// (field_kinds.hpp) but acting on the scratch scenario's cluster.gpu. Units as in scenarios
// (memory = 81559MiB, hbm_bandwidth = 3350GB/s) plus FLOP/s (peak_bf16 = 989TFLOP/s) and watts
// (tdp = 700W; idle_power and comm_power as watts or as a share of the TDP, 15%).

#include <vector>

#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

/// Every [gpu] key, named "gpu.<key>". tdp has priority 1, so that idle_power = 15% reads
/// the TDP whatever the keys' order.
std::vector<ScenarioField> gpu_preset_fields();

/// The [gpu] keys a GPU preset file must give.
std::vector<std::string> required_gpu_preset_keys();

}  // namespace trainsim
