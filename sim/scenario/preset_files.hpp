#pragma once
// One preset file, read and validated as a scenario is (ini_reader.hpp, the fields of
// scenario_fields.hpp): a model preset is a [model] section (models/presets/<name>.ini), a
// cluster preset a [cluster] section (topologies/presets/clusters/<name>.ini), a GPU preset a
// [gpu] section (topologies/presets/gpus/<name>.ini, gpu_preset_fields.hpp). The preset's
// name is the file's stem. Each file states where its figures come from in `source` and any
// number of `source_<topic>` keys (a paper, a datasheet, a released config, file@commit).
// A bad file throws InputError naming the file, the key, the value and the rule.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/model_spec.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim {

/// A `source` or `source_<topic>` key of a preset file and its text.
struct PresetSource {
  std::string key;
  std::string text;
};

template <typename Spec>
struct PresetFile {
  std::string name;  ///< the file's stem
  std::string path;
  std::vector<PresetSource> sources;  ///< in file order, `source` among them
  Spec spec;
};

PresetFile<GpuSpec> read_gpu_preset(const std::string& path);

/// `gpus`: the GPU presets its `gpu = NAME` may name; `gpu = PATH` reads a GPU preset file
/// (relative to the cluster file's folder).
PresetFile<ClusterSpec> read_cluster_preset(const std::string& path, const std::vector<PresetFile<GpuSpec>>& gpus);

PresetFile<ModelSpec> read_model_preset(const std::string& path);

/// Whether a preset key's value is a file's path rather than a preset's name: it holds a '/'
/// or ends in ".ini".
bool names_a_preset_file(std::string_view value);

/// `value` as a path: relative to the folder of `relative_to` (a scenario or preset file), then
/// absolute and normal.
std::string preset_file_path(std::string_view value, const std::string& relative_to);

/// A preset key's file `value` as a path (preset_file_path, relative to the scenario file
/// `scenario_source`) in `path`; the rule it breaks when it names no file, else nothing.
std::optional<std::string> preset_file_rule(std::string_view value, const std::string& scenario_source,
                                            std::string& path);

}  // namespace trainsim
