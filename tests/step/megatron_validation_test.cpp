// Megatron-LM weak scaling (Narayanan et al. SC21, Table 1; ../shared/validation/public.md A1):
// each row's simulated TFLOP/s per GPU within 15 % of the published one, with one A100
// calibration for all rows (kernels/calibration/a100-80g.csv).

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sim/compute/compute_model_factory.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/engine/isolated_run.hpp"

namespace trainsim {
namespace {

// The published figure, from the scenario's "# published_tflops_per_gpu = N" line.
double published_tflops(const std::string& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const std::string tag = "# published_tflops_per_gpu = ";
    if (line.rfind(tag, 0) == 0) return std::stod(line.substr(tag.size()));
  }
  return 0;
}

class MegatronTable1 : public ::testing::TestWithParam<const char*> {};

TEST_P(MegatronTable1, WithinFifteenPercent) {
  const std::string path = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/validation/megatron-" + GetParam() + ".ini";
  const double published = published_tflops(path);
  ASSERT_GT(published, 0) << path;
  const std::vector<double> r = engine::test::run_isolated([&] {
    const Scenario s = load_scenario(path);
    CalibrationChoice choice = calibration_choice("auto", std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration");
    const auto compute = make_compute_model(s.cluster.gpu, s.training.precision, choice);
    const StepResult result = simulate_step(s, *compute);
    // Megatron-LM counts eq. 3 FLOPs, recomputation included: our hardware FLOPs.
    return std::vector<double>{result.hardware_tflops_per_gpu};
  });
  EXPECT_NEAR(r.at(0) / published, 1.0, 0.15) << GetParam() << ": simulated " << r.at(0) << ", published " << published;
}

INSTANTIATE_TEST_SUITE_P(Rows, MegatronTable1,
                         ::testing::Values("1.7b", "3.6b", "7.5b", "18.4b", "39.1b", "76.1b", "145.6b", "310.1b",
                                           "529.6b", "1008b"),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return "params_" + name;
                         });

}  // namespace
}  // namespace trainsim
