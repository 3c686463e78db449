// The preset files (topologies/presets/gpus, topologies/presets/clusters, models/presets)
// reproduce the C++ presets they replaced (kept as the reference in preset_reference.cpp),
// field for field and bit for bit (issue 59 item 2), and they are what the library serves.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "models/model_presets.hpp"
#include "scenario/preset_reference.hpp"
#include "sim/scenario/gpu_preset_fields.hpp"
#include "sim/scenario/preset_files.hpp"
#include "sim/scenario/preset_library.hpp"
#include "sim/scenario/scenario_fields.hpp"
#include "support/run_trainsim.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> files_in(const std::string& relative) {
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator(testing::source_path(relative))) paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<PresetFile<GpuSpec>> gpu_files() {
  std::vector<PresetFile<GpuSpec>> gpus;
  for (const std::string& path : files_in("topologies/presets/gpus")) gpus.push_back(read_gpu_preset(path));
  return gpus;
}

// Every key's text of `fields` on `a` and `b` that differs (%.12g: a readable first clue; the
// specs' operator== then compares every member exactly).
std::string differences(const Scenario& a, const Scenario& b, const std::vector<ScenarioField>& fields,
                        const std::string& section) {
  std::string out;
  for (const ScenarioField& f : fields)
    if (f.section() == section && f.show(a) != f.show(b))
      out += f.name + ": file " + f.show(a) + ", C++ " + f.show(b) + "\n";
  return out;
}

std::vector<std::string> names_of(const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (const std::string& p : paths) names.push_back(fs::path(p).stem().string());
  return names;
}

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

TEST(PresetFiles, OneGpuFilePerCppPresetWithTheSameFigures) {
  EXPECT_EQ(names_of(files_in("topologies/presets/gpus")), sorted(reference::reference_gpu_preset_names()));
  const std::vector<ScenarioField> fields = gpu_preset_fields();
  for (const PresetFile<GpuSpec>& file : gpu_files()) {
    SCOPED_TRACE(file.path);
    const std::optional<GpuSpec> cpp = reference::reference_gpu_preset(file.name);
    ASSERT_TRUE(cpp.has_value());
    Scenario a, b;
    a.cluster.gpu = file.spec;
    b.cluster.gpu = *cpp;
    EXPECT_EQ(differences(a, b, fields, "gpu"), "");
    EXPECT_EQ(file.spec.name, cpp->name);
    EXPECT_TRUE(file.spec == *cpp);
    EXPECT_FALSE(file.sources.empty());
  }
}

TEST(PresetFiles, OneClusterFilePerCppPresetWithTheSameFigures) {
  EXPECT_EQ(names_of(files_in("topologies/presets/clusters")), sorted(reference::reference_cluster_preset_names()));
  const std::vector<PresetFile<GpuSpec>> gpus = gpu_files();
  const std::vector<ScenarioField> fields = scenario_fields();
  for (const std::string& path : files_in("topologies/presets/clusters")) {
    SCOPED_TRACE(path);
    const PresetFile<ClusterSpec> file = read_cluster_preset(path, gpus);
    const std::optional<ClusterSpec> cpp = reference::reference_cluster_preset(file.name);
    ASSERT_TRUE(cpp.has_value());
    Scenario a, b;
    a.cluster = file.spec;
    b.cluster = *cpp;
    EXPECT_EQ(differences(a, b, fields, "cluster"), "");
    EXPECT_TRUE(file.spec.gpu == cpp->gpu);
    EXPECT_TRUE(file.spec == *cpp);
  }
}

TEST(PresetFiles, OneModelFilePerCppPresetWithTheSameShape) {
  EXPECT_EQ(names_of(files_in("models/presets")), sorted(reference::reference_model_preset_names()));
  const std::vector<ScenarioField> fields = scenario_fields();
  for (const std::string& path : files_in("models/presets")) {
    SCOPED_TRACE(path);
    const PresetFile<ModelSpec> file = read_model_preset(path);
    const std::optional<ModelSpec> cpp = reference::reference_model_preset(file.name);
    ASSERT_TRUE(cpp.has_value());
    Scenario a, b;
    a.model = file.spec;
    b.model = *cpp;
    EXPECT_EQ(differences(a, b, fields, "model"), "");
    EXPECT_TRUE(file.spec == *cpp);
  }
}

// What scenarios get by name is what the files hold: the data folder's presets are these files.
TEST(PresetFiles, TheShippedLibraryServesTheFiles) {
  EXPECT_EQ(gpu_preset_names(), names_of(files_in("topologies/presets/gpus")));
  EXPECT_EQ(cluster_preset_names(), names_of(files_in("topologies/presets/clusters")));
  EXPECT_EQ(model_preset_names(), names_of(files_in("models/presets")));
  for (const std::string& name : gpu_preset_names())
    EXPECT_TRUE(*gpu_preset(name) == *reference::reference_gpu_preset(name));
  for (const std::string& name : cluster_preset_names())
    EXPECT_TRUE(*cluster_preset(name) == *reference::reference_cluster_preset(name)) << name;
  for (const std::string& name : model_preset_names())
    EXPECT_TRUE(*model_preset(name) == *reference::reference_model_preset(name)) << name;
}

}  // namespace
}  // namespace trainsim
