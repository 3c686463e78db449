#pragma once
// The costs of a training step that do not shrink with the work each GPU does: as the same
// model spreads over more GPUs (fewer tokens each) they stay, so they take a growing share of
// a shorter step. Each is a mechanism with its source, charged where it happens, and reported
// by name (StepResult::fixed_costs_s, `trainsim run`'s "fixed per step" line):
//
// - amax_reductions (of tp_comm): Transformer Engine's current scaling (fp8 with
//   training.fp8_scaling) and nvfp4 all-reduce the amax of every sequence-parallel GEMM operand
//   over the TP group before casting it, so that the ranks' shards share one scale
//   (TransformerEngine @ 3ec87875, pytorch/module/linear.py, layernorm_linear.py,
//   layernorm_mlp.py: _customize_quantizers_float8_current_scaling and _nvfp4 set
//   with_amax_reduction on a column-parallel layer's input quantizer in the forward and a
//   row-parallel layer's output-gradient quantizer in the backward, when sequence_parallel):
//   per layer and micro-batch, two in the forward (the QKV and first MLP GEMMs' inputs) and two
//   in the backward (the output projection's and second MLP GEMM's output gradients), each one
//   fp32 on the TP group, blocking the cast that waits for it. Delayed scaling reads its scale
//   from the amax history instead: none.
// - grad_norm_allreduce (of optimizer): the gradient norm's one-float all-reduce over every
//   rank of the job (Megatron-LM megatron/core/optimizer/clip_grads.py get_grad_norm_fp32,
//   over the grad-stats group: the data-, context- and model-parallel ranks), at NCCL's own
//   latency for that many ranks and NVLink domains (sim/engine/nccl_latency.hpp: the faster
//   of ring and tree, tuning.cc's base and per-hop latencies).
// - host_after_norm (of optimizer): get_grad_norm_fp32 reads the norm on the host
//   (`total_norm.item()`), a device-to-host sync, so the GPU's queue is empty when the host
//   goes on to dispatch the rest of the step: the Adam kernels (one multi-tensor launch per
//   parameter group, weight decay and none: megatron/core/optimizer/__init__.py
//   _get_param_groups), the master weights' copy into the model's parameters, one copy per
//   parameter tensor of the rank's shard (distrib_optimizer.py
//   _copy_main_params_to_model_params; a dense layer holds 6 tensors under Transformer
//   Engine: QKV's weight and its fused norm's, the output projection's, the MLP's two weights
//   and its fused norm's; plus the embedding, output layer and final norm; a shard of the
//   dp x cp ranks holds its share of them and one more it starts inside), the parameter
//   all-gathers' launches under ZeRO 1 and 2, one per gradient bucket, when not left to the next
//   forward's pre-hooks (parallel.overlap_param_gather = false: start_param_sync with
//   force_sync), the gradient buffers' reset (param_and_grad_buffer.py, one zero_ per buffer),
//   and the next step's first launch (its full-iteration graph's replay, or its first op).
//   MoE layers' expert weights are counted as a dense layer's (fewer copies than run). The GPU waits
//   for those dispatches beyond the optimizer kernels they launch, each at the host's cost
//   per op (training.kernel_host_time; topologies/host_cost.hpp: x86 69 us, Grace 2.75x).
//   The full-iteration CUDA graph (Megatron-Core's FullCudaGraphWrapper) captures the forward
//   and backward only, so this work stays eager under it too, and adds its own: before each
//   replay FullCudaGraphWrapper.data_read takes every micro-batch of the step from the data
//   iterator and StaticBufferLoader copies each of its tensors into the graph's static input
//   buffers (megatron/core/full_cuda_graph.py @ d3391901, 25.09-alpha.rc1: one copy_ per
//   tensor), four a micro-batch as Megatron-Core's GPTDataset returns them without an attention
//   mask (datasets/gpt_dataset.py: tokens, labels, loss_mask, position_ids; NeMo 2's
//   PreTrainingDataModule leaves create_attention_mask off). Every stage is charged, as the
//   first stage's wait reaches the others through the pipeline.
// - host_before_norm (of optimizer): where the framework reads the loss on the host before the
//   optimizer step (training.loss_host_sync, NeMo 2), the GPU idles from the end of the
//   backward until the host has dispatched the loss's reduction and the optimizer's work up to
//   the norm's all-reduce (sim/step/loss_host_sync.hpp). That framework also logs the step's
//   metrics and reads them on the host at the step's end (sim/step/step_logging.hpp): its calls
//   are charged in these two windows, and the ops after the read are not hidden behind the
//   optimizer's kernels.

#include "sim/scenario/scenario.hpp"
#include "sim/step/fixed_cost_parts.hpp"
#include "sim/step/loss_host_sync.hpp"

namespace trainsim {

/// True where each sequence-parallel GEMM operand's amax is all-reduced over the TP group
/// before its cast: tp > 1 with sequence parallelism, under fp8 with current scaling or nvfp4.
bool reduces_amax_over_tp(const Scenario& scenario);

/// Bytes of one amax all-reduce: one fp32.
inline constexpr double k_amax_bytes = 4.0;

/// Seconds of an all-reduce of `bytes` over `ranks` GPUs in `domains` NVLink domains at NCCL's
/// model (the faster of ring and tree, tuning.cc's latencies); 0 for one rank.
double small_allreduce_s(double bytes, int ranks, int domains, double bus_Bps);

/// Seconds of the gradient norm's all-reduce of one fp32 over `ranks` GPUs in `domains`
/// NVLink domains, at NCCL's model (faster of ring and tree); 0 for one rank.
double grad_norm_allreduce_s(int ranks, int domains, double bus_Bps);

/// grad_norm_allreduce_s over every rank of `scenario` and its NVLink domains.
double grad_norm_allreduce_s(const Scenario& scenario);

/// Seconds the GPU waits for the host's dispatches after the norm's sync, beyond the
/// optimizer kernels (`optimizer_s`) they launch, for a stage of `layers` layers and
/// `gradient_bytes` of gradients: host_ops_after_norm at the host's cost per op.
double host_after_norm_s(const Scenario& scenario, int layers, double gradient_bytes, double optimizer_s);

/// The framework ops the host dispatches between the norm's host sync and the next step's
/// first launch, for a stage of `layers` transformer layers whose gradients fill `buckets`
/// buckets.
int host_ops_after_norm(const Scenario& scenario, int layers, int buckets);

/// The ops of host_ops_after_norm that come after the step's end, where the logger reads the
/// step's metrics (sim/step/step_logging.hpp): the gradient buffers' reset, the static batch
/// copies under a full-iteration graph and the next step's first launch.
int host_ops_after_step_read(const Scenario& scenario);

/// The parameter tensors of a stage of `layers` transformer layers, as the host's per-tensor
/// loops count them: six a dense layer under Transformer Engine, and the embedding, output
/// layer and final norm.
int parameter_tensors(int layers);

/// The shards the optimizer's states are cut into: the dp x cp ranks under ZeRO 1 and above, else 1.
int optimizer_shards(const Scenario& scenario);

/// The gradient buckets of `gradient_bytes` at training.dp_bucket_bytes (at least one).
int gradient_buckets(const Scenario& scenario, double gradient_bytes);

}  // namespace trainsim
