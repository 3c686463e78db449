// `trainsim layer`: one layer's ops as the step simulation times them, and the check
// against a layer measured by trainsim-calibrate --layer.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_trainsim.hpp"
#include "topologies/host_cost.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

const std::string k_measured = source_path("tests/compute/layer-llama3-8b-synthetic.csv");

// The synthetic table's layer: Llama 3 8B, micro-batch 1 x 4096 tokens, unfused attention.
std::string llama3_8b_scenario() {
  return testing::write_temp_file("layer-llama3-8b.ini",
                                  "[model]\npreset = llama3-8b\nseq_len = 4096\n"
                                  "[training]\nattention = standard\n"
                                  "[cluster]\npreset = hgx-h200\nnodes = 1\ngpus_per_node = 1\n");
}

// A bad --tolerance or --layer-index is one line with the value as given and the rule: boost's
// parse said "the argument ('1e9') for option '--layer-index' is invalid" (no rule), and
// --tolerance 1e308 was shown as its 309 digits, -1 as '-1.000000'.
TEST(LayerCommand, BadOptionsAreNamedAsGivenWithTheRule) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--tolerance", "1e308"}, "--tolerance = '1e308': must be a number between 0 and 1"},
      {{"--tolerance", "-1"}, "--tolerance = '-1': must be a number between 0 and 1"},
      {{"--tolerance", "x"}, "--tolerance = 'x': must be a number between 0 and 1"},
      {{"--layer-index", "1e9"}, "--layer-index = '1e9': must be an integer from 0 to model.layers - 1 = 31"},
      {{"--layer-index", "99999999999"}, "--layer-index = '99999999999': must be an integer from 0"},
  };
  for (const auto& [options, said] : cases) {
    std::vector<std::string> args = {"layer", llama3_8b_scenario()};
    args.insert(args.end(), options.begin(), options.end());
    const auto r = run_trainsim(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
  }
}

