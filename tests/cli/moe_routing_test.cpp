// The router as trained (issue 57 items 6 and 7), through the real CLI:
// - model.router_balance = aux_loss costs what Megatron-MoE-ModelZoo measured against forced
//   balance on the same stack (models/expert_load.hpp: Qwen3-235B-A22B on 256 H100, DeepEP,
//   TP 4, PP 8, VPP 4, EP 8, CP 1 to 8), and forced stays the default, bit for bit;
// - node-limited routing (model.router_num_groups, model.router_group_topk) cuts what DeepEP
//   sends across nodes, so a layout whose expert group spans nodes steps faster as each token
//   may use fewer groups (models/moe_dispatch.hpp).
// Each run takes 0.2 to 1 s.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "models/expert_load.hpp"
#include "models/model_presets.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::write_temp_file;

// The ModelZoo's long-context rows (best_practice/qwen3/readme.md @ e8650517): 4,096 tokens
// per rank at each sequence length, recomputation of norms and MoE (here: selective).
std::string zoo_row(int cp) {
  return "[model]\npreset = qwen3-235b-a22b\nseq_len = " + std::to_string(16384 * cp) +
         "\n[training]\nmicro_batch = 1\nglobal_batch = 256\nprecision = bf16\nrecompute = selective\n"
         "[parallel]\ntp = 4\nsequence_parallel = true\ncp = " +
         std::to_string(cp) +
         "\npp = 8\nvirtual_stages = 4\nschedule = interleaved\nep = 8\nmoe_dispatcher = deepep\nzero = 1\n"
         "[cluster]\npreset = dgx-h100\nnodes = 32\n";
}

nlohmann::json run_json(const std::string& file, const std::vector<std::string>& sets) {
  std::vector<std::string> args{"run", file, "--json"};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return nlohmann::json{{"step_time_s", 0.0}};
  nlohmann::json j = nlohmann::json::parse(r.out);
  j.erase("sim_wall_s");  // the simulator's own wall time, the one field that is not a result
  return j;
}

double step_s(const std::string& file, const std::vector<std::string>& sets = {}) {
  return run_json(file, sets).at("step_time_s").get<double>();
}

TEST(RouterBalance, AuxLossCostsWhatTheModelZooMeasuredOverForced) {
  // Model TFLOP/s per GPU, forced balance / dropless: step time ratios 295/237 ... 389/357.
  const struct {
    int cp;
    double forced_tflops, dropless_tflops;
  } rows[] = {{1, 295, 237}, {2, 335, 277}, {4, 368, 320}, {8, 389, 357}};
  for (const auto& row : rows) {
    const std::string file = write_temp_file("zoo-cp" + std::to_string(row.cp) + ".ini", zoo_row(row.cp));
    const double measured = row.forced_tflops / row.dropless_tflops;
    const double simulated = step_s(file, {"model.router_balance=aux_loss"}) / step_s(file);
    EXPECT_NEAR(simulated, measured, 0.02) << "CP " << row.cp;
  }
}

TEST(RouterBalance, ForcedIsTheDefaultBitForBit) {
  const std::string file = write_temp_file("zoo-cp1.ini", zoo_row(1));
  const nlohmann::json plain = run_json(file, {});
  EXPECT_EQ(plain, run_json(file, {"model.router_balance=forced"}));
  // Group-limited routing on the alltoall dispatcher moves no bytes on balance: same step.
  const std::string alltoall = "parallel.moe_dispatcher=alltoall";
  EXPECT_EQ(run_json(file, {alltoall}),
            run_json(file, {alltoall, "model.router_num_groups=8", "model.router_group_topk=2"}));
}

TEST(RouterBalance, AuxLossLoadsTheBusiestRankMoreAsEpGrows) {
  // The same measured spread over fewer experts a rank: Qwen3-235B's 128 experts.
  ModelSpec m = *model_preset("qwen3-235b-a22b");
  m.router_aux_loss = true;
  ParallelSpec p;
  double previous = 1.0;
  for (const int ep : {1, 8, 16, 32, 64, 128}) {
    p.ep = ep;
    const double load = busiest_expert_rank_load(m, p, 1);
    if (ep == 1) {
      EXPECT_DOUBLE_EQ(load, 1.0);
    } else {
      EXPECT_GT(load, previous) << ep;
    }
    // Not the run's seed: the router's property.
    EXPECT_EQ(load, busiest_expert_rank_load(m, p, 99)) << ep;
    previous = load;
  }
  p.ep = 8;
  EXPECT_NEAR(busiest_expert_rank_load(m, p, 1), 1.48, 0.01);
}

TEST(NodeLimitedRouting, DeepEpAcrossNodesStepsFasterWithFewerGroupsAToken) {
  // DeepSeek-V3's routing (256 experts, top 8, a group a node) on 4 layers, EP 32 over four
  // DGX H100 nodes with DeepEP: each token's copies across nodes fall from about 3.5 to M.
  const std::string file =
      write_temp_file("ds-node-limited.ini",
                      "[model]\npreset = deepseek-v3\nlayers = 4\ndense_layers = 0\nmtp_depth = 0\nseq_len = 4096\n"
                      "[training]\nmicro_batch = 1\ngrad_accum = 4\nrecompute = full\n"
                      "[parallel]\ntp = 1\npp = 1\nep = 32\nmoe_dispatcher = deepep\nzero = 1\n"
                      "[cluster]\npreset = dgx-h100\nnodes = 4\n");
  const double unlimited = step_s(file);
  double previous = unlimited;
  for (const char* m : {"3", "2", "1"}) {
    const double t = step_s(file, {"model.router_num_groups=4", std::string("model.router_group_topk=") + m});
    EXPECT_LT(t, previous) << "M = " << m;
    previous = t;
  }
  EXPECT_EQ(step_s(file, {"model.router_num_groups=4", "model.router_group_topk=4"}), unlimited);
  // Megatron-Core's names for the two keys (sim/scenario/megatron_names.cpp) mean the same.
  const std::string megatron =
      write_temp_file("ds-megatron-names.ini",
                      "[model]\npreset = deepseek-v3\nlayers = 4\ndense_layers = 0\nmtp_depth = 0\n"
                      "seq_len = 4096\nmoe_router_num_groups = 4\nmoe_router_group_topk = 2\n"
                      "[training]\nmicro_batch = 1\ngrad_accum = 4\nrecompute = full\n"
                      "[parallel]\ntp = 1\npp = 1\nep = 32\nmoe_dispatcher = deepep\nzero = 1\n"
                      "[cluster]\npreset = dgx-h100\nnodes = 4\n");
  EXPECT_EQ(step_s(megatron), step_s(file, {"model.router_num_groups=4", "model.router_group_topk=2"}));
}

TEST(NodeLimitedRouting, ImportReadsMegatronsGroupSettings) {
  // `trainsim import megatron` printed them as "not modelled" before they had keys.
  const auto r = run_trainsim({"import",
                               "megatron",
                               "--nodes",
                               "8",
                               "--num-layers",
                               "4",
                               "--hidden-size",
                               "1024",
                               "--num-attention-heads",
                               "8",
                               "--seq-length",
                               "4096",
                               "--vocab-size",
                               "32000",
                               "--num-experts",
                               "64",
                               "--moe-router-topk",
                               "6",
                               "--moe-router-num-groups",
                               "8",
                               "--moe-router-group-topk",
                               "3",
                               "--expert-model-parallel-size",
                               "8",
                               "--micro-batch-size",
                               "1",
                               "--global-batch-size",
                               "64",
                               "--bf16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("router_num_groups = 8\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("router_group_topk = 3\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("not modelled: --moe-router"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace trainsim
