#pragma once
// What the host CPU of a node costs the framework per op it dispatches: the host type of a
// cluster preset (x86 on DGX and HGX, Grace on GB200 and GB300 NVL72) gives the defaults of
// training.kernel_host_time and training.kernel_launch_time (sim/step/host_bound_pass.hpp).

namespace trainsim {

/// The CPU that issues a node's GPU work.
enum class HostCpu { x86, grace };

/// Host seconds per op dispatched (Python, operator dispatch, the first launch) and per
/// further kernel an op launches from its own loop.
struct HostCost {
  double op_s = 0;
  double launch_s = 0;
  /// A Transformer Engine module call's dispatch as a multiple of op_s
  /// (sim/step/module_host_call.hpp).
  double module_factor = 1;
  /// Host seconds a grouped GEMM's per-expert cuBLASLt GEMM takes beyond its launch call: the
  /// matmul descriptor, layouts and algorithm heuristic Transformer Engine builds for every
  /// GEMM it issues (sim/step/module_host_call.hpp).
  double gemm_setup_s = 0;
  /// Host seconds a torch.distributed collective call spends in c10d's NCCL process group
  /// beyond the framework call that issues it (op_s): the work object, its events and stream
  /// waits, the NCCL enqueue (sim/step/host_bound_pass.hpp, Op::collective_calls).
  double collective_s = 0;
  /// Host seconds per weight whose gradient a backward hands back to autograd: the engine's
  /// AccumulateGrad evaluation of the parameter (the gradient taken as its .grad, no kernel)
  /// and Transformer Engine's allocation of the placeholder gradient it returns and its
  /// release of the saved input (sim/step/host_bound_pass.hpp, weight_gradient_seconds).
  double weight_gradient_s = 0;
  /// Host seconds of one Python view or slice of a tensor (no kernel, no allocation), as
  /// measured on x86 and on Grace at its ratio to x86; not scaled by the stack factor (a
  /// measured figure: host_cost.cpp).
  double tensor_view_s = 0;
};

/// The Megatron-Core / Transformer Engine stack's host time over the A100 PyTorch trace's that
/// gives the x86 per-op, per-launch, per-collective and per-AccumulateGrad figures: the default
/// of training.host_stack_factor (fitted, not measured: host_cost.cpp).
double fitted_host_stack_factor();

/// The costs of `host` (sources in host_cost.cpp): the trace's figures times `stack_factor`
/// (the stack's host time over the trace's), the measured in-stack figures as measured.
HostCost host_cost(HostCpu host, double stack_factor);
/// host_cost(host, fitted_host_stack_factor()).
HostCost host_cost(HostCpu host);

}  // namespace trainsim
