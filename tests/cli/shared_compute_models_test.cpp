// The compute models `trainsim plan` shares across its layouts' bounds
// (sim/cli/scenario_compute_model.hpp): one model for scenarios that differ only in what the
// model does not read, and each answers as a model built for that scenario alone.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/cli/scenario_compute_model.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace trainsim::cli {
namespace {

Scenario example(const std::vector<std::string>& overrides) {
  return load_scenario(std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/examples/llama3-405b-16k-h100.ini", overrides);
}

TEST(SharedComputeModels, OneModelForLayoutsThatAnswersAsItsOwn) {
  SharedComputeModels models;
  const Scenario a = example({});
  const Scenario b = example({"parallel.tp=4", "parallel.pp=8", "parallel.dp=512", "training.grad_accum=8"});
  const Scenario fp8 = example({"training.precision=fp8"});
  const ComputeModel& ma = models(a);
  EXPECT_EQ(&ma, &models(b));     // the layout is not read by the model
  EXPECT_NE(&ma, &models(fp8));   // the precision is
  EXPECT_EQ(&ma, &models(a));
  const auto own = scenario_compute_model(b);
  Op gemm;
  gemm.name = "fc1";
  gemm.kind = OpKind::gemm;
  gemm.gemm = {8192, 13312, 16384};
  gemm.flops = 2.0 * 8192 * 13312 * 16384;
  gemm.bytes = 2.0 * (8192.0 * 16384 + 16384.0 * 13312 + 8192.0 * 13312);
  EXPECT_GT(own->op_time_s(gemm), 0);
  EXPECT_EQ(models(b).op_time_s(gemm), own->op_time_s(gemm));
}

}  // namespace
}  // namespace trainsim::cli
