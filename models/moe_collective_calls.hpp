#pragma once
// Where the host issues an MoE layer's collectives among its ops, on Megatron-Core's
// `alltoall` token dispatcher (MoEAlltoAllTokenDispatcher, megatron/core/transformer/moe/
// token_dispatcher.py @ 0d8e0714, the 25.11 container's code; megatron/core/tensor_parallel/
// mappings.py @ 0d8e0714 for the calls), each a torch.distributed call through c10d's NCCL
// process group that costs the host its own time (HostLaunchCost::collective_s,
// sim/step/host_bound_pass.hpp). Each is counted on the op whose first kernel the host launches
// next (Op::collective_calls); the collectives' time on the links is the step's
// (add_layer_expert_comm in sim/step/stage_costs.cpp), which counts the same collectives.
//
//   forward    dropless: the all-gather of the per-expert counts over the tp x ep group inside
//              preprocess (gather_from_sequence_parallel_region; none padded to capacity, where
//              the counts are set on the host): on moe.preprocess. The dispatch's two
//              all-to-alls, tokens and probabilities (token_dispatch: all_to_all, after the
//              host sync): on the op after moe.permute. The combine's all-to-all
//              (token_combine): on moe.unpermute. With expert_tp > 1 (dispatch_postprocess,
//              combine_preprocess) the tokens' and probabilities' all-gathers join the
//              dispatch's and the outputs' reduce-scatter the combine's.
//   backward   autograd's conjugates in reverse: the combine's all-to-all gradient (and the
//              reduce-scatter's all-gather) before the op after moe.unpermute.bwd; the
//              dispatch's two (and the all-gathers' reduce-scatters) on moe.permute.bwd. The
//              counts' all-gather has no gradient (integer counts).
//
// An all-to-all over one rank returns its input without a call (_AllToAll.forward), as does a
// gather over one. The flex dispatcher's DeepEP and HybridEP kernels are no c10d calls: not
// counted here.

#include <vector>

#include "models/moe_kernel_counts.hpp"
#include "models/op.hpp"

namespace trainsim {

/// The collective calls of one MoE layer's pass on `path` (its `dropless`, `alltoall`), with
/// `ep` expert-parallel and `expert_tp` expert tensor-parallel ranks: sets `collective_calls`
/// of the ops above in `ops` (one layer's pass, in launch order; `pass`: which one, the
/// recomputed forward as the forward). Nothing on the flex dispatcher.
void apply_moe_collective_calls(std::vector<Op>& ops, OpPass pass, const MoePath& path, int ep, int expert_tp);

}  // namespace trainsim
