// The low-precision recipe keys (sim/scenario/precision_recipe.hpp): FP8 attention from a
// table's fp8 attention rows and refused where it cannot run or has no rows; the first and
// last layers kept in bf16; each refusal one line naming the key and value, exit code 2.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

const std::string k_b200_8b = "scenarios/validation/nemo-b200-llama3-8b.ini";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The shipped B200 table without any fp8 attention rows, and with the bf16 ones copied as fp8
// rows `speedup` times as fast (Q, K, V, O one byte an element), as a temp file.
std::string b200_table(bool with_fp8_attention, double speedup = 1.25) {
  std::istringstream in(read_text(source_path("kernels/calibration/b200.csv")));
  std::string out, line, added;
  while (std::getline(in, line)) {
    const bool attention = line.rfind("attention_fwd,", 0) == 0 || line.rfind("attention_bwd,", 0) == 0;
    if (attention && line.find(",fp8,") != std::string::npos) continue;
    out += line + "\n";
    if (!attention || !with_fp8_attention) continue;
    // kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    const double time_s = std::stod(f[6]) / speedup, flops = std::stod(f[7]), bytes = std::stod(f[8]) / 2;
    f[1] = "fp8";
    f[6] = std::to_string(time_s);
    f[8] = std::to_string(static_cast<long long>(bytes));
    f[9] = std::to_string(flops / time_s / 1e12);
    f[10] = std::to_string(bytes / time_s / 1e9);
    f[11] = "derived:test";
    std::string row;
    for (size_t i = 0; i < f.size(); ++i) row += (i ? "," : "") + f[i];
    added += row + "\n";
  }
  return testing::write_temp_file(with_fp8_attention ? "b200-fp8-attention.csv" : "b200-no-fp8-attention.csv",
                                  out + added);
}

testing::RunResult run_json(const std::vector<std::string>& sets) {
  std::vector<std::string> args{"run", source_path(k_b200_8b), "--json"};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return run_trainsim(args);
}

double step_s(const std::vector<std::string>& sets) {
  const auto r = run_json(sets);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out).at("step_time_s").get<double>() : 0.0;
}

void expect_refused(const testing::RunResult& r, const std::string& key, const std::string& words) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(key), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
}

TEST(PrecisionRecipe, Fp8AttentionIsTimedFromTheTablesFp8Rows) {
  const std::string table = b200_table(true);
  const std::vector<std::string> base{"training.precision=fp8", "cluster.calibration=" + table};
  std::vector<std::string> fp8 = base;
  fp8.push_back("training.attention_precision=fp8");
  const double bf16_s = step_s(base);
  const double fp8_s = step_s(fp8);
  EXPECT_LT(fp8_s, bf16_s);
  // Rows as fast as bf16's: fp8 attention pays its casts and gains nothing.
  std::vector<std::string> same{"training.precision=fp8", "cluster.calibration=" + b200_table(true, 1.0),
                                "training.attention_precision=fp8"};
  EXPECT_GT(step_s(same), bf16_s);
}

TEST(PrecisionRecipe, Fp8AttentionWithoutFp8RowsIsRefused) {
  expect_refused(run_json({"training.precision=fp8", "training.attention_precision=fp8",
                           "cluster.calibration=" + b200_table(false)}),
                 "training.attention_precision", "no attention_fwd and attention_bwd rows of dtype fp8");
  expect_refused(
      run_json({"training.precision=fp8", "training.attention_precision=fp8", "cluster.calibration=none"}),
      "training.attention_precision", "datasheet roofline");
}

TEST(PrecisionRecipe, Fp8AttentionNeedsFp8TensorCoresAQuantizedPrecisionAndFusedAttention) {
  const auto a100 = run_trainsim({"run", source_path(k_b200_8b), "--set", "cluster.preset=dgx-a100", "--set",
                                  "training.precision=bf16", "--set", "training.attention_precision=fp8"});
  expect_refused(a100, "training.attention_precision", "a100-80g has no fp8 tensor cores");
  expect_refused(run_json({"training.precision=bf16", "training.attention_precision=fp8"}),
                 "training.attention_precision",
                 "needs training.precision = fp8, mxfp8 or nvfp4");
  expect_refused(run_json({"training.precision=fp8", "training.attention_precision=fp8", "training.attention=standard"}),
                 "training.attention_precision", "needs training.attention = flash");
  expect_refused(run_json({"training.attention_precision=fp4"}), "training.attention_precision", "bf16, fp8");
}

TEST(PrecisionRecipe, FirstAndLastLayersInBf16CostTheirGemmsAtBf16) {
  const double nvfp4_s = step_s({"training.precision=nvfp4"});
  const double one_s = step_s({"training.precision=nvfp4", "training.first_last_layers_bf16=true"});
  const double four_s = step_s({"training.precision=nvfp4", "training.first_last_layers_bf16=true",
                                "training.num_layers_at_start_in_bf16=4", "training.num_layers_at_end_in_bf16=4"});
  EXPECT_GT(one_s, nvfp4_s);
  EXPECT_GT(four_s, one_s);
}

TEST(PrecisionRecipe, Bf16LayersAreRefusedWhereMegatronRefusesThem) {
  expect_refused(run_json({"training.precision=bf16", "training.first_last_layers_bf16=true"}),
                 "training.first_last_layers_bf16",
                 "under a quantized training.precision");
  expect_refused(run_json({"training.num_layers_at_start_in_bf16=2"}), "training.num_layers_at_start_in_bf16",
                 "only with training.first_last_layers_bf16 = true");
  // Llama 3 8B: 32 layers, one pipeline stage here: at most 32 each.
  expect_refused(run_json({"training.precision=nvfp4", "training.first_last_layers_bf16=true",
                           "training.num_layers_at_end_in_bf16=33"}),
                 "training.num_layers_at_end_in_bf16", "at most the layers of a pipeline stage");
}

}  // namespace
}  // namespace trainsim
