#pragma once
// The presets trainsim ships, read from the data folder (sim/core/data_folder.hpp) at first
// use: DATA/presets/gpus/*.ini, DATA/presets/clusters/*.ini and DATA/presets/models/*.ini
// (in the source tree topologies/presets/gpus, topologies/presets/clusters, models/presets;
// read by preset_files.hpp), once per process. gpu_preset, cluster_preset and model_preset
// (declared beside their specs, topologies/gpu_spec.hpp, topologies/cluster_spec.hpp and
// models/model_presets.hpp) are defined here, on this library. No data folder, or a bad
// preset file, throws InputError naming the places looked or the file, key, value and rule.

#include <string>
#include <vector>

#include "models/model_spec.hpp"
#include "sim/scenario/preset_files.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim {

struct PresetLibrary {
  std::string folder;                     ///< DATA/presets
  std::vector<PresetFile<GpuSpec>> gpus;  ///< each kind by name
  std::vector<PresetFile<ClusterSpec>> clusters;
  std::vector<PresetFile<ModelSpec>> models;
};

/// The presets of `folder` (a DATA/presets): its gpus/, clusters/ and models/ *.ini files.
PresetLibrary read_preset_library(const std::string& folder);

/// The shipped presets of this process's data folder, read once.
const PresetLibrary& shipped_presets();

}  // namespace trainsim
