// DGX B200 through the real CLI: the 8-GPU all-reduce stays within NVLink 5's bounds, and the
// Blackwell GPU presets run a step.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

// busbw (GB/s) of an all-reduce of 1 GiB on the 8 GPUs of one dgx-b200 node.
double dgx_b200_all_reduce_busbw_GBps(const std::string& algo) {
  const auto r =
      testing::run_trainsim({"collective", "--cluster", "dgx-b200", "-b", "1G", "-e", "1G", "--algo", algo, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out).at(0).at("busbw_GBps").get<double>();
}

TEST(DgxB200, RingAllReduceWithinNvlink5LineRate) {
  // A ring's bus bandwidth is bounded by the per-direction line rate, 900 GB/s on NVLink 5
  // (nccl-tests doc/PERFORMANCE.md, public.md D1); the protocol efficiency is NVLink 4's
  // (topologies/protocol_efficiency.cpp): 900 x 370/450 = 740 GB/s.
  const double busbw = dgx_b200_all_reduce_busbw_GBps("ring");
  EXPECT_LE(busbw, 900.0);
  EXPECT_NEAR(busbw, 740.0, 740.0 * 0.03);
}

TEST(DgxB200, AutoPicksNvlsWithinItsBound) {
  // NVLink SHARP: each GPU moves S (1 + 1/n) bytes, so algbw <= 900 / (1 + 1/8) = 800 GB/s and
  // busbw = algbw x 2 (n - 1) / n <= 1400 GB/s. Auto takes it over the ring at 1 GiB.
  const double busbw = dgx_b200_all_reduce_busbw_GBps("auto");
  EXPECT_LE(busbw, 800.0 * 2 * 7 / 8);
  EXPECT_GT(busbw, dgx_b200_all_reduce_busbw_GBps("ring"));
}

TEST(DgxB200, EveryBlackwellGpuRunsAStep) {
  for (const char* gpu : {"b200", "gb200", "b300", "gb300"}) {
    const auto r = testing::run_trainsim({"run", testing::source_path("scenarios/validation/nemo-b200-llama3-8b.ini"),
                                          "--set", std::string("cluster.gpu=") + gpu, "--json"});
    ASSERT_EQ(r.exit_code, 0) << gpu << ": " << r.err;
    EXPECT_GT(nlohmann::json::parse(r.out).at("tokens_per_s_per_gpu").get<double>(), 0) << gpu;
  }
}

}  // namespace
}  // namespace trainsim
