#pragma once
// What the host spends dispatching one op, by the kind of call that issues it in Megatron-Core
// with the Transformer Engine layer spec (megatron/core/models/gpt/gpt_layer_specs.py @
// d98e8a64: TELayerNormColumnParallelLinear, TERowParallelLinear, TENorm, TEDotProductAttention,
// TEColumnParallelGroupedLinear / TERowParallelGroupedLinear for the experts):
//
//   framework op   a PyTorch op (the router's gating GEMM, elementwise and memory kernels,
//                  the permutation kernels, the embedding and output layer): one dispatch,
//                  HostLaunchCost::op_s (measured from real traces, topologies/host_cost.hpp).
//   TE module      a Transformer Engine module's forward or its autograd backward (a layer
//                  GEMM's forward or input-gradient GEMM, fused attention, a norm): the
//                  module's Python, its quantizer and workspace set-up, more than a bare
//                  torch op: op_s x HostLaunchCost::module_factor. NVIDIA/TransformerEngine#2053
//                  measures the same BF16 Linear forward (hidden 2048, 8,192 tokens) at 99.66 us
//                  of CPU as te.Linear against 37.08 us as torch.nn.Linear on one GB200 host
//                  (2.69x) and 90.53 against 33.17 us on GH200 (2.73x).
//   inside module  kernels a TE module launches from its own C++ once called (its casts to
//                  FP8, the weight-gradient GEMM and its accumulation in the same backward
//                  call; the layer's input norm, fused into linear_qkv): the launch call
//                  only, HostLaunchCost::launch_s.
//
// The per-expert work of a grouped GEMM is one launch per further kernel, and for each expert's
// GEMM the cuBLASLt set-up Transformer Engine redoes per GEMM (HostCost::gemm_setup_s:
// descriptors and the algorithm heuristic, cublaslt_gemm.cu @ v2.9). Its per-split FP8
// quantization is counted kernel by kernel (models/cast_ops.hpp: amax, scale and cast per
// expert under current scaling); the split's allocation and quantizer conversion are left out,
// about 2 us on x86 (NVIDIA/TransformerEngine#2897: wgrad allocations 350 us and quantizer
// set-up 90 us for 64 experts on GB200, scaled by host_cost.cpp's Grace factor). #2897 profiles
// the fused grouped MLP (64 experts, GB200) at ~1.2 ms forward and ~2.1 ms backward of CPU, 19
// and 33 us an expert, the same order as the launch calls per expert Grace is given.
// What a quantized (FP8, MXFP8) GroupedLinear call does per expert in Python that a BF16 one does
// not (TransformerEngine v2.14 @ f031cf87, pytorch/module/grouped_linear.py): forward, its input's
// and its weight's quantizer set_usage, the input's update_usage and two prepare_for_saving of
// quantized tensors; backward, two restore_from_saved and the weight's update_usage: 8 calls,
// left out. At TE#2897's measured quantizer set-up (90 us for 128 weights on GB200: 0.7 us a
// call, 0.26 us on x86 at host_cost.cpp's Grace ratio) that is 90 us a Qwen3 30B layer on 16
// GB200 (8 local experts) and 66 us on 8 B200, under 1 % of either layer: not what keeps
// MXFP8's measured gain over BF16 near 1 there (public.md D5).

#include "models/op.hpp"

namespace trainsim {

enum class HostCall { framework_op, te_module, inside_module };

/// The call that issues `op` (the rules above, from its kind and name).
HostCall host_call(const Op& op);

}  // namespace trainsim
