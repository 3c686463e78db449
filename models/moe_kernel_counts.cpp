#include "models/moe_kernel_counts.hpp"

#include <string>

namespace trainsim {

namespace {

// Sources, all at the 25.11 container's code: Megatron-LM @ 0d8e0714
// megatron/core/transformer/moe/{router.py, moe_utils.py, token_dispatcher.py} (M below) and
// TransformerEngine @ v2.9 transformer_engine/pytorch/{router.py, permutation.py,
// triton/permutation.py, csrc/extensions/router.cpp} (TE below). Every TE fused router
// function is one autograd call whose C++ allocates with at::empty and runs one kernel; every
// TE permutation is one or more Triton kernels, each launched from Python.

KernelCount count(int calls) { return {calls, calls}; }

// router.topk, forward: with forced balance RandomSTE.forward (M moe_utils.py) clones the
// logits and fills them with normal_ (2); TE fused_topk_with_score_function (1); with a
// capacity factor apply_router_token_dropping (M moe_utils.py, drop policy probs): topk over
// the tokens, zeros_like, scatter, bool, probs x map (5). Backward: TE's top-k backward (1),
// autograd's sum of the logits' two gradients (top-k and the aux-loss scores: 1), the capacity
// mask's product (1); RandomSTE's backward passes the gradient through (0).
KernelCount router_topk(OpPass pass, const MoePath& p) {
  if (pass == OpPass::backward) return count(2 + (p.capacity ? 1 : 0));
  return count((p.forced_balance ? 2 : 0) + 1 + (p.capacity ? 5 : 0));
}

// router.aux_loss, forward (TopKRouter._apply_aux_loss, moe_router_load_balancing_type
// aux_loss as the Qwen3 and GPT-OSS providers set): TE fused_compute_score_for_moe_aux_loss
// (1), routing_map.sum over the tokens (1), TE fused_moe_aux_loss (1), and
// save_to_aux_losses_tracker's loss / coeff and += into the layer's slot (2); the TP/CP
// reduction is skipped at tp x cp = 1 and MoEAuxLossAutoScaler's forward launches nothing.
// Backward: MoEAuxLossAutoScaler.backward's ones_like and product (2), TE's aux-loss and
// score backwards (2).
KernelCount router_aux_loss(OpPass pass) { return count(pass == OpPass::backward ? 4 : 5); }

// moe.preprocess (MoEAlltoAllTokenDispatcher.preprocess, M token_dispatcher.py), forward
// only. Dropless with ep > 1: routing_map.sum, .long(), the input splits' sum, the gathered
// counts' slice made contiguous and its three sums (7; the all-gather of the counts is the
// step's collective); with a capacity factor and no padding also num_out_tokens' sum (1).
// Padded to capacity: the counts are torch.full, one of them on the GPU (1). moe.dtoh
// (_maybe_dtoh_and_synchronize), dropless only: four non-blocking device-to-host copies
// (tokens_per_expert, input_splits, output_splits, output_splits_tp) on the side stream, and
// num_out_tokens' with a capacity factor (5). Under a moe_preprocess CUDA graph they run after
// it (cuda_dtoh_point = before_ep_alltoall), eagerly: models/cuda_graphs.cpp.
KernelCount preprocess(const MoePath& p) {
  if (!p.dropless) return count(1);
  return count(7 + (p.capacity ? 1 : 0));
}

KernelCount dtoh(const MoePath& p) { return count(4 + (p.capacity ? 1 : 0)); }

// moe.permute: TE moe_permute_with_probs, make_row_id_map's three Triton passes and the
// permute kernel (4); its backward, unpermute_with_mask_map (1). moe.unpermute: TE
// moe_unpermute, one Triton kernel merging with the probabilities (1); backward
// unpermute_with_mask_map_bwd_with_merging_probs (1).
// experts.sort (sort_chunks_by_idxs, fused, with probs): make_chunk_sort_map and
// sort_chunks_by_map (2); backward sort_chunks_by_map (1). experts.unsort: the same without
// probs (2; 1). Padded (drop_and_pad): experts.reshape is view / transpose / contiguous of the
// tokens and of the probabilities (2 copies; backward 2), experts.unreshape of the outputs (1; 1).
std::optional<KernelCount> dispatcher_op(std::string_view name, OpPass pass) {
  const bool bwd = pass == OpPass::backward;
  if (name == "moe.permute") return count(bwd ? 1 : 4);
  if (name == "moe.unpermute") return count(1);
  if (name == "experts.sort" || name == "experts.unsort") return count(bwd ? 1 : 2);
  if (name == "experts.reshape") return count(2);
  if (name == "experts.unreshape") return count(1);
  return std::nullopt;
}

std::string_view base_name(std::string_view name) {
  return name.ends_with(".bwd") ? name.substr(0, name.size() - 4) : name;
}

}  // namespace

std::optional<KernelCount> moe_kernel_count(std::string_view name, OpPass pass, const MoePath& path) {
  const std::string_view base = base_name(name);
  // The recomputed forward runs the forward's calls again.
  const OpPass p = pass == OpPass::recompute ? OpPass::forward : pass;
  // The router is the same code whatever the dispatcher.
  if (base == "router.topk") return router_topk(p, path);
  if (base == "router.aux_loss") return router_aux_loss(p);
  if (!path.alltoall) return std::nullopt;
  if (base == "moe.preprocess") return preprocess(path);
  if (base == "moe.dtoh") return dtoh(path);
  return dispatcher_op(base, p);
}

void apply_moe_kernel_counts(std::vector<Op>& ops, const MoePath& path) {
  for (Op& op : ops) {
    const std::optional<KernelCount> c = moe_kernel_count(op.name, op.pass, path);
    if (!c) continue;
    op.calls = c->calls;
    op.kernels = c->kernels;
  }
}

}  // namespace trainsim
