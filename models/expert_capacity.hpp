#pragma once
// Token dropping as Megatron-Core runs it (NVIDIA/Megatron-LM @ d98e8a64,
// megatron/core/transformer/moe/): with moe_expert_capacity_factor (model.capacity_factor) an
// expert takes at most capacity = ceil(tokens x top_k / experts x factor) of a rank's
// (token, expert) pairs (moe_utils.py get_capacity, called from apply_router_token_dropping
// and from the alltoall dispatcher's preprocess with the rank's tokens x moe_router_topk),
// dropping the rest by lowest probability or latest position (moe_token_drop_policy).
//
// - Without padding the counts still vary: the alltoall dispatcher copies the dropped-to
//   count to the host before its first permutation (preprocess, "before_permutation_1"), so
//   the host sync stays and the experts run the rows that survive.
// - With moe_pad_expert_input_to_capacity (model.pad_to_capacity) every rank sends every
//   expert exactly `capacity` rows (the capacity mask itself is the routing map, tokens not
//   routed there filling it at probability 0): the all-to-all splits, the rows each local
//   expert runs (capacity x ep x tp) and the output sizes are known on the host, so
//   preprocess returns without the all-gather of token counts and without any device-to-host
//   copy or sync (_maybe_dtoh_and_synchronize does nothing under drop_and_pad), and the local
//   re-sort by expert is a view, transpose and contiguous copy of fixed shape instead of
//   sort_chunks_by_idxs (dispatch_preprocess / combine_preprocess). GEMMs and all-to-alls run
//   at the padded size; model FLOPs count only the pairs kept.
// - moe_expert_rank_capacity_factor (model.rank_capacity_factor, HybridEP only:
//   transformer_config.py) pre-sizes each rank's receive buffer to tokens x top_k x factor
//   (token_dispatcher.py, _HybridEPManager.setup_metadata): no host sync; the rank's expert
//   GEMMs run the rows received (their counts stay on the device), the excess is dropped.

#include <cstdint>
#include <vector>

#include "models/model_spec.hpp"
#include "models/op.hpp"
#include "models/parallel_spec.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// Megatron-Core's get_capacity: rows one expert takes from `tokens` tokens routed to `top_k`
/// of `experts` each, at `capacity_factor` (> 0): ceil(tokens x top_k / experts x factor).
double expert_capacity(double tokens, int experts, int top_k, double capacity_factor);

/// The tokens one rank's dispatcher routes per micro-batch: micro_batch x seq_len / cp, over
/// tp with sequence parallelism (Megatron-Core dispatches each rank's sequence shard).
double dispatcher_tokens(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel);

/// Every expert runs exactly its capacity: model.capacity_factor > 0 and pad_to_capacity.
bool pads_to_capacity(const ModelSpec& model);

/// The MoE layer's shapes are known on the host (padding, or a rank budget): no
/// device-to-host sync per MoE layer, full-iteration CUDA graphs possible.
bool static_expert_shapes(const ModelSpec& model);

/// Padded rows over the balanced rows (capacity x experts / (tokens x top_k)); 1 when not
/// padding.
double padded_row_share(const ModelSpec& model, double tokens);

/// What the expert GEMMs and token all-to-alls of one rank run, over the balanced share: the
/// padded share when padding, else the busiest rank's routed rows within the caps
/// (expert_loads, models/expert_load.hpp).
double expert_row_load(const ModelSpec& model, const TrainingSpec& training, const ParallelSpec& parallel,
                       std::uint64_t seed);

/// Rows the MoE layer's activations are kept at, over the balanced share: the padded share, or
/// the rank budget (rank_capacity_factor, the buffer's size), else 1.
double expert_buffer_share(const ModelSpec& model, double tokens);

/// Scales the model FLOPs of the routed experts' ops ("experts.*") of `ops` by `kept`, the
/// share of (token, expert) pairs no cap drops; their executed FLOPs stay (padding runs them).
void keep_routed_model_flops(std::vector<Op>& ops, double kept);

}  // namespace trainsim
