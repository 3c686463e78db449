#pragma once
// The per-message ring all-reduce, for checking the aggregated plans on small cases
// (../shared/DESIGN.md: "the reduced simulation must equal the full one"). One actor per
// rank and channel; at each of the 2(n-1) steps a rank waits for the previous step's chunk
// from its predecessor, then sends its S/(n C) chunk to its successor as one SimGrid comm
// per leg, without waiting for its own earlier messages to land (NCCL keeps several steps in
// flight): each message is an actor of its own. Costs 2 n (n-1) C comms and actors: small
// groups only.

#include <vector>

#include "sim/engine/comm_activity.hpp"
#include "sim/engine/platform.hpp"

namespace trainsim::engine {

/// Starts the per-message ring all-reduce of `bytes` over `gpus` (same channels and ring
/// order as RingAlgorithm).
CommActivity start_per_message_ring_all_reduce(const Platform& platform, const std::vector<int>& gpus, double bytes);

}  // namespace trainsim::engine
