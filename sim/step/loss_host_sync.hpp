#pragma once
// The loss read on the host before the optimizer step (training.loss_host_sync): NeMo 2's
// Lightning strategy, the one MLPerf Training v5.1's Llama 3.1 8B and 405B implementations run
// (NVIDIA/benchmarks/llama31_8b/implementations/nemo/pretrain.py @ 441d65f4, nl.MegatronStrategy),
// reduces the micro-batches' losses right after the forward-backward, before Lightning calls the
// optimizer (NVIDIA/NeMo @ 8cfedd72, nemo/lightning/megatron_parallel.py: MegatronParallel.forward
// calls the loss reduction's reduce after step(); MaskedTokenLossReduction.reduce keeps the
// micro-batches whose `loss_sum_and_ub_size[1] > 0`, a Python truth test of a CUDA tensor). The
// first such test is a device-to-host read that waits for everything queued before it, the
// whole forward-backward and the gradients' reduction included (under a full-iteration CUDA
// graph, the graph's replay). From then until the gradient norm's all-reduce is queued, the GPU
// has nothing to run but what the host dispatches, one op at a time (training.kernel_host_time;
// topologies/host_cost.hpp: x86 30 us times the host stack factor, Grace 2.75x, a c10d collective's call more):
//
// - per micro-batch, the comparison and the host's read of it (megatron_parallel.py
//   MaskedTokenLossReduction.reduce);
// - the reduction: torch.vstack and its sum, the all-reduce of the sum and token count over the
//   dp x cp ranks (a c10d call), and the division of the two (the same function);
// - Megatron-Core's optimizer step up to the norm's sync (NVIDIA/Megatron-LM @ d3391901, the
//   25.09-alpha.rc1 tag MLPerf's Dockerfile builds): prepare_grads, in the distributed
//   optimizer one `.float()` of each gradient tensor of the rank's shard
//   (distrib_optimizer.py _copy_model_grads_to_main_grads), then get_grad_norm_fp32's
//   torch.zeros, its multi-tensor L2 norm and the norm's square, and the all-reduce's c10d call
//   (clip_grads.py); the host then waits for the norm (`total_norm.item()`), where
//   host_after_norm (fixed_costs.hpp) takes over.
//
// The GPU work in that window (the loss's all-reduce at NCCL's latency, the casts, the norm's
// kernel, in optimizer_s) runs behind the dispatches. Every pipeline stage is charged: the
// losses are on the last stage, whose wait every rank shares through the norm's all-reduce. The
// Lightning loop's own Python around the step (hooks, logging, the scheduler) launches no
// kernel and is not priced: no measured per-call figure for it is at hand. Without the loss
// sync (Megatron-LM's and Megatron-Bridge's loops reduce the loss after the optimizer step) the
// host dispatches all this while the GPU still runs the backward: no cost.

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// The framework ops the host dispatches between the loss's host sync and the gradient norm's
/// sync, for a stage of `layers` transformer layers running `microbatches` micro-batches a
/// step, the two all-reduces' calls among them (their c10d work beyond an op:
/// k_loss_sync_collective_calls).
int host_ops_before_norm(const Scenario& scenario, int layers, int microbatches);

/// The c10d collective calls among those ops: the loss's all-reduce and the norm's.
inline constexpr int k_loss_sync_collective_calls = 2;

/// Seconds the GPU waits for those dispatches: host_ops_before_norm at the host's cost per op
/// and the collective calls at theirs; 0 without training.loss_host_sync or with the optimizer
/// on the host (training.offload = cpu).
double host_before_norm_s(const Scenario& scenario, int layers);

}  // namespace trainsim
