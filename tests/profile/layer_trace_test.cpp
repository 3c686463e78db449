// `trainsim layer SCENARIO --measured TRACE`: a scenario layer whose shapes the real A100
// trace ran (h 256, FFN 2880 GELU, LayerNorm, 1024 tokens, fp32), op by op beside the
// trace's rows (../shared/data/profiles/: skipped without it). The `--measured` layer-table
// path is tested in tests/cli/layer_command_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "profile/kineto_fixture.hpp"
#include "profile/trace_support.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;

// h 256, FFN 2880 GELU, LayerNorm, 1024 tokens, fp32 (the file's comment says why; the
// scenario is the project's own, beside the script that trimmed the trace).
std::string matching_scenario() {
  return testing::source_path("tests/data/profiles/control-layer.ini");
}

// The table's median for one row, from `trainsim calibrate` (the same trace, the same rows).
double calibrated_time_s(const std::string& row_prefix) {
  const auto r = run_trainsim({"calibrate", "--from-profile", testing::control_trace()});
  const auto at = r.out.find("\n" + row_prefix);
  EXPECT_NE(at, std::string::npos) << row_prefix;
  std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
  return std::stod(fields.at(6));
}

TEST(LayerCommandTrace, SetsTheLayerBesideATrace) {
  TRAINSIM_SKIP_WITHOUT(testing::control_trace());
  const auto r = run_trainsim({"layer", matching_scenario(), "--measured", testing::control_trace(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto m = nlohmann::json::parse(r.out)["measured"];
  EXPECT_EQ(m["kind"], "profiler_trace");
  EXPECT_EQ(m["gpu"], "NVIDIA A100-PG509-200");
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : m["rows"]) rows[row["pass"].get<std::string>() + " " + row["op"].get<std::string>()] = row;
  // The QKV GEMM (1024 tokens x 768 x 256) and its gradients; PyTorch's weight gradient is
  // the transpose of the workload's (768 x 256 over 1024 tokens).
  const auto& qkv = rows.at("forward qkv");
  EXPECT_EQ(qkv["trace_row"],
            nlohmann::json({{"kernel", "gemm"}, {"dtype", "tf32"}, {"m", 1024}, {"n", 768}, {"k", 256}, {"batch", 1}}));
  EXPECT_DOUBLE_EQ(qkv["measured_s"].get<double>(), calibrated_time_s("gemm,tf32,1024,768,256,1,"));
  EXPECT_EQ(rows.at("backward qkv.wgrad")["trace_row"]["m"], 768);
  EXPECT_EQ(rows.at("backward qkv.wgrad")["trace_row"]["n"], 256);
  EXPECT_EQ(rows.at("forward mlp.up")["trace_row"]["n"], 2880);
  EXPECT_EQ(rows.at("forward attention.norm")["trace_row"]["kernel"], "layernorm");
  EXPECT_EQ(rows.at("backward mlp.norm.bwd")["trace_row"]["kernel"], "layernorm_bwd");
  EXPECT_EQ(rows.at("forward mlp.residual")["trace_row"]["kernel"], "add");
  // Ops the trace never ran (no fused attention in this model) are listed, not guessed.
  EXPECT_TRUE(rows.at("forward attention")["trace_row"].is_null());
  const auto& missing = m["not_found"];
  EXPECT_NE(std::find(missing.begin(), missing.end(), "forward attention"), missing.end());
  // The verdict is on the matched ops' total.
  double predicted = 0, measured = 0;
  int matched = 0;
  for (const auto& row : m["rows"])
    if (!row["trace_row"].is_null()) {
      predicted += row["predicted_s"].get<double>();
      measured += row["measured_s"].get<double>();
      ++matched;
    }
  EXPECT_GE(matched, 16);
  EXPECT_EQ(m["matched_ops"], matched);
  EXPECT_NEAR(m["matched"]["predicted_s"].get<double>(), predicted, 1e-12);
  EXPECT_NEAR(m["matched"]["measured_s"].get<double>(), measured, 1e-12);
  EXPECT_EQ(m["within_tolerance"].get<bool>(), std::abs(predicted / measured - 1) <= 0.10);

  const auto table = run_trainsim({"layer", matching_scenario(), "--measured", testing::control_trace()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("(PyTorch profiler trace, NVIDIA A100-PG509-200; 242 rows)"), std::string::npos);
  EXPECT_NE(table.out.find("gemm tf32 1024x768x256"), std::string::npos);
  EXPECT_NE(table.out.find("not in the trace ("), std::string::npos);
  EXPECT_NE(table.out.find("\nmatched ops ("), std::string::npos);
}

TEST(LayerCommandTrace, RefusesATraceWithNoneOfTheLayersShapes) {
  const std::string trace = testing::write_temp_file("gemm.json", testing::gemm_trace().root().dump());
  const auto r = run_trainsim(
      {"layer", testing::source_path("scenarios/validation/h200-llama3-70b-layer.ini"), "--measured", trace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no op of the scenario's layer appears in the trace"), std::string::npos) << r.err;
}

TEST(LayerCommandTrace, RefusesABadTrace) {
  nlohmann::json amd = testing::gemm_trace().root();
  amd["deviceProperties"][0]["name"] = "AMD Instinct MI250X";
  const auto r =
      run_trainsim({"layer", matching_scenario(), "--measured", testing::write_temp_file("amd.json", amd.dump())});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("AMD (ROCm)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trainsim
