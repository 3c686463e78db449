// What the host spends on each op by the call that issues it (sim/step/module_host_call.hpp):
// a Transformer Engine module call costs its measured multiple of a torch op, a kernel the
// module launches from inside costs the launch call only.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/step/host_bound_pass.hpp"
#include "sim/step/module_host_call.hpp"

namespace trainsim {
namespace {

Op op(const std::string& name, OpKind kind, double gpu_s = 0, int kernels = 1, bool host_sync = false) {
  Op o;
  o.name = name;
  o.kind = kind;
  o.flops = gpu_s;
  o.kernels = kernels;
  o.host_sync = host_sync;
  return o;
}

// Times each op by the seconds it carries in `flops`.
class GivenTimes final : public ComputeModel {
 public:
  double op_time_s(const Op& o) const override { return o.flops; }
  std::string description() const override { return "given times"; }
};

constexpr double k_us = 1e-6;

TEST(ModuleHostCall, EachOpIsIssuedByTheCallMegatronCoreMakes) {
  EXPECT_EQ(host_call(op("qkv", OpKind::gemm)), HostCall::te_module);
  EXPECT_EQ(host_call(op("attention.proj.dgrad", OpKind::gemm)), HostCall::te_module);
  EXPECT_EQ(host_call(op("experts.up", OpKind::gemm, 0, 16)), HostCall::te_module);
  EXPECT_EQ(host_call(op("attention", OpKind::attention)), HostCall::te_module);
  EXPECT_EQ(host_call(op("mlp.norm", OpKind::norm)), HostCall::te_module);
  // Inside a module call: its casts, its weight gradient, the norm fused into linear_qkv.
  EXPECT_EQ(host_call(op("qkv.quantize", OpKind::elementwise, 0, 3)), HostCall::inside_module);
  EXPECT_EQ(host_call(op("experts.up.quantize.bwd", OpKind::elementwise)), HostCall::inside_module);
  EXPECT_EQ(host_call(op("qkv.wgrad", OpKind::gemm)), HostCall::inside_module);
  EXPECT_EQ(host_call(op("qkv.wgrad.accumulate", OpKind::elementwise)), HostCall::inside_module);
  EXPECT_EQ(host_call(op("attention.norm", OpKind::norm)), HostCall::inside_module);
  EXPECT_EQ(host_call(op("attention.norm.bwd", OpKind::norm)), HostCall::inside_module);
  // Megatron-Core's own and PyTorch's: the router's GEMM, the permutations, the residuals.
  EXPECT_EQ(host_call(op("router", OpKind::gemm)), HostCall::framework_op);
  EXPECT_EQ(host_call(op("router.dgrad", OpKind::gemm)), HostCall::framework_op);
  EXPECT_EQ(host_call(op("moe.permute", OpKind::elementwise, 0, 4)), HostCall::framework_op);
  EXPECT_EQ(host_call(op("mlp.residual", OpKind::elementwise)), HostCall::framework_op);
}

TEST(ModuleHostCall, AModuleCallCostsItsMeasuredMultipleOfAnOp) {
  const HostLaunchCost host{30 * k_us, 6 * k_us, 2.5};
  // A grouped GEMM of 16 experts: one module dispatch (75 us) and 15 launches of 6 us.
  EXPECT_NEAR(host_seconds(op("experts.up", OpKind::gemm, 0, 16), host), (75 + 15 * 6) * k_us, 1e-15);
  // Its casts, 48 kernels launched from inside the module: 48 launch calls.
  EXPECT_NEAR(host_seconds(op("experts.up.quantize", OpKind::elementwise, 0, 48), host), 48 * 6 * k_us, 1e-15);
  // A torch op: one dispatch as before.
  EXPECT_NEAR(host_seconds(op("moe.permute", OpKind::elementwise, 0, 4), host), (30 + 3 * 6) * k_us, 1e-15);
  // No host model, no host time.
  EXPECT_DOUBLE_EQ(host_seconds(op("qkv", OpKind::gemm), HostLaunchCost{}), 0.0);
}

TEST(ModuleHostCall, AfterTheSyncTheModulesPaceSetsTheLayers) {
  const GivenTimes gpu;
  // A layer played from its sync: a 1 us permutation, a grouped GEMM (16 kernels, 80 us on the
  // GPU), a 10 us residual, then the next layer's 1 ms kernel before its own sync. The GPU
  // starts that kernel once launched: at 210 us with the grouped GEMM dispatched as a torch op
  // (30 + 30 + 15 x 6 + 30 + 30), 119 us beyond the 1,091 us of kernels; dispatched as a
  // Transformer Engine module call at 2.5 x, 45 us later.
  const std::vector<Op> ops{op("long", OpKind::elementwise, 1e-3, 1),
                            op("moe.permute", OpKind::elementwise, 1 * k_us, 1, true),
                            op("experts.up", OpKind::gemm, 80 * k_us, 16),
                            op("mlp.residual", OpKind::elementwise, 10 * k_us, 1)};
  const double torch = host_bound_excess_s(ops, gpu, 1.0, HostLaunchCost{30 * k_us, 6 * k_us, 1.0});
  const double te = host_bound_excess_s(ops, gpu, 1.0, HostLaunchCost{30 * k_us, 6 * k_us, 2.5});
  EXPECT_NEAR(torch, 119 * k_us, 1e-12);
  EXPECT_NEAR(te - torch, 45 * k_us, 1e-12);
}

TEST(ModuleHostCall, EveryHostTypeCarriesTheMeasuredModuleFactor) {
  // NVIDIA/TransformerEngine#2053: te.Linear 99.66 us against torch.nn.Linear 37.08 us of CPU.
  EXPECT_NEAR(host_cost(HostCpu::x86).module_factor, 99.66 / 37.08, 1e-12);
  EXPECT_NEAR(host_cost(HostCpu::grace).module_factor, 99.66 / 37.08, 1e-12);
  EXPECT_NEAR(host_launch_cost(TrainingSpec{}, HostCpu::x86).module_factor, 99.66 / 37.08, 1e-12);
}

}  // namespace
}  // namespace trainsim
