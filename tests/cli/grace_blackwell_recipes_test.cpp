// NVIDIA's Grace-Blackwell recipes as they ran (scenarios/examples/*-gb200-fsdp-offload.ini,
// Megatron-Bridge 00b7660b): Megatron FSDP on part of NVL72 racks with activations offloaded
// over NVLink-C2C. They simulate, fit only with their offload, and Megatron FSDP reduces each
// layer's gradients once per micro-batch.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

nlohmann::json json_of(const std::string& command, const std::string& example, const std::vector<std::string>& sets) {
  std::vector<std::string> args{command, testing::source_path("scenarios/examples/" + example), "--json"};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  const auto r = testing::run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

struct Recipe {
  const char* file;
  int layers;  ///< one FSDP unit each, on the one pipeline stage
};

const Recipe k_recipes[] = {{"llama3-70b-gb200-fsdp-offload.ini", 80}, {"llama3.1-405b-gb200-fsdp-offload.ini", 126}};

TEST(GraceBlackwellRecipes, FitOnlyWithTheirActivationOffload) {
  for (const Recipe& r : k_recipes) {
    const auto as_ran = json_of("memory", r.file, {});
    EXPECT_TRUE(as_ran["fits"].get<bool>()) << r.file;
    EXPECT_GT(as_ran["stages"][0]["offloaded_activations"].get<double>(), 0) << r.file;
    EXPECT_FALSE(json_of("memory", r.file, {"training.offload_activations=0"})["fits"].get<bool>()) << r.file;
  }
}

TEST(GraceBlackwellRecipes, SimulateWithMegatronFsdpUnitByUnit) {
  for (const Recipe& r : k_recipes) {
    const auto run = json_of("run", r.file, {});
    ASSERT_TRUE(run.contains("step_time_s")) << r.file;
    EXPECT_GT(run["step_time_s"].get<double>(), 0) << r.file;
    EXPECT_GT(run["comm_bytes_per_gpu"]["zero"].get<double>(), 0) << r.file;
    // One micro-batch per step: one reduce-scatter per layer (unit).
    EXPECT_EQ(run["dp_reductions_per_step"].get<int>(), r.layers) << r.file;
    // Two micro-batches: twice as many, and (without HSDP's once-a-step part) twice the bytes.
    const auto two = json_of("run", r.file, {"training.grad_accum=2"});
    EXPECT_EQ(two["dp_reductions_per_step"].get<int>(), 2 * r.layers) << r.file;
    EXPECT_GT(two["comm_bytes_per_gpu"]["dp"].get<double>(), 1.9 * run["comm_bytes_per_gpu"]["dp"].get<double>())
        << r.file;
  }
}

TEST(GraceBlackwellRecipes, PlanSearchesOnlyTheStagesMegatronFsdpRuns) {
  // parallel.zero = auto beside fsdp = megatron: ZeRO 2 and 3 (optim_grads and
  // optim_grads_params), never a stage the scenario would refuse; the recipe's layout wins.
  const std::string out = testing::write_temp_file("recipe-plan", "") + "-dir";
  const auto r = testing::run_trainsim({"plan", testing::source_path("scenarios/examples/") + k_recipes[0].file,
                                        "--set", "parallel.zero=auto", "--jobs", "2", "--out", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto plan = nlohmann::json::parse(r.out);
  ASSERT_TRUE(plan.contains("layouts"));
  ASSERT_FALSE(plan["layouts"].empty());
  for (const auto& layout : plan["layouts"]) {
    const std::string zero = layout["parallel.zero"].get<std::string>();
    EXPECT_TRUE(zero == "2" || zero == "3") << zero;
  }
  EXPECT_EQ(plan["layouts"][0]["parallel.tp"].get<std::string>(), "1");
}

}  // namespace
}  // namespace trainsim
