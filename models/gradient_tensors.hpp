#pragma once
// The tensors of a model chunk's dense gradient buffer on one GPU, in the order the backward
// produces them, and the buckets Megatron-Core cuts them into.
//
// Megatron-Core lays a chunk's gradient buffer out parameter tensor by parameter tensor in the
// reverse of the modules' registration order (the order the backward reaches them) and closes
// a bucket as soon as it holds at least bucket_size elements, never splitting a tensor
// (NVIDIA/Megatron-LM @ 1e0cb149, megatron/core/distributed/param_and_grad_buffer.py,
// _ParamAndGradBuffer.__init__: `for param in params[::-1]`, a new bucket once
// `param_end_index - bucket_start_index >= bucket_size`). So the bucket the backward issues
// last is whatever follows the last closed bucket: on the first pipeline stage it always
// holds the whole token embedding, the last tensor the backward reaches.

#include <vector>

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/stage_partition.hpp"

namespace trainsim {

/// Parameters of each tensor of `chunk`'s dense gradient buffer on one GPU, in backward order
/// (the reverse of Megatron-Core's GPTModel registration order: embedding, layers, final
/// norm, multi-token prediction modules, output layer). A layer holds, under Transformer
/// Engine's fused modules, the QKV projection's norm and weight (MLA: the query and key-value
/// up-projections, and the replicated down-projections and norms as one tensor), the output
/// projection, the MLP's norm, first and second weights (MoE: the router and the shared
/// experts; the routed experts live in the expert buffer and are not listed). Split over TP as
/// models/stage_parameters.cpp splits them.
std::vector<double> chunk_gradient_tensors(const ModelSpec& model, const ParallelSpec& parallel,
                                           const ModelChunk& chunk);

/// Megatron-Core's buckets over `tensors` (in backward order): each closed once it holds at
/// least `bucket` (same units), the last one what is left. Returns each bucket's size in issue
/// order; one bucket holding everything when `bucket` <= 0.
std::vector<double> bucket_sizes(const std::vector<double>& tensors, double bucket);

}  // namespace trainsim
