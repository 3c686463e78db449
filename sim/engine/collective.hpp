#pragma once
// A collective call as the engine receives it: operation, participants, size, algorithm.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim::engine {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send_recv };

/// `automatic` lets algorithm_selection.hpp pick what NCCL would.
/// nvls: NVLink SHARP inside one NVLink domain; nvls_tree: NVLS in each domain and a tree
/// across them (NCCL's NVLS_TREE); collnet: InfiniBand SHARP across domains (NCCL's CollNet).
enum class CollectiveAlgo { automatic, ring, double_binary_tree, hierarchical, pairwise, direct, nvls, nvls_tree, collnet, pat };

struct CollectiveCall {
  CollectiveOp op = CollectiveOp::all_reduce;
  /// Participating GPUs (platform GPU indices) in rank order; no duplicates.
  std::vector<int> gpus;
  /// The size nccl-tests reports, in bytes: the buffer of an all-reduce or broadcast, the
  /// whole gathered output of an all-gather, the whole input of a reduce-scatter, each
  /// rank's send buffer of an all-to-all, each rank's message of a send/recv
  /// (NVIDIA/nccl-tests doc/PERFORMANCE.md, public.md D1).
  double bytes = 0;
  int root = 0;  ///< index into `gpus` of a broadcast's root
  /// A pairwise all-to-all's bytes to a GPU of another NVLink domain, as a share of those to
  /// one of the sender's (DeepEP's once-per-node dispatch, models/moe_dispatch.hpp); 1: equal.
  double remote_share = 1.0;
  /// An all-to-all run by a kernel of its own (DeepEP's, HybridEP's): the rate, bytes/s per
  /// GPU, at which it moves each rank's send buffer, as measured (sim/engine/kernel_rate.hpp);
  /// 0: NCCL's all-to-all on the links.
  double kernel_Bps = 0.0;
  CollectiveAlgo algo = CollectiveAlgo::automatic;
};

std::string op_name(CollectiveOp op);
std::string algo_name(CollectiveAlgo algo);
std::optional<CollectiveOp> parse_op(std::string_view text);
std::optional<CollectiveAlgo> parse_algo(std::string_view text);
std::vector<std::string> op_names();
std::vector<std::string> algo_names();

/// Bus bandwidth / algorithm bandwidth for `op` on `ranks` participants: 2(n-1)/n for
/// all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast and
/// send/recv (NVIDIA/nccl-tests doc/PERFORMANCE.md, public.md D1).
double bus_bandwidth_factor(CollectiveOp op, int ranks);

}  // namespace trainsim::engine
