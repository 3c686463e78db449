// A bad preset file is refused in one line naming the file, the key, the value and the rule
// (exit 2 from the command line), as a bad scenario is (issue 59 item 2).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/preset_files.hpp"
#include "sim/scenario/preset_library.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

std::string file_with(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

const char* k_model =
    "[model]\nsource = a test\nlayers = 2\nhidden = 256\nheads = 4\nffn_hidden = 1024\n"
    "vocab = 1000\nseq_len = 512\n";

// The InputError `read` throws, as its message.
template <typename Read>
std::string refusal(Read read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

void expect_parts(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts) EXPECT_NE(message.find(part), std::string::npos) << part << "\n" << message;
}

TEST(PresetFileErrors, EachNamesFileKeyValueAndRule) {
  const fs::path dir = testing::fresh_test_dir("preset_errors");
  const std::string ok = file_with(dir, "tiny.ini", k_model);
  const PresetFile<ModelSpec> tiny = read_model_preset(ok);
  EXPECT_EQ(tiny.name, "tiny");
  EXPECT_EQ(tiny.spec.kv_heads, 4);  // heads, as in a scenario
  ASSERT_EQ(tiny.sources.size(), 1u);
  EXPECT_EQ(tiny.sources[0].text, "a test");

  const std::string bad = file_with(dir, "bad.ini", std::string(k_model) + "top_k = many\n");
  expect_parts(refusal([&] { read_model_preset(bad); }), {bad, "model.top_k", "'many'", "expected an integer"});
  const std::string unknown = file_with(dir, "unknown.ini", std::string(k_model) + "layer = 3\n");
  expect_parts(refusal([&] { read_model_preset(unknown); }), {unknown, "model.layer", "unknown key", "'layers'"});
  const std::string no_source = file_with(dir, "nosource.ini", "[model]\nlayers = 2\n");
  expect_parts(refusal([&] { read_model_preset(no_source); }), {no_source, "model.source", "required"});
  const std::string missing = file_with(dir, "missing.ini", "[model]\nsource = x\nlayers = 2\n");
  expect_parts(refusal([&] { read_model_preset(missing); }), {missing, "model.hidden", "required"});
  const std::string other = file_with(dir, "other.ini", std::string(k_model) + "[training]\nmicro_batch = 1\n");
  expect_parts(refusal([&] { read_model_preset(other); }), {other, "training.micro_batch", "only [model] keys"});
  const std::string nested = file_with(dir, "nested.ini", std::string(k_model) + "preset = llama3-8b\n");
  expect_parts(refusal([&] { read_model_preset(nested); }), {nested, "model.preset", "not another preset"});

  const std::string gpu =
      file_with(dir, "gpu.ini",
                "[gpu]\nsource = x\nmemory = 80GiB\npeak_bf16 = fast\npeak_tf32 = 0\nhbm_bandwidth = 3TB/s\n"
                "nvlink_bandwidth = 450GB/s\ntdp = 700W\nidle_power = 15%\ncomm_power = 40%\narchitecture = hopper\n");
  expect_parts(refusal([&] { read_gpu_preset(gpu); }), {gpu, "gpu.peak_bf16", "'fast'", "TFLOP/s"});
  // The architecture is required (it names the validation family); the NVLink generation must
  // be one with measured collectives, or 0.
  const std::string base =
      "[gpu]\nsource = x\nmemory = 80GiB\npeak_bf16 = 989TFLOP/s\npeak_tf32 = 0\nhbm_bandwidth = 3TB/s\n"
      "nvlink_bandwidth = 450GB/s\ntdp = 700W\nidle_power = 15%\ncomm_power = 40%\n";
  const std::string no_arch = file_with(dir, "noarch.ini", base);
  expect_parts(refusal([&] { read_gpu_preset(no_arch); }), {no_arch, "gpu.architecture", "required"});
  const std::string bad_arch = file_with(dir, "badarch.ini", base + "architecture = Hopper 2\n");
  expect_parts(refusal([&] { read_gpu_preset(bad_arch); }), {bad_arch, "gpu.architecture", "'Hopper 2'", "lowercase"});
  const std::string bad_nvlink = file_with(dir, "badnvlink.ini", base + "architecture = hopper\nnvlink_generation = 2\n");
  expect_parts(refusal([&] { read_gpu_preset(bad_nvlink); }), {bad_nvlink, "gpu.nvlink_generation", "'2'", "3, 4 or 5"});
  const std::string cluster = file_with(dir, "cluster.ini", "[cluster]\nsource = x\ngpu = h100\n");
  expect_parts(refusal([&] { read_cluster_preset(cluster, shipped_presets().gpus); }),
               {cluster, "cluster.gpu", "'h100'", "h100-sxm"});
}

TEST(PresetFileErrors, ABadUserPresetExitsTwoInOneLine) {
  const fs::path dir = testing::fresh_test_dir("preset_cli_errors");
  const std::string bad = file_with(dir, "mine.ini", std::string(k_model) + "top_k = -4\n");
  const std::string scenario = file_with(dir, "s.ini", "[model]\npreset = mine.ini\n[cluster]\nnodes = 1\n");
  const auto r = testing::run_trainsim({"check", scenario});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  expect_parts(r.err, {bad, "model.top_k", "'-4'", "expected an integer >= 1"});
  // A path that is no file.
  const auto none = testing::run_trainsim(
      {"check", scenario, "--set", "model.preset=llama3-8b", "--set", "cluster.preset=nowhere/x.ini"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  expect_parts(none.err, {"cluster.preset", "nowhere/x.ini", "must name a preset file"});
}

}  // namespace
}  // namespace trainsim
