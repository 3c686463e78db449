#include "sim/scenario/preset_files.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/core/nearest_name.hpp"
#include "sim/scenario/gpu_preset_fields.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario_fields.hpp"

namespace trainsim {

namespace {

namespace fs = std::filesystem;

bool is_source_key(const std::string& key) {
  return key == "source" || key.rfind("source_", 0) == 0;
}

// The fields of `section` that a preset file may set: all but the keys that name another
// preset or file (`refused`).
std::vector<ScenarioField> section_fields(const std::string& section, const std::vector<std::string>& refused) {
  std::vector<ScenarioField> fields;
  for (ScenarioField& f : scenario_fields())
    if (f.section() == section && std::find(refused.begin(), refused.end(), f.key()) == refused.end())
      fields.push_back(std::move(f));
  return fields;
}

struct PresetText {
  std::vector<IniEntry> keys;  ///< the figures, in file order
  std::vector<PresetSource> sources;
};

// The file's entries, all in [section], its source keys split off; at least one `source`.
PresetText read_preset_text(const std::string& path, const std::string& section, const std::string& what) {
  const std::vector<IniEntry> entries = read_ini_file(path);
  if (entries.empty()) throw InputError(path, "", "", "not a " + what + " preset file: it has no 'key = value' lines");
  PresetText text;
  for (const IniEntry& e : entries) {
    const auto dot = e.name.find('.');
    if (dot == std::string::npos || e.name.substr(0, dot) != section)
      throw InputError(path, e.name, e.value, "a " + what + " preset file holds only [" + section + "] keys");
    const std::string key = e.name.substr(dot + 1);
    if (!is_source_key(key)) {
      text.keys.push_back(e);
      continue;
    }
    if (e.value.empty())
      throw InputError(path, e.name, e.value,
                       "expected where the figures come from (a paper, a datasheet, file@commit)");
    text.sources.push_back({key, e.value});
  }
  if (std::none_of(text.sources.begin(), text.sources.end(), [](const PresetSource& s) { return s.key == "source"; }))
    throw InputError(path, section + ".source", "",
                     "required: where the preset's figures come from (a paper, a datasheet, file@commit)");
  return text;
}

// Applies `keys` to `s` by `fields`, presets' keys (priority 0, 1) first; throws naming the
// file, the key, the value and the rule.
void apply_keys(Scenario& s, const std::string& path, const std::string& section, const std::vector<IniEntry>& keys,
                const std::vector<ScenarioField>& fields, const std::vector<std::string>& refused) {
  std::vector<std::pair<const IniEntry*, const ScenarioField*>> work;
  for (const IniEntry& e : keys) {
    const std::string key = e.name.substr(e.name.find('.') + 1);
    if (std::find(refused.begin(), refused.end(), key) != refused.end())
      throw InputError(path, e.name, e.value, "a preset file gives its own figures, not another preset or file");
    const auto f = std::find_if(fields.begin(), fields.end(), [&](const ScenarioField& g) { return g.name == e.name; });
    if (f == fields.end()) {
      std::vector<std::string> names;
      for (const ScenarioField& g : fields) names.push_back(g.key());
      const auto near = nearest_name(key, names);
      throw InputError(path, e.name, e.value,
                       "unknown key in [" + section + "]" + (near ? "; did you mean '" + *near + "'?" : std::string()));
    }
    work.emplace_back(&e, &*f);
  }
  std::stable_sort(work.begin(), work.end(),
                   [](const auto& a, const auto& b) { return a.second->priority < b.second->priority; });
  for (const auto& [entry, field] : work)
    if (const auto rule = field->apply(s, entry->value)) throw InputError(path, entry->name, entry->value, *rule);
}

void require_keys(const std::string& path, const std::vector<IniEntry>& keys, const std::vector<std::string>& required,
                  const std::string& what) {
  for (const std::string& name : required)
    if (std::none_of(keys.begin(), keys.end(), [&](const IniEntry& e) { return e.name == name; }))
      throw InputError(path, name, "", "required in a " + what + " preset file");
}

bool given(const std::vector<IniEntry>& keys, const std::string& name) {
  return std::any_of(keys.begin(), keys.end(), [&](const IniEntry& e) { return e.name == name; });
}

template <typename Spec>
PresetFile<Spec> preset_of(const std::string& path, PresetText text, Spec spec) {
  return {fs::path(path).stem().string(), path, std::move(text.sources), std::move(spec)};
}

}  // namespace

bool names_a_preset_file(std::string_view value) {
  return value.find('/') != std::string_view::npos || (value.size() > 4 && value.substr(value.size() - 4) == ".ini");
}

std::string preset_file_path(std::string_view value, const std::string& relative_to) {
  fs::path path{std::string(value)};
  if (path.is_relative()) path = fs::path(relative_to).parent_path() / path;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  return (ec ? path : absolute).lexically_normal().string();
}

PresetFile<GpuSpec> read_gpu_preset(const std::string& path) {
  const PresetText text = read_preset_text(path, "gpu", "GPU");
  static const std::vector<ScenarioField> fields = gpu_preset_fields();
  require_keys(path, text.keys, required_gpu_preset_keys(), "GPU");
  Scenario s;
  s.source = path;
  s.cluster.gpu = GpuSpec{};
  apply_keys(s, path, "gpu", text.keys, fields, {});
  s.cluster.gpu.name = fs::path(path).stem().string();
  return preset_of(path, text, s.cluster.gpu);
}

PresetFile<ClusterSpec> read_cluster_preset(const std::string& path, const std::vector<PresetFile<GpuSpec>>& gpus) {
  PresetText text = read_preset_text(path, "cluster", "cluster");
  static const std::vector<ScenarioField> fields = section_fields("cluster", {"preset", "gpu"});
  require_keys(path, text.keys, {"cluster.gpu"}, "cluster");
  Scenario s;
  s.source = path;
  s.cluster = ClusterSpec{};
  // cluster.gpu first (the keys after it, gpu_memory among them, override its figures): a GPU
  // preset's name, or a GPU preset file's path.
  const auto gpu =
      std::find_if(text.keys.begin(), text.keys.end(), [](const IniEntry& e) { return e.name == "cluster.gpu"; });
  if (names_a_preset_file(gpu->value)) {
    const std::string gpu_path = preset_file_path(gpu->value, path);
    std::error_code ec;
    if (!fs::is_regular_file(gpu_path, ec))
      throw InputError(path, gpu->name, gpu->value, "must name a GPU preset file (" + gpu_path + " is no file)");
    s.cluster.gpu = read_gpu_preset(gpu_path).spec;
  } else {
    const auto known = std::find_if(gpus.begin(), gpus.end(), [&](const auto& g) { return g.name == gpu->value; });
    if (known == gpus.end()) {
      std::string names;
      for (const auto& g : gpus) names += (names.empty() ? "" : ", ") + g.name;
      throw InputError(path, gpu->name, gpu->value, "expected one of " + names + ", or a GPU preset file's path");
    }
    s.cluster.gpu = known->spec;
  }
  const bool nvlink_given = given(text.keys, "cluster.nvlink_bandwidth");
  text.keys.erase(gpu);
  apply_keys(s, path, "cluster", text.keys, fields, {"preset"});
  if (!nvlink_given) s.cluster.nvlink_bandwidth_Bps = s.cluster.gpu.nvlink_bandwidth_Bps;  // the GPU's, as on DGX
  s.cluster.preset = fs::path(path).stem().string();
  return preset_of(path, text, s.cluster);
}

PresetFile<ModelSpec> read_model_preset(const std::string& path) {
  const PresetText text = read_preset_text(path, "model", "model");
  static const std::vector<ScenarioField> fields = section_fields("model", {"preset", "from"});
  require_keys(path, text.keys,
               {"model.layers", "model.hidden", "model.heads", "model.ffn_hidden", "model.vocab", "model.seq_len"},
               "model");
  Scenario s;
  s.source = path;
  s.model = ModelSpec{};
  apply_keys(s, path, "model", text.keys, fields, {"preset", "from"});
  if (!given(text.keys, "model.kv_heads")) s.model.kv_heads = s.model.heads;  // multi-head attention, as in scenarios
  s.model.name = fs::path(path).stem().string();
  return preset_of(path, text, s.model);
}

std::optional<std::string> preset_file_rule(std::string_view value, const std::string& scenario_source,
                                            std::string& path) {
  path = preset_file_path(value, scenario_source);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "must name a preset file (" + path + " is no file)";
  return std::nullopt;
}

}  // namespace trainsim
