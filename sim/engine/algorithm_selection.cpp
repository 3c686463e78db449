#include "sim/engine/algorithm_selection.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/core/error.hpp"
#include "sim/engine/direct_algorithm.hpp"
#include "sim/engine/double_binary_tree_algorithm.hpp"
#include "sim/engine/hierarchical_algorithm.hpp"
#include "sim/engine/nvls_algorithm.hpp"
#include "sim/engine/pairwise_algorithm.hpp"
#include "sim/engine/ring_algorithm.hpp"

namespace trainsim::engine {

namespace {

void validate(const CollectiveCall& call, const Platform& platform) {
  if (call.gpus.empty()) throw InputError("", "--gpus", "0", "a collective needs at least one GPU");
  std::set<int> seen;
  for (const int g : call.gpus) {
    if (g < 0 || g >= platform.gpu_count())
      throw InputError("", "--gpus", std::to_string(g),
                       "GPU index must be in [0, " + std::to_string(platform.gpu_count()) + ")");
    if (!seen.insert(g).second)
      throw InputError("", "--gpus", std::to_string(g), "a GPU may appear once per collective");
  }
  if (!(call.bytes >= 0)) throw InputError("", "bytes", std::to_string(call.bytes), "must be >= 0");
  if (call.root < 0 || call.root >= static_cast<int>(call.gpus.size()))
    throw InputError("", "root", std::to_string(call.root), "must index one of the collective's GPUs");
}

// NCCL's Simple-protocol constants, microseconds (public.md D1, tuning.cc at 01afd20a).
constexpr double k_ring_base_us = 8.4;
constexpr double k_tree_base_us = 0.0;
constexpr double k_nvlink_hop_us = 3.4;
constexpr double k_net_ring_hop_us = 9.6;
constexpr double k_net_tree_hop_us = 50.0;

CollectiveAlgo nccl_all_reduce_choice(const CollectiveCall& call, const Platform& platform) {
  const auto nodes = gpus_by_node(call.gpus, platform);
  const double n = static_cast<double>(call.gpus.size());
  const double node_count = static_cast<double>(nodes.size());
  const double per_node = n / node_count;
  // Bus bandwidth of the group: NVLink inside a node; across nodes, one NIC per channel.
  const double channels = std::min(per_node, static_cast<double>(platform.layout().nics_per_node));
  const double bus_Bps =
      nodes.size() == 1 ? platform.nvlink_Bps() : std::min(platform.nvlink_Bps(), channels * platform.nic_Bps());
  const double steps = 2 * (n - 1);
  const double inter_steps = 2 * (node_count - 1);
  const double ring_s =
      1e-6 * (k_ring_base_us + (steps - inter_steps) * k_nvlink_hop_us + inter_steps * k_net_ring_hop_us) +
      call.bytes / (bus_Bps * n / steps);
  const double tree_s =
      1e-6 * (k_tree_base_us + 2 * ((per_node - 1) * k_nvlink_hop_us + std::log2(node_count) * k_net_tree_hop_us)) +
      call.bytes / (bus_Bps * 0.5);
  // NVLink SHARP inside one node that has it (NCCL disables NVLS across nodes without
  // CollNet: tuning.cc at 5067397c; multi-node NVLS-tree is not modelled).
  if (nvls_possible(call.gpus, platform) &&
      nvls_all_reduce_s(call.bytes, static_cast<int>(call.gpus.size()), platform) < std::min(ring_s, tree_s))
    return CollectiveAlgo::nvls;
  return tree_s < ring_s ? CollectiveAlgo::double_binary_tree : CollectiveAlgo::ring;
}

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_algorithm(CollectiveAlgo algo) {
  switch (algo) {
    case CollectiveAlgo::ring:
      return std::make_unique<RingAlgorithm>();
    case CollectiveAlgo::double_binary_tree:
      return std::make_unique<DoubleBinaryTreeAlgorithm>();
    case CollectiveAlgo::hierarchical:
      return std::make_unique<HierarchicalAlgorithm>();
    case CollectiveAlgo::pairwise:
      return std::make_unique<PairwiseAlgorithm>();
    case CollectiveAlgo::direct:
      return std::make_unique<DirectAlgorithm>();
    case CollectiveAlgo::nvls:
      return std::make_unique<NvlsAlgorithm>();
    case CollectiveAlgo::automatic:
      break;
  }
  throw Error("make_algorithm: no implementation for 'auto'");
}

CollectiveAlgo choose_algorithm(const CollectiveCall& call, const Platform& platform) {
  validate(call, platform);
  if (call.algo != CollectiveAlgo::automatic) {
    if (!make_algorithm(call.algo)->supports(call.op))
      throw InputError("", "--algo", algo_name(call.algo), "does not implement " + op_name(call.op));
    return call.algo;
  }
  switch (call.op) {
    case CollectiveOp::all_reduce:
      return call.gpus.size() < 2 ? CollectiveAlgo::ring : nccl_all_reduce_choice(call, platform);
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::broadcast:
      return CollectiveAlgo::ring;
    case CollectiveOp::all_to_all:
      return CollectiveAlgo::pairwise;
    case CollectiveOp::send_recv:
      return CollectiveAlgo::direct;
  }
  return CollectiveAlgo::ring;
}

CommPlan plan_collective(const CollectiveCall& call, const Platform& platform) {
  const CollectiveAlgo algo = choose_algorithm(call, platform);
  if (call.gpus.size() < 2) return {};
  return make_algorithm(algo)->plan(call, platform);
}

}  // namespace trainsim::engine
