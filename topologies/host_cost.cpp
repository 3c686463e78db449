#include "topologies/host_cost.hpp"

namespace trainsim {

namespace {

// x86 hosts: measured by kernels/host/host_launch_cost.py over the 13,808 launches of two
// real PyTorch profiler traces of A100 ranks on x86 hosts (HolisticTraceAnalysis @ f4d0062,
// MIT; ../shared/data/profiles/): the median time from one kernel launch to the next on a
// host thread, 30 us, and the median cudaLaunchKernel call, 6 us (models/training_spec.hpp).
constexpr HostCost k_x86{30e-6, 6e-6};

// Grace (GB200, GB300): the same eager torch Linear forward (BF16, hidden 2048, 8,192 tokens)
// costs 37.08 us of CPU time on a GB200 node against 13.48 us on a DGX-H100 host
// (NVIDIA/TransformerEngine#2053, a maintainer's measurement; public.md D5): Grace's cores
// issue the same framework work 2.75 times slower. Applied to both x86 figures, a stated
// rule until a Grace profiler trace is measured.
constexpr double k_grace_over_x86 = 37.08 / 13.48;

// A Transformer Engine module call against a torch op doing the same work: the same BF16
// Linear forward costs 99.66 us of CPU as te.Linear and 37.08 us as torch.nn.Linear on GB200
// (NVIDIA/TransformerEngine#2053; 90.53 against 33.17 us on GH200, 2.73x). The issue gives no
// x86 te.Linear figure: the Grace ratio stands for both hosts, a stated rule.
constexpr double k_te_module_over_op = 99.66 / 37.08;

// A cuBLASLt GEMM issued without a memoized algorithm: RAFT measured about 10 us from entering
// its matmul wrapper to the kernel launch on an x86 host, about 5 us once the heuristic's
// choice, the descriptor and the layouts were memoized (NVIDIA/raft#1736, NVTX ranges): 5 us of
// set-up beyond the call that launches it. Transformer Engine memoizes none of it: every GEMM
// of a grouped GEMM creates its layouts, matmul descriptor and preference and asks
// cublasLtMatmulAlgoGetHeuristic again (transformer_engine/common/gemm/cublaslt_gemm.cu @ v2.9,
// cublas_gemm, looped over the experts by nvte_multi_stream_cublas_gemm).
constexpr double k_x86_gemm_setup_s = 10e-6 - 5e-6;

// A c10d collective call: in the same A100 x86 trace (hta-a100-control, HolisticTraceAnalysis
// @ f4d0062) the 60 NCCL collectives the host issues (42 all_to_all, 18 all_reduce, each a
// record_param_comms range around its nccl:* annotation) take a median 87.5 us of CPU each
// (quartiles 73 .. 121.5 us; kernels/host/host_launch_cost.py --collectives), the Python
// call around them apart.
constexpr double k_x86_collective_s = 87.5e-6;

// A weight's gradient handed back to autograd, once per weight and micro-batch (Megatron-Core's
// DDP with gradient-accumulation fusion, megatron/core/distributed/distributed_data_parallel.py
// @ 0d8e0714: a hook on every parameter's AccumulateGrad node; Transformer Engine v2.9
// module/grouped_linear.py, _GroupedLinear.backward: per expert weight a placeholder gradient
// from torch.empty (handle_custom_ddp_from_mcore, the real one went into main_grad) and
// clear_tensor_data of its saved input), two parts:
// - the autograd engine's AccumulateGrad evaluation that takes the gradient as the weight's
//   .grad without a kernel: median 9.0 us of CPU on the A100 x86 trace (hta-a100-control, 18
//   such evaluations, quartiles 4.8 .. 13.5 us; kernels/host/host_launch_cost.py
//   --accumulate-grad; with an add kernel 19.0 us over 1,536). Its Megatron-Core Python hook
//   (param.grad = None, register_grad_ready) is Python we have no measurement of: left out.
// - Transformer Engine's per-weight host work: "wgrad tensor allocations: 350 us" and
//   "clear_tensor_data: 200 us" for the fused grouped MLP's 2 x 64 expert weights on GB200
//   (NVIDIA/TransformerEngine#2897, a maintainer's profile): 4.3 us a weight on Grace.
constexpr double k_x86_accumulate_grad_s = 9.0e-6;
constexpr double k_grace_te_weight_gradient_s = (350e-6 + 200e-6) / 128.0;

// A view or slice of a tensor from Python: indexing a 1-d CPU tensor (`x[0]`) takes 1.05 us
// a call under %timeit on x86 (pytorch/pytorch#5388, the measurement); a trivial op
// costs about 2 us, half of it Python's parsing (pytorch/pytorch#41383, a maintainer's
// figure). No kernel, no allocation: the 1.05 us stands for a view, slice or .view(1).
constexpr double k_x86_tensor_view_s = 1.05e-6;

// The Megatron-Core / Transformer Engine stack's host time over the A100 trace's, on the
// figures that come from that trace (k_x86's op and launch, k_x86_collective_s,
// k_x86_accumulate_grad_s; Grace's follow at k_grace_over_x86 times x86's). Fitted, not
// measured: no public profiler trace of Megatron-Core with Transformer Engine on an x86 host
// exists to measure it in. The trace is a recommendation model's eager PyTorch; Megatron-Core's
// MoE layer issues its ops through deeper Python (the token dispatcher, the router, the
// per-expert bookkeeping of TE's GroupedLinear) and the MoE rows of public.md D5 run
// host-bound: in the HybridEP run on 16 H100 the GPU was active 22.82 s of a 24.71 s step
// (Megatron-Bridge SKILL.md @ 067f987d). One factor for the host stack, fitted once on every
// throughput row of scenarios/validation (public.md A1, A2, A3, A4, D5: dense and MoE, x86 and
// Grace) by `python3 scenarios/validation/fit_host_stack.py --trainsim build/trainsim`, the
// minimum of the mean absolute error in throughput over all rows on a grid 1.0 .. 3.0 by 0.1:
// 6.0 % over its 40 rows at 2.3, against 14.8 % at 1.0 (the trace's figures as they were),
// 6.1 % at 2.2 and at 2.4 (2026-12-07, main after the per-kernel memory floor, the per-layer
// graph replay, the step's metric logging and the ring's per-hop latency); the A100, H100 and
// B200 dense groups unmoved, the MLPerf group 6.5 -> 4.4 %, the A2/A3 MoE rows 23.7 -> 6.1 %
// (B200) and 48.0 -> 8.2 % (H100), the D5 checks 23.0 -> 4.8 % (H100), 12.0 -> 11.6 % (B200),
// 15.0 -> 13.1 % (GB200, whose BF16 row is -1.5 % at 1.4 and -22.3 % at 2.3: the group alone is best
// near 1.4, but the five Grace rows together are as good at 2.3, 9.2 % against 9.3 % at 1.4). The
// fitted 69 us an op is far above one eager torch Linear call's measured 13.48 us on a DGX-H100
// host (TE#2053): it stands for the Python between launches, spread over the ops. The measured
// in-stack figures (TE#2897's per-weight work, the RAFT cuBLASLt set-up, TE#2053's module
// ratio) stay as measured. What would replace it: a profiler trace of one Megatron-Core MoE
// layer on a DGX host, its launches measured by kernels/host/host_launch_cost.py.
constexpr double k_megatron_stack_over_trace = 2.3;

}  // namespace

double fitted_host_stack_factor() {
  return k_megatron_stack_over_trace;
}

HostCost host_cost(HostCpu host, double stack_factor) {
  const double op_s = k_x86.op_s * stack_factor;
  const double launch_s = k_x86.launch_s * stack_factor;
  const double collective_s = k_x86_collective_s * stack_factor;
  const double accumulate_grad_s = k_x86_accumulate_grad_s * stack_factor;
  if (host == HostCpu::grace)
    return {op_s * k_grace_over_x86,
            launch_s * k_grace_over_x86,
            k_te_module_over_op,
            k_x86_gemm_setup_s * k_grace_over_x86,
            collective_s * k_grace_over_x86,
            accumulate_grad_s * k_grace_over_x86 + k_grace_te_weight_gradient_s,
            k_x86_tensor_view_s * k_grace_over_x86};
  return {op_s,
          launch_s,
          k_te_module_over_op,
          k_x86_gemm_setup_s,
          collective_s,
          accumulate_grad_s + k_grace_te_weight_gradient_s / k_grace_over_x86,
          k_x86_tensor_view_s};
}

HostCost host_cost(HostCpu host) {
  return host_cost(host, k_megatron_stack_over_trace);
}

}  // namespace trainsim
