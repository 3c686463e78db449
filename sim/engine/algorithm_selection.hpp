#pragma once
// The one place that decides which algorithm runs a collective.
//
// Default (CollectiveAlgo::automatic), what NCCL would pick:
// - all-reduce: ring or double binary tree, whichever NCCL's own alpha-beta model predicts
//   faster (NVIDIA/nccl src/graph/tuning.cc at 01afd20a, public.md D1, Simple protocol:
//   ring base 8.4 us, tree base 0; per hop NVLink 3.4 us, network ring 9.6 us, network tree
//   50 us; ring algBw = busBw x n / (2(n-1)), tree algBw = busBw x 0.5). Small buffers and
//   many nodes go to the tree, large buffers on few nodes to the ring. Inside one NVLink
//   domain whose switches reduce (H100, H200, Blackwell; an NVL72 rack counts as a node),
//   NVLink SHARP when it is faster still (nvls_algorithm.hpp): large buffers. Inside a domain
//   whose collectives were measured (NVLink 5, domain_collective.hpp) the measurement stands
//   for the ring and the tree. Across domains: NVLS-tree (nvls_tree_algorithm.hpp) where the
//   domains reduce and hold 2 or more of the group's GPUs each, CollNet (IB SHARP,
//   collnet_algorithm.hpp) where cluster.sharp, each when faster than the ring and tree: on
//   2 DGX nodes NVLS-tree takes large buffers, on 3 or more the ring; across NVL72 racks
//   NVLS-tree.
// - Across NVL72 racks (multi-node NVLink domains), all-reduce, all-gather and reduce-scatter:
//   the candidates of NCCL's tuning model at 5067397c (nccl_rack_model.hpp): ring, tree,
//   NVLS-tree, PAT at one GPU per rack, each with each protocol; the one run is the one whose
//   time as plan_collective() charges it is least (NCCL's latency, the trees' pipeline fill, the
//   bytes at the slower of NCCL's rate on its channels and the plan's busiest port alone), so
//   the time never falls as the buffer grows. NCCL picks by its model alone (no fill); where the
//   two disagree trainsim runs the cheaper of its own charges.
// - all-gather, reduce-scatter, broadcast: ring (NCCL 2.x has no other algorithm for them;
//   newer NCCL's NVLS all-gather and reduce-scatter measure no faster than the ring on
//   8 x H200: 361.4 / 362.9 GB/s, public.md D2).
// - all-to-all: pairwise point-to-point in NCCL's p2p batches (pairwise_algorithm.hpp); send/recv: direct.
// hierarchical is available on request only (NCCL does not implement it).

#include <memory>

#include "sim/engine/collective.hpp"
#include "sim/engine/collective_algorithm.hpp"
#include "sim/engine/comm_plan.hpp"
#include "sim/engine/nccl_latency.hpp"
#include "sim/engine/platform.hpp"

namespace trainsim::engine {

/// The algorithm `call` runs with: its explicit choice, or NCCL's. Throws InputError when
/// the call is invalid (GPU out of range or repeated, negative size, root out of range) or
/// the explicit algorithm does not implement the operation.
CollectiveAlgo choose_algorithm(const CollectiveCall& call, const Platform& platform);

/// The implementation of `algo` (not `automatic`).
std::unique_ptr<CollectiveAlgorithm> make_algorithm(CollectiveAlgo algo);

/// The protocol (LL, LL128, Simple) NCCL runs `call` with under the algorithm
/// choose_algorithm() picks (NVLS, NVLS-tree, CollNet: Simple).
NcclProtocol chosen_protocol(const CollectiveCall& call, const Platform& platform);

/// The protocol NCCL runs `call` with under `algo` (what choose_algorithm() returned for it).
NcclProtocol protocol_of(CollectiveAlgo algo, const CollectiveCall& call, const Platform& platform);

/// NCCL's base latency for `call` with the algorithm choose_algorithm() picks: the fixed
/// cost of the protocol NCCL's model picks for its size (nccl_latency.hpp; 0 for NVLS, whose
/// plan carries its own), paid before the first byte moves.
double nccl_base_latency_s(const CollectiveCall& call, const Platform& platform);

/// The plan of `call` with the algorithm choose_algorithm() picks, NCCL's base latency in its
/// first phase (inside a measured NVLink domain: the measured latency and rate instead,
/// domain_collective.hpp); empty for one GPU.
CommPlan plan_collective(const CollectiveCall& call, const Platform& platform);

/// plan_collective()'s plan with the algorithm choose_algorithm() picks, its protocol_of(), and
/// the channels (CTAs) NCCL runs it on across NVL72 racks (nccl_rack_model.hpp,
/// nccl_channels.hpp; 0 where trainsim does not model them: one domain, DGX nodes), from one
/// planning: across racks each of those would plan the candidates again.
struct ChosenPlan {
  CollectiveAlgo algo = CollectiveAlgo::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  int channels = 0;
  CommPlan plan;
};
ChosenPlan plan_chosen_collective(const CollectiveCall& call, const Platform& platform);

}  // namespace trainsim::engine
