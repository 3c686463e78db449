#pragma once
// Questions asked of a pass's ops by the step, the layer table and the checks: which ops are
// the attention core, and how many FLOPs a list of ops holds.

#include <vector>

#include "models/op.hpp"

namespace trainsim {

/// True for the attention core: the fused attention op, or unfused attention's score and
/// value products, softmax and dropout (and their gradients), and context parallelism's ring
/// pieces (models/cp_ring_attention.hpp): everything between QKV and the output projection.
bool is_attention_core(const Op& op);

/// Sum of model_flops (or flops, if `executed`) over ops.
double total_flops(const std::vector<Op>& ops, bool executed = false);

}  // namespace trainsim
