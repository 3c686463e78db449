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
  // (nccl-tests doc/PERFORMANCE.md, public.md D1). SimuMax's measured all-reduce on 8 B200
  // (public.md D4): 0.7424 of 900 GiB/s = 717.4 GB/s, latency 22.23 + 5.518 x 14 us = 99.5 us;
  // at 1 GiB 1.879 GB of bus bytes take 2.619 + 0.0995 ms: 691 GB/s.
  const double busbw = dgx_b200_all_reduce_busbw_GBps("ring");
  EXPECT_LE(busbw, 900.0);
  EXPECT_NEAR(busbw, 691.3, 691.3 * 0.01);
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

// The B200 step of scenarios/validation/nemo-b200-llama3-8b.ini in `precision`, as JSON.
nlohmann::json b200_step(const std::string& precision) {
  const auto r = testing::run_trainsim({"run", testing::source_path("scenarios/validation/nemo-b200-llama3-8b.ini"),
                                        "--set", "training.precision=" + precision, "--json"});
  EXPECT_EQ(r.exit_code, 0) << precision << ": " << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(DgxB200, BlockScaledPrecisions) {
  // MXFP8 GEMMs by the b200 table's mxfp8 rows: Transformer Engine measured the MXFP8 GEMMs of
  // a layer 1.05x its per-tensor FP8 ones (B300, kernel only; kernels/README.md), so the step is
  // slower than FP8's by at most that. NVFP4's GEMMs at their measured rate (0.265 x bf16 at
  // large shapes, pytorch/ao#2427): the Linear GEMMs run faster, the rest (attention, norms, the
  // output layer: bf16) does not, so the step speeds up by less than 2.
  const nlohmann::json fp8 = b200_step("fp8");
  const nlohmann::json mx = b200_step("mxfp8");
  const nlohmann::json fp4 = b200_step("nvfp4");
  const double fp8_s = fp8.at("step_time_s").get<double>();
  EXPECT_GT(mx.at("step_time_s").get<double>() / fp8_s, 1.0);
  EXPECT_LT(mx.at("step_time_s").get<double>() / fp8_s, 1.06);
  const double speedup = fp8_s / fp4.at("step_time_s").get<double>();
  EXPECT_GT(speedup, 1.1);
  EXPECT_LT(speedup, 2.0);
  // MFU against each format's own peak: NVFP4's is lower for the same model FLOPs.
  EXPECT_LT(fp4.at("mfu").get<double>(), fp8.at("mfu").get<double>());
}

TEST(DgxB200, BlockScaledPrecisionsNeedBlackwell) {
  for (const char* precision : {"mxfp8", "nvfp4"}) {
    const auto r = testing::run_trainsim({"run", testing::source_path("scenarios/validation/nemo-h100-llama3-8b.ini"),
                                          "--set", std::string("training.precision=") + precision});
    EXPECT_EQ(r.exit_code, 2) << precision;
    EXPECT_NE(r.err.find("training.precision"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("h100-sxm has no"), std::string::npos) << r.err;
  }
}

TEST(DgxB200, GbCalibrationTablePickedByAuto) {
  // kernels/calibration/gb200.csv (its own cuDNN attention measured, the rest derived from the
  // B200's: convert_public.py) is what `cluster.calibration = auto` (the scenario's default)
  // times gb200 by, not the datasheet roofline.
  const auto r = testing::run_trainsim({"run", testing::source_path("scenarios/validation/nemo-b200-llama3-8b.ini"),
                                        "--set", "cluster.gpu=gb200", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string model = nlohmann::json::parse(r.out).at("compute_model").get<std::string>();
  EXPECT_NE(model.find("calibration table"), std::string::npos) << model;
  EXPECT_NE(model.find("gb200.csv"), std::string::npos) << model;
  EXPECT_EQ(model.find("no calibration table"), std::string::npos) << model;
}

}  // namespace
}  // namespace trainsim
