#pragma once
// What an MoE token dispatcher moves, by dispatcher (parallel.moe_dispatcher; Megatron-Core's
// moe_token_dispatcher_type and moe_flex_dispatcher_backend):
//
// - alltoall (MoEAlltoAllTokenDispatcher, NVIDIA/Megatron-LM
//   megatron/core/transformer/moe/token_dispatcher.py @ d98e8a64; public.md D5): the sender
//   permutes each token's top_k copies into expert order and the all-to-all carries one row
//   per (token, expert) pair (num_out_tokens = tokens x moe_router_topk), a token routed to two
//   experts of one rank crossing twice; a second all-to-all carries each row's routing
//   probability, and its gradient comes back in the backward; before the dispatch the
//   per-expert token counts are all-gathered over the expert group (forward only, as are
//   the split sizes the host waits for).
// - deepep and hybridep (the flex dispatcher with DeepEP's or HybridEP's kernels;
//   deepseek-ai/DeepEP README and docs/README_Hybrid-EP.md, public.md D5): the kernel sends a
//   token once to each rank holding any of its experts, with its weights in the same buffer,
//   and lays it out by source; the receiver permutes it into its local experts' order. The
//   counts come from DeepEP's own notify step, and from HybridEP's metadata scan of the routing
//   maps it all-gathers over the group first; the host still waits for them.
//
// On balance (forced or uniform routing) a token's top_k distinct experts fall on
// ep (1 - C(E - E/ep, k) / C(E, k)) distinct ranks of the expert group (the chance a rank
// holds none of them is hypergeometric).
//
// Group-limited routing (model.router_num_groups G, model.router_group_topk M; Megatron-Core's
// moe_router_num_groups and moe_router_group_topk, megatron/core/transformer/moe/moe_utils.py
// group_limited_topk @ d98e8a64): the experts split into G contiguous groups, each token
// picks M groups first and its top_k experts inside them. DeepSeek-V3 §2.1.2 ("node-limited
// routing": 8 groups, one per node, M = 4) bounds so each token reaches at most M nodes, and
// its all-to-all kernels (DeepEP README, "Normal kernels with NVLink and RDMA forwarding"; the
// DeepSeek-V3 report §3.2.2) send a token over the network once per destination node and fan
// it out over NVLink there: the bytes across NVLink domains fall with M. On balance the M
// groups are any M of the G alike and the top_k experts any of the M groups' experts alike, so
// a unit of experts (a rank, a domain) is reached unless none of the token's experts lands in
// the part of it the chosen groups cover (expected_destination_units). NCCL's alltoall sends a
// row per (token, expert) pair whatever the groups: on balance the share of them bound off
// the domain does not move (every expert is as likely to be chosen).

#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"

namespace trainsim {

/// Expected distinct ranks of `ranks` (each holding experts / ranks of the experts) that a
/// token's `top_k` distinct experts, drawn uniformly, fall on.
double expected_destination_ranks(int experts, int top_k, int ranks);

/// Expected distinct units of `units` (contiguous, each holding experts / units of the experts:
/// expert-parallel ranks, or NVLink domains of them) that a token's top_k experts fall on, with
/// `m`'s group-limited routing when it has one; without it expected_destination_ranks.
double expected_destination_units(const ModelSpec& m, int units);

/// Rows the dispatch all-to-all sends per dispatched token (and the combine returns):
/// top_k for alltoall, the expected destination ranks for deepep and hybridep (under
/// group-limited routing, expected_destination_units over the ranks).
double dispatched_rows_per_token(const ModelSpec& m, const ParallelSpec& p);

/// Across NVLink domains DeepEP and HybridEP send a token once per destination node (over
/// RDMA to the GPU of the sender's local index there, which forwards it over NVLink; DeepEP
/// README, "internode"; public.md D5), not once per destination rank: of the bytes a pairwise
/// all-to-all would send a GPU of another domain, this share, when `local` of the `ep` ranks
/// share each domain: expected destination domains over expected destination ranks,
/// edr(E, k, ep / local) / edr(E, k, ep) (expected_destination_units with group-limited
/// routing, which cuts the domains a token reaches to the groups it may use). 1 for alltoall (a row per token and
/// expert) and when the group is one domain. The NVLink forwarding on the receiving node is not priced (it runs beside
/// the RDMA, on links the NICs outpace).
double remote_peer_share(const ModelSpec& m, const ParallelSpec& p, int local);

/// Bytes of one routing probability as the alltoall dispatcher sends it: the router's fp32
/// scores (moe_router_dtype = "fp32" in Megatron-Bridge's Qwen3 and DeepSeek providers @
/// 00b7660b).
inline constexpr double k_routing_probability_bytes = 4.0;

/// Bytes of one per-expert token count (routing_map.sum(0).long(): int64).
inline constexpr double k_token_count_bytes = 8.0;

/// Bytes of one (token, expert) entry of the routing map HybridEP all-gathers: a bool
/// (hybrid_ep_buffer.py @ 94a9f8f6 asserts routing_map.dtype == torch.bool).
inline constexpr double k_routing_map_bytes = 1.0;

}  // namespace trainsim
