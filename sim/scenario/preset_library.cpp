#include "sim/scenario/preset_library.hpp"

#include <algorithm>
#include <filesystem>

#include "models/model_presets.hpp"
#include "sim/core/data_folder.hpp"
#include "sim/core/error.hpp"

namespace trainsim {

namespace {

namespace fs = std::filesystem;

// The *.ini files of `folder`, by name.
std::vector<std::string> preset_paths(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw InputError(folder.string(), "", "", "no preset folder here: the data folder's presets/ is incomplete");
  std::vector<std::string> paths;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec))
    if (e.path().extension() == ".ini") paths.push_back(e.path().string());
  if (ec) throw InputError(folder.string(), "", "", "cannot list the preset folder: " + ec.message());
  std::sort(paths.begin(), paths.end());
  return paths;
}

template <typename Spec>
std::optional<Spec> find(const std::vector<PresetFile<Spec>>& presets, std::string_view name) {
  for (const PresetFile<Spec>& p : presets)
    if (p.name == name) return p.spec;
  return std::nullopt;
}

template <typename Spec>
std::vector<std::string> names(const std::vector<PresetFile<Spec>>& presets) {
  std::vector<std::string> out;
  for (const PresetFile<Spec>& p : presets) out.push_back(p.name);
  return out;
}

PresetLibrary load_shipped_presets() {
  const DataFolder data = find_data_folder();
  if (data.path.empty())
    throw InputError("", "presets", "",
                     "no data folder with trainsim's GPU, cluster and model presets (looked in " + looked_places(data) +
                         "): install with cmake --install, or set TRAINSIM_DATA to the folder holding calibration/ "
                         "and presets/");
  return read_preset_library((fs::path(data.path) / "presets").string());
}

}  // namespace

PresetLibrary read_preset_library(const std::string& folder) {
  PresetLibrary library;
  library.folder = folder;
  for (const std::string& path : preset_paths(fs::path(folder) / "gpus")) library.gpus.push_back(read_gpu_preset(path));
  for (const std::string& path : preset_paths(fs::path(folder) / "clusters"))
    library.clusters.push_back(read_cluster_preset(path, library.gpus));
  for (const std::string& path : preset_paths(fs::path(folder) / "models"))
    library.models.push_back(read_model_preset(path));
  return library;
}

const PresetLibrary& shipped_presets() {
  static const PresetLibrary library = load_shipped_presets();
  return library;
}

std::optional<GpuSpec> gpu_preset(std::string_view name) {
  return find(shipped_presets().gpus, name);
}
std::vector<std::string> gpu_preset_names() {
  return names(shipped_presets().gpus);
}

std::optional<ClusterSpec> cluster_preset(std::string_view name) {
  return find(shipped_presets().clusters, name);
}
std::vector<std::string> cluster_preset_names() {
  return names(shipped_presets().clusters);
}
std::string cluster_preset_list() {
  std::string text;
  for (const std::string& name : cluster_preset_names()) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::optional<ModelSpec> model_preset(std::string_view name) {
  return find(shipped_presets().models, name);
}
std::vector<std::string> model_preset_names() {
  return names(shipped_presets().models);
}

}  // namespace trainsim
