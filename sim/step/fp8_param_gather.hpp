#pragma once
// FP8 parameter all-gather (training.fp8_param_gather; Megatron-LM --fp8-param-gather, set by
// MLPerf v5.1's config_common.sh FP8_PARAM_GATHER=True): the linear layers' weights are kept
// as Transformer Engine Float8Tensors, so the distributed optimizer all-gathers them one byte
// a parameter and the forward uses them as they are, with no per-step cast of the whole
// weight (models/cast_ops.hpp weight_quantize_op is what runs without it). Instead each rank
// casts its own shard of the fp32 master weights after the update, as Megatron-Core and
// Transformer Engine run it (megatron/core/optimizer/distrib_optimizer.py
// _copy_main_params_to_model_params -> fp8_utils.py quantize_param_shard @ 25.09-alpha.rc1
// (d3391901), the tag MLPerf v5.1's Dockerfile builds; TransformerEngine release_v2.8
// (40c69e75) pytorch/tensor/utils.py cast_master_weights_to_fp8, current and delayed scaling):
//
// - per fp8 weight whose master shard this rank holds: master_weight.to(bf16) (reads 4 bytes
//   an element, writes 2), tex.compute_amax of it (reads 2), then the cast with the agreed
//   scale, Float8Quantizer.update_quantized (reads 2, writes 1): 11 bytes a shard element in
//   three kernels, each a framework call on the host;
// - one torch.distributed.all_reduce (MAX) of every fp8 weight's amax, packed one fp32 each,
//   over the distributed optimizer's data-parallel group (the dp x cp ranks), between the
//   amax kernels and the casts, which wait for it: fp8_param_amax_allreduce, of optimizer;
// - two torch.zeros (the overflow flag and the packed amaxes) and one
//   multi_tensor_compute_scale_and_scale_inv over all of them;
// - on Hopper the weight's transposed copy, which Blackwell does not need
//   (TrainingSpec::fp8_single_copy), is written again from the gathered weight once a step
//   (utils.py: _reset_caches, "we cannot create transpose cache here"): one byte read and
//   one written a weight element.
//
// Only the dense layers' four linear weights (QKV, projection, fc1, fc2) are counted as fp8
// tensors; MoE layers' expert weights are counted as a dense layer's (as
// host_ops_after_norm does); norms, the embedding and the output layer stay bf16 and are
// gathered at 2 bytes. The loop also runs over every fp8 weight of the model, not only the
// shard's: per weight three views or slices (current scaling: the weight's slot of the packed
// amaxes, its quantizer's scale and its scale_inv, each .view(1); delayed scaling: the amax,
// scale and scale_inv views), at a Python tensor view's measured host cost
// (topologies/host_cost.hpp HostCost::tensor_view_s), before the amax all-reduce. The quantizer look-ups
// and cache resets beside them (attribute work with no tensor call) are not priced: no
// measured per-call figure for them is at hand.

#include <vector>

#include "models/op.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/step/stage_costs.hpp"

namespace trainsim {

/// True where training.fp8_param_gather is set (precision fp8 under ZeRO 1 or 2: the scenario
/// rules refuse the rest).
bool gathers_fp8_parameters(const Scenario& scenario);

/// The linear weights cast to fp8 in `cast_layers` transformer layers: four each.
int fp8_weight_tensors(int cast_layers);

/// Bytes of the parameter all-gather's output on this GPU: `weight_bytes` of weights of
/// `per_param_weight_bytes` each, of which `fp8_parameters` (the cast layers' parameters) go
/// at one byte under fp8_param_gather.
double gathered_weight_bytes(const Scenario& scenario, double weight_bytes, double fp8_parameters,
                             double per_param_weight_bytes);

/// The memory-bound ops of the step's weight casts under fp8_param_gather: this rank's shard
/// (`fp8_parameters` / `shard_ranks`) cast from its fp32 master copy in `shard_tensors`
/// tensors, and on Hopper the transposed copy of all `fp8_parameters` in `tensors` tensors.
std::vector<Op> fp8_shard_cast_ops(const Scenario& scenario, double fp8_parameters, int shard_ranks, int tensors,
                                   int shard_tensors);

/// The fp8 weights whose master shard a rank holds among `tensors` spread over `shard_ranks`
/// ranks: its share, rounded up, plus the one it starts inside (as host_ops_after_norm counts
/// the shard's copies).
int shard_tensors(int tensors, int shard_ranks);

/// Seconds of the packed amax all-reduce (4 bytes a tensor, `tensors` tensors) over the
/// scenario's dp x cp ranks, at NCCL's latency model (fixed_costs.hpp small_allreduce_s); 0
/// without fp8_param_gather or for one rank.
double fp8_param_amax_allreduce_s(const Scenario& scenario, int tensors);

/// The framework calls the host makes for the shard casts after the norm's sync:
/// three per shard tensor, two zeros, one multi-tensor scale update and the all-reduce's call
/// (its c10d cost is added by the caller).
int fp8_param_gather_host_ops(int shard_tensors);

/// The tensor views the cast loop takes over the model's `fp8_tensors` fp8 weights (three
/// each), whatever the shard.
int fp8_weight_loop_views(int fp8_tensors);

/// The stage's weight casts of a step, into `stage`: without fp8_param_gather the whole
/// `cast_parameters` cast after the update (weight_quantize_op, into optimizer_s); with it the
/// shard casts (into optimizer_s), the amax all-reduce (fp8_param_amax_allreduce_s) and the
/// gathered weights at one byte a cast parameter (dense_weight_bytes, of `per_param_weight_bytes`
/// a parameter before). `cast_layers`: the stage's layers whose linear weights are fp8.
void add_weight_casts(StageCosts& stage, const Scenario& scenario, const ComputeModel& compute,
                      double cast_parameters, int cast_layers, double per_param_weight_bytes);

}  // namespace trainsim
