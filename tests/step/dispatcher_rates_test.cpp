// DeepEP's and HybridEP's dispatch and combine at their measured rates
// (sim/step/dispatcher_rates.hpp): every measured point is reproduced where it was measured,
// other EP sizes and SM counts are interpolated between the points, and a scenario's token
// all-to-all gets the rate of its dispatcher, fabric, EP size and SMs; NCCL's stays NCCL's.

#include <gtest/gtest.h>

#include "models/moe_dispatch.hpp"
#include "sim/step/dispatcher_rates.hpp"
#include "tests/step/moe_step_costs.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using testing::scenario;
using testing::Settings;

double pair_of(double dispatch_GBps, double combine_GBps) {
  return DispatcherRate{dispatch_GBps * 1e9, combine_GBps * 1e9}.pair_Bps();
}

TEST(DispatcherRates, EveryMeasuredPointIsReproduced) {
  ASSERT_FALSE(dispatcher_points().empty());
  for (const DispatcherPoint& p : dispatcher_points()) {
    const auto r = dispatcher_rate(p.dispatcher, p.fabric, p.ep, p.sms, p.line_GBps * 1e9);
    ASSERT_TRUE(r);
    EXPECT_NEAR(r->dispatch_Bps, p.dispatch_GBps * 1e9, 1e-9 * p.dispatch_GBps * 1e9) << p.ep << " " << p.sms;
    EXPECT_NEAR(r->combine_Bps, p.combine_GBps * 1e9, 1e-9 * p.combine_GBps * 1e9) << p.ep << " " << p.sms;
  }
}

TEST(DispatcherRates, InterpolatedByEpSizeAndSmsHeldAtTheEnds) {
  const auto at = [](int ep, int sms, double line = 900e9) {
    return dispatcher_rate(MoeDispatcher::hybridep, DispatcherFabric::nvlink5_rack, ep, sms, line)->dispatch_Bps;
  };
  // GB200 HybridEP: EP 8 550.10 / 545.71 and EP 16 472.84 / 523.48 GB/s on 16 / 32 SMs.
  EXPECT_NEAR(at(12, 16), (550.10 + 472.84) / 2 * 1e9, 1e3);
  EXPECT_NEAR(at(8, 24), (550.10 + 545.71) / 2 * 1e9, 1e3);
  EXPECT_NEAR(at(72, 16), at(36, 16), 1e3);  // beyond the largest EP measured
  EXPECT_NEAR(at(8, 64), 545.71e9, 1e3);     // beyond the most SMs measured
  EXPECT_NEAR(at(4, 8), 550.10e9, 1e3);
  // On another NVLink 5 rack, at its line rate's share (the same generation's links).
  EXPECT_NEAR(at(8, 16, 450e9), 550.10e9 / 2, 1e3);
  // Nothing measured: HybridEP inside an NVLink 4 node; NCCL's all-to-all is never in the table.
  EXPECT_FALSE(dispatcher_rate(MoeDispatcher::hybridep, DispatcherFabric::nvlink4_node, 8, 24, 450e9));
  EXPECT_FALSE(dispatcher_rate(MoeDispatcher::alltoall, DispatcherFabric::network, 16, 24, 50e9));
}

// A scenario's token all-to-all, per dispatcher, at a measured point: the rate on its send
// buffer is the measured pair (dispatch and combine), inside a domain as measured, across
// domains over the share of its rows that cross once per node (remote_peer_share); the engine
// then moves the buffer at that rate (tests/engine/kernel_rate_test.cpp).
TEST(DispatcherRates, DeepEpAtItsMeasuredPoints) {
  const Settings deepep{{"parallel.moe_dispatcher", "deepep"}};
  // One DGX B200, EP 8, 32 SMs: 619 / 524 GB/s (Torch API).
  const Scenario b200 = scenario(testing::k_small_qwen3, testing::merged(deepep, {{"cluster.preset", "dgx-b200"},
                                                                                  {"parallel.moe_dispatcher_sms", "32"}}));
  EXPECT_NEAR(dispatcher_kernel_Bps(b200, 8), pair_of(619, 524), 1e3);
  // An H800 node: 153 / 158 GB/s at its own 200 GB/s NVLink; an H100's NVLink 4 at 450.
  const Scenario h800 = scenario(testing::k_small_qwen3, testing::merged(deepep, {{"cluster.preset", "hgx-h800"}}));
  EXPECT_NEAR(dispatcher_kernel_Bps(h800, 8), pair_of(153, 158), 1e3);
  const Scenario h100 = scenario(testing::k_small_qwen3, deepep);
  EXPECT_NEAR(dispatcher_kernel_Bps(h100, 8), pair_of(153, 158) * 450 / 200, 1e3);
  // Two H800 nodes, EP 16: 43 / 43 GB/s of RDMA, counting a token once per node.
  const Scenario two = scenario(testing::k_small_qwen3, testing::merged(deepep, {{"cluster.preset", "hgx-h800"},
                                                                                 {"cluster.nodes", "2"},
                                                                                 {"parallel.ep", "16"}}));
  EXPECT_NEAR(dispatcher_kernel_Bps(two, 8), pair_of(43, 43) / remote_peer_share(two.model, two.parallel, 8), 1e3);
}

TEST(DispatcherRates, HybridEpAtItsMeasuredPoints) {
  const Settings hybridep{{"parallel.moe_dispatcher", "hybridep"}};
  // One DGX B200, EP 8, 16 SMs: 535.94 / 530.86 GB/s (Torch API).
  const Scenario b200 = scenario(testing::k_small_qwen3, testing::merged(hybridep, {{"cluster.preset", "dgx-b200"},
                                                                                    {"parallel.moe_dispatcher_sms", "16"}}));
  EXPECT_NEAR(dispatcher_kernel_Bps(b200, 8), pair_of(535.94, 530.86), 1e3);
  // GB200 NVL72, EP 16 in one rack on HybridEP's default 24 SMs: between 16 and 32.
  const Scenario rack = scenario(testing::k_small_qwen3, testing::merged(hybridep, {{"cluster.preset", "gb200-nvl72"},
                                                                                    {"cluster.nodes", "4"},
                                                                                    {"parallel.ep", "16"}}));
  EXPECT_NEAR(dispatcher_kernel_Bps(rack, 16), pair_of((472.84 + 523.48) / 2, (474.48 + 521.55) / 2), 1e3);
  // Two DGX H100 nodes, EP 16, HybridEP's own 8 SMs across nodes: 57.74 / 56.96 GB/s over IB.
  const Scenario two = scenario(testing::k_small_qwen3, testing::merged(hybridep, {{"cluster.nodes", "2"},
                                                                                   {"parallel.ep", "16"}}));
  EXPECT_NEAR(dispatcher_kernel_Bps(two, 8), pair_of(57.74, 56.96) / remote_peer_share(two.model, two.parallel, 8),
              1e3);
  // Inside one H100 node nothing is measured: NCCL's rate.
  EXPECT_EQ(dispatcher_kernel_Bps(scenario(testing::k_small_qwen3, hybridep), 8), 0.0);
}

TEST(DispatcherRates, NcclsAllToAllStaysNccls) {
  EXPECT_EQ(dispatcher_kernel_Bps(scenario(testing::k_small_qwen3), 8), 0.0);
}

}  // namespace
}  // namespace trainsim
