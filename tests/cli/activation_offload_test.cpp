// Activation offloading (training.offload_activations) through the real CLI: the bytes that
// leave the GPU and the host memory they take, the copies' exposed time against the host link,
// and the rules.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

const std::string k_default = testing::source_path("scenarios/default.ini");

nlohmann::json json_of(const std::string& command, const std::vector<std::string>& sets) {
  std::vector<std::string> args{command, k_default, "--json"};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  const auto r = testing::run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(ActivationOffload, OffloadedLayersLeaveTheGpuForTheHost) {
  // The default scenario: 20 uniform layers on stage 0, 4 micro-batches in flight there.
  const auto none = json_of("memory", {})["stages"][0];
  const auto five = json_of("memory", {"training.offload_activations=5"})["stages"][0];
  const double inflight = none["inflight_microbatches"].get<double>();
  const double host = five["offloaded_activations"].get<double>();
  const double layer = host / (5 * inflight);  // one layer of one micro-batch
  EXPECT_GT(layer, 0);
  EXPECT_DOUBLE_EQ(five["offloaded"].get<double>(), host);  // no optimizer offload here
  // Five layers of every micro-batch in flight are gone. Transformer Engine's two staging
  // buffers (a layer each) hold activations only while the newest micro-batch's offloaded
  // layers run, when its fifteen kept layers hold nothing yet: those are the peak.
  EXPECT_NEAR(five["activations"].get<double>(), none["activations"].get<double>() - host, 1.0);
  EXPECT_EQ(none["offloaded_activations"].get<double>(), 0.0);
  // With 19 of 20 offloaded (20 layers on every stage), the one kept layer is less than the
  // two buffers: one layer more.
  const auto even = json_of("memory", {"parallel.stage_split=even"})["stages"][0];
  const auto most = json_of("memory", {"parallel.stage_split=even", "training.offload_activations=19"})["stages"][0];
  EXPECT_NEAR(most["activations"].get<double>(),
              even["activations"].get<double>() - most["offloaded_activations"].get<double>() + layer, 1.0);
}

TEST(ActivationOffload, CopiesHideBehindComputeAsFarAsTheHostLinkAllows) {
  const auto step = [](const std::vector<std::string>& sets) {
    const auto j = json_of("run", sets);
    return std::pair{j["step_time_s"].get<double>(), j["breakdown_s"]["offload"].get<double>()};
  };
  const auto [plain, plain_wait] = step({});
  EXPECT_EQ(plain_wait, 0.0);
  // NVLink-C2C's rate: every copy hides behind the next layer.
  const auto [c2c, c2c_wait] = step({"training.offload_activations=5", "cluster.host_link_bandwidth=900GB/s"});
  EXPECT_EQ(c2c_wait, 0.0);
  EXPECT_DOUBLE_EQ(c2c, plain);
  // A slow link exposes the copies, more with more layers offloaded; the breakdown still sums.
  const auto [slow5, wait5] = step({"training.offload_activations=5", "cluster.host_link_bandwidth=4GB/s"});
  const auto [slow15, wait15] = step({"training.offload_activations=15", "cluster.host_link_bandwidth=4GB/s"});
  EXPECT_GT(wait5, 0.0);
  EXPECT_GT(wait15, 2.5 * wait5);
  EXPECT_GT(slow5, plain);
  const auto j = json_of("run", {"training.offload_activations=15", "cluster.host_link_bandwidth=4GB/s"});
  double sum = 0;
  for (const auto& [name, v] : j["breakdown_s"].items()) sum += v.get<double>();
  EXPECT_NEAR(sum, j["step_time_s"].get<double>(), 1e-6 * sum);
  (void)slow15;
}

TEST(ActivationOffload, RulesAreOneLineErrors) {
  for (const auto& [sets, words] :
       {std::pair<std::vector<std::string>, std::string>{{"training.offload_activations=20"},
                                                         "must be fewer than the layers of every pipeline stage"},
        {{"training.offload_activations=2", "cluster.host_link_bandwidth=0GB/s"}, "expected a value > 0"}}) {
    std::vector<std::string> args{"memory", k_default};
    for (const auto& s : sets) args.insert(args.end(), {"--set", s});
    const auto r = testing::run_trainsim(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
}

}  // namespace
}  // namespace trainsim
