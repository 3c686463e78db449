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

}  // namespace

HostCost host_cost(HostCpu host) {
  if (host == HostCpu::grace)
    return {k_x86.op_s * k_grace_over_x86, k_x86.launch_s * k_grace_over_x86, k_te_module_over_op,
            k_x86_gemm_setup_s * k_grace_over_x86, k_x86_collective_s * k_grace_over_x86,
            k_x86_accumulate_grad_s * k_grace_over_x86 + k_grace_te_weight_gradient_s};
  return {k_x86.op_s, k_x86.launch_s, k_te_module_over_op, k_x86_gemm_setup_s, k_x86_collective_s,
          k_x86_accumulate_grad_s + k_grace_te_weight_gradient_s / k_grace_over_x86};
}

}  // namespace trainsim