TEST(LayerCommand, OpTimesAddUpToTheLayer) {
  const auto r = run_trainsim({"layer", source_path("scenarios/validation/h200-llama3-70b-layer.ini"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_GT(j["ops"].size(), 20U);
  double forward = 0, backward = 0;
  for (const auto& op : j["ops"]) {
    EXPECT_GT(op["time_s"].get<double>(), 0) << op["op"];
    (op["pass"] == "forward" ? forward : backward) += op["time_s"].get<double>();
  }
  EXPECT_NEAR(j["forward_s"].get<double>(), forward, 1e-12);
  EXPECT_NEAR(j["backward_s"].get<double>(), backward, 1e-12);
  EXPECT_NEAR(j["layer_s"].get<double>(), forward + backward, 1e-12);
  EXPECT_EQ(j["recompute_s"].get<double>(), 0);
  // The backward of a layer does about twice the forward's matmul work.
  EXPECT_GT(j["backward_s"].get<double>(), 1.5 * j["forward_s"].get<double>());
  EXPECT_FALSE(j.contains("measured"));

  const auto table = run_trainsim({"layer", source_path("scenarios/validation/h200-llama3-70b-layer.ini")});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("mlp.up.wgrad"), std::string::npos);
  EXPECT_NE(table.out.find("compute model: calibration table"), std::string::npos);
}

// As the step charges them: expert GEMMs for the busiest expert-parallel rank.
TEST(LayerCommand, ExpertOpsAreTheBusiestRanks) {
  const auto op_times = [](const std::string& imbalance) {
    const auto r = run_trainsim({"layer", source_path("scenarios/examples/mixtral-8x7b-ep.ini"), "--json", "--set",
                                 "model.expert_imbalance=" + imbalance});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, double> times;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& op : j["ops"])
      times[op["pass"].get<std::string>() + " " + op["op"].get<std::string>()] = op["time_s"].get<double>();
    return times;
  };
  const auto balanced = op_times("0");
  const auto skewed = op_times("0.3");
  const double load = skewed.at("forward experts.up") / balanced.at("forward experts.up");
  EXPECT_GT(load, 1.05);
  EXPECT_NEAR(skewed.at("backward experts.down.wgrad") / balanced.at("backward experts.down.wgrad"), load, 1e-9);
  EXPECT_DOUBLE_EQ(skewed.at("forward qkv"), balanced.at("forward qkv"));
}

// The host beside the GPU: every op's kernels and host time, each pass cut at the MoE
// dispatcher's host sync, and the layer as the step charges it (host_bound_pass.hpp).
TEST(LayerCommand, ShowsTheHostBesideTheGpu) {
  const auto layer = [](const std::vector<std::string>& sets) {
    std::vector<std::string> args{"layer", source_path("scenarios/validation/nemo-h100-qwen3-30b-a3b.ini"), "--json"};
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    const auto r = run_trainsim(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const auto x86 = layer({});
  EXPECT_EQ(x86["host"]["cpu"], "x86");
  EXPECT_DOUBLE_EQ(x86["host"]["op_s"].get<double>(), host_cost(HostCpu::x86).op_s);  // 30 us x 2.3
  // Each segment's kernels and host time are its ops'; the forward pass is cut at moe.permute.
  int op_kernels = 0, segment_kernels = 0;
  double op_host = 0, segment_host = 0, charged = 0;
  for (const auto& op : x86["ops"]) {
    EXPECT_GE(op["kernels"].get<int>(), 1) << op["op"];
    op_kernels += op["kernels"].get<int>();
    op_host += op["host_s"].get<double>();
  }
  std::vector<std::string> synced;
  for (const auto& s : x86["host"]["segments"]) {
    segment_kernels += s["kernels"].get<int>();
    segment_host += s["host_s"].get<double>();
    charged += s["time_s"].get<double>();
    // A segment's time is its GPU's busy time and its waits for the host's launches; after a
    // sync the queue is empty, and the GPU waits at least for the first dispatch.
    EXPECT_NEAR(s["time_s"].get<double>(), s["gpu_s"].get<double>() + s["gpu_waits_s"].get<double>(), 1e-12);
    if (s["after_sync"].get<bool>()) {
      synced.push_back(s["pass"].get<std::string>() + " " + s["from_op"].get<std::string>());
      EXPECT_GE(s["gpu_waits_s"].get<double>(), 30e-6 - 1e-15);
    }
  }
  EXPECT_EQ(op_kernels, segment_kernels);
  EXPECT_GT(op_kernels, 150);  // the grouped GEMMs launch one kernel per local expert
  EXPECT_NEAR(op_host, segment_host, 1e-12);
  EXPECT_EQ(synced, std::vector<std::string>{"forward moe.permute"});
  EXPECT_NEAR(x86["host"]["charged_layer_s"].get<double>(), charged, 1e-12);
  EXPECT_GE(charged, x86["layer_s"].get<double>() - 1e-12);

  // A slow host: the GPU waits for the launches, and the layer takes longer than its GPU time.
  const auto slow = layer({"training.kernel_host_time=200us"});
  double gpu_waits = 0;
  for (const auto& s : slow["host"]["segments"]) gpu_waits += s["gpu_waits_s"].get<double>();
  EXPECT_GT(gpu_waits, 1e-3);
  EXPECT_NEAR(slow["host"]["charged_layer_s"].get<double>(), slow["layer_s"].get<double>() + gpu_waits, 1e-9);
  // A free host: the layer is its GPU time.
  const auto free_host = layer({"training.kernel_host_time=0us"});
  EXPECT_NEAR(free_host["host"]["charged_layer_s"].get<double>(), free_host["layer_s"].get<double>(), 1e-12);

  const auto table = run_trainsim({"layer", source_path("scenarios/validation/nemo-h100-qwen3-30b-a3b.ini")});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("moe.permute (sync)"), std::string::npos);
  EXPECT_NE(table.out.find("layer as the step charges it:"), std::string::npos);
}

TEST(LayerCommand, ComparesWithAMeasuredLayer) {
  const auto r = run_trainsim({"layer", llama3_8b_scenario(), "--measured", k_measured, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto m = nlohmann::json::parse(r.out)["measured"];
  EXPECT_EQ(m["rows"].size(), 30U);
  for (const auto& row : m["rows"]) {
    EXPECT_GT(row["ops"].get<int>(), 0) << row["op"];
    EXPECT_GT(row["measured_s"].get<double>(), 0) << row["op"];
  }
  const auto& layer = m["layer"];
  const double deviation = layer["predicted_s"].get<double>() / layer["measured_s"].get<double>() - 1;
  EXPECT_NEAR(layer["deviation"].get<double>(), deviation, 1e-12);
  EXPECT_EQ(m["within_tolerance"].get<bool>(), std::abs(deviation) <= 0.10);

  // A tolerance below the deviation turns the verdict.
  const double tight = std::abs(deviation) / 2;
  const auto strict =
      run_trainsim({"layer", llama3_8b_scenario(), "--measured", k_measured, "--tolerance", std::to_string(tight)});
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(strict.out.find("NOT within"), std::string::npos) << strict.out;
}

TEST(LayerCommand, RefusesADifferentLayer) {
  const auto batch =
      run_trainsim({"layer", llama3_8b_scenario(), "--measured", k_measured, "--set", "training.micro_batch=2"});
  EXPECT_EQ(batch.exit_code, 2);
  EXPECT_NE(batch.err.find("layer-llama3-8b-synthetic.csv"), std::string::npos) << batch.err;
  EXPECT_NE(batch.err.find("# layer: mb"), std::string::npos) << batch.err;
  EXPECT_EQ(batch.out, "");

  const auto fused =
      run_trainsim({"layer", llama3_8b_scenario(), "--measured", k_measured, "--set", "training.attention=flash"});
  EXPECT_EQ(fused.exit_code, 2);
  EXPECT_NE(fused.err.find("training.attention"), std::string::npos) << fused.err;

  const auto sharded = run_trainsim({"layer", llama3_8b_scenario(), "--measured", k_measured, "--set", "parallel.tp=2",
                                     "--set", "cluster.gpus_per_node=2"});
  EXPECT_EQ(sharded.exit_code, 2);
  EXPECT_NE(sharded.err.find("parallel.tp"), std::string::npos) << sharded.err;

  const auto tolerance = run_trainsim({"layer", llama3_8b_scenario(), "--tolerance", "2"});
  EXPECT_EQ(tolerance.exit_code, 2);
  EXPECT_NE(tolerance.err.find("--tolerance"), std::string::npos) << tolerance.err;

  const auto missing = run_trainsim({"layer", llama3_8b_scenario(), "--measured", "/nonexistent/layer.csv"});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace trainsim
