// The Blackwell GPU presets and the DGX B200 cluster preset carry the datasheet figures cited
// in topologies/presets/gpus/ and topologies/presets/clusters/; the older presets keep
// theirs.

#include <gtest/gtest.h>

#include "topologies/cluster_spec.hpp"
#include "topologies/gpu_spec.hpp"
#include "topologies/host_cost.hpp"

namespace trainsim {
namespace {

constexpr double k_mib = 1024.0 * 1024.0;

struct Datasheet {
  const char* name;
  double memory_mib;  // nvidia-smi memory.total
  double bf16_tflops;
  double fp8_tflops;
  double nvfp4_tflops;
  double tdp_w;
};

TEST(GpuPresets, BlackwellDatasheetFigures) {
  for (const Datasheet& d :
       {Datasheet{"b200", 183359, 2250, 4500, 9000, 1000}, Datasheet{"gb200", 189471, 2500, 5000, 10000, 1200},
        Datasheet{"b300", 275040, 2250, 4500, 14000, 1100}, Datasheet{"gb300", 284208, 2500, 5000, 15000, 1400}}) {
    const auto g = gpu_preset(d.name);
    ASSERT_TRUE(g) << d.name;
    EXPECT_EQ(g->name, d.name);
    EXPECT_DOUBLE_EQ(g->memory_bytes, d.memory_mib * k_mib) << d.name;
    EXPECT_DOUBLE_EQ(g->peak_bf16_flops, d.bf16_tflops * 1e12) << d.name;
    EXPECT_DOUBLE_EQ(g->peak_fp8_flops, d.fp8_tflops * 1e12) << d.name;
    EXPECT_DOUBLE_EQ(g->peak_mxfp8_flops, d.fp8_tflops * 1e12) << d.name;  // the FP8 tensor cores' rate
    EXPECT_DOUBLE_EQ(g->peak_nvfp4_flops, d.nvfp4_tflops * 1e12) << d.name;
    EXPECT_DOUBLE_EQ(g->hbm_bandwidth_Bps, 8e12) << d.name;
    EXPECT_DOUBLE_EQ(g->nvlink_bandwidth_Bps, 900e9) << d.name;  // NVLink 5: 1.8 TB/s both ways
    EXPECT_DOUBLE_EQ(g->tdp_w, d.tdp_w) << d.name;
    EXPECT_DOUBLE_EQ(g->tp_overlap_slowdown, 0) << d.name;  // no fitted factor (issue 56)
    EXPECT_TRUE(g->has_fp8() && g->has_mxfp8() && g->has_nvfp4()) << d.name;
  }
}

TEST(GpuPresets, HopperAndAmpereHaveNoMicroscalingFormats) {
  for (const char* name : {"a100-80g", "h100-sxm", "h200"}) {
    EXPECT_FALSE(gpu_preset(name)->has_mxfp8()) << name;
    EXPECT_FALSE(gpu_preset(name)->has_nvfp4()) << name;
  }
}

TEST(GpuPresets, EveryListedNameIsAPreset) {
  for (const std::string& name : gpu_preset_names()) EXPECT_TRUE(gpu_preset(name)) << name;
  EXPECT_FALSE(gpu_preset("b100"));
}

TEST(ClusterPresets, DgxB200) {
  const auto c = cluster_preset("dgx-b200");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->gpu.name, "b200");
  EXPECT_EQ(c->gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(c->nvlink_bandwidth_Bps, 900e9);
  EXPECT_EQ(c->nics_per_node, 8);
  EXPECT_DOUBLE_EQ(c->nic_bandwidth_Bps, 400e9 / 8);  // ConnectX-7, 400 Gb/s
  EXPECT_EQ(c->fabric, Fabric::rail_optimized);
  for (const std::string& name : cluster_preset_names()) EXPECT_TRUE(cluster_preset(name)) << name;
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

TEST(HostCost, GraceIssuesWorkSlowerThanX86) {
  // The A100 trace's x86 figures (factor 1): 30 us per op and 6 us per launch; Grace: 37.08 /
  // 13.48 times that (TransformerEngine#2053: one torch Linear forward's CPU time on GB200 and
  // DGX-H100).
  EXPECT_DOUBLE_EQ(host_cost(HostCpu::x86, 1.0).op_s, 30e-6);
  EXPECT_DOUBLE_EQ(host_cost(HostCpu::x86, 1.0).launch_s, 6e-6);
  EXPECT_NEAR(host_cost(HostCpu::grace, 1.0).op_s, 82.5e-6, 0.1e-6);
  EXPECT_NEAR(host_cost(HostCpu::grace, 1.0).launch_s, 16.5e-6, 0.1e-6);
  for (const char* name : {"gb200-nvl72", "gb300-nvl72"}) EXPECT_EQ(cluster_preset(name)->host, HostCpu::grace) << name;
  for (const char* name : {"dgx-a100", "dgx-h100", "hgx-h200", "dgx-b200"})
    EXPECT_EQ(cluster_preset(name)->host, HostCpu::x86) << name;
}

// The stack factor (the fitted Megatron-Core / TE host time over the A100 trace's) multiplies
// the figures from that trace: per op, per launch, per c10d collective call, the AccumulateGrad
// evaluation; on Grace too, at 37.08 / 13.48 times x86's. TE's own measured figures stay: the
// module ratio (TE#2053), the cuBLASLt set-up (RAFT#1736) and TE#2897's per-weight work.
TEST(HostCost, TheStackFactorScalesTheTraceFiguresOnly) {
  const double f = fitted_host_stack_factor();
  EXPECT_GE(f, 1.0);  // Megatron-Core's stack is no lighter than the trace's eager PyTorch
  const double grace = 37.08 / 13.48;
  const double te_weight_grace = (350e-6 + 200e-6) / 128.0;  // TE#2897 on GB200
  for (const double k : {1.0, 2.5, f}) {
    const HostCost x = host_cost(HostCpu::x86, k);
    const HostCost g = host_cost(HostCpu::grace, k);
    EXPECT_NEAR(x.op_s, k * 30e-6, 1e-15) << k;
    EXPECT_NEAR(x.launch_s, k * 6e-6, 1e-15) << k;
    EXPECT_NEAR(x.collective_s, k * 87.5e-6, 1e-15) << k;
    EXPECT_NEAR(x.weight_gradient_s, k * 9e-6 + te_weight_grace / grace, 1e-15) << k;
    EXPECT_NEAR(x.gemm_setup_s, 5e-6, 1e-15) << k;
    EXPECT_NEAR(x.module_factor, 99.66 / 37.08, 1e-12) << k;
    EXPECT_NEAR(g.op_s, k * 30e-6 * grace, 1e-15) << k;
    EXPECT_NEAR(g.launch_s, k * 6e-6 * grace, 1e-15) << k;
    EXPECT_NEAR(g.collective_s, k * 87.5e-6 * grace, 1e-15) << k;
    EXPECT_NEAR(g.weight_gradient_s, k * 9e-6 * grace + te_weight_grace, 1e-15) << k;
    EXPECT_NEAR(g.gemm_setup_s, 5e-6 * grace, 1e-15) << k;
  }
  // Unstated, the fitted factor.
  EXPECT_DOUBLE_EQ(host_cost(HostCpu::x86).op_s, host_cost(HostCpu::x86, f).op_s);
  EXPECT_DOUBLE_EQ(host_cost(HostCpu::grace).weight_gradient_s, host_cost(HostCpu::grace, f).weight_gradient_s);
}

}  // namespace
}  // namespace trainsim
