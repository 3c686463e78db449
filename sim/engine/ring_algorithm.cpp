#include "sim/engine/ring_algorithm.hpp"

#include <algorithm>
#include <tuple>

namespace trainsim::engine {

bool RingAlgorithm::supports(CollectiveOp op) const {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter ||
         op == CollectiveOp::broadcast;
}

std::vector<std::vector<int>> ring_channels(const std::vector<int>& gpus, const Platform& platform) {
  const auto nodes = gpus_by_node(gpus, platform);
  size_t per_node = nodes.front().size();
  for (const auto& n : nodes) per_node = std::min(per_node, n.size());
  const bool uniform = std::all_of(nodes.begin(), nodes.end(), [&](const auto& n) { return n.size() == per_node; });
  if (nodes.size() == 1 || !uniform) {
    std::vector<int> ring;
    for (const auto& n : nodes) ring.insert(ring.end(), n.begin(), n.end());
    return {ring};
  }
  std::vector<std::vector<int>> channels;
  for (size_t c = 0; c < per_node; ++c) {
    std::vector<int> ring;
    ring.reserve(gpus.size());
    for (const auto& n : nodes)
      for (size_t j = 0; j < per_node; ++j) ring.push_back(n[(c + j) % per_node]);
    channels.push_back(std::move(ring));
  }
  return channels;
}

CommPlan RingAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  const auto channels = ring_channels(call.gpus, platform);
  const double n = static_cast<double>(call.gpus.size());
  const double share = call.bytes / static_cast<double>(channels.size());
  double edge_bytes = 0;
  double steps = n - 1;
  switch (call.op) {
    case CollectiveOp::all_reduce:
      edge_bytes = 2 * (n - 1) / n * share;
      steps = 2 * (n - 1);
      break;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
      edge_bytes = (n - 1) / n * share;
      break;
    default:
      edge_bytes = share;
      break;  // broadcast: the whole buffer flows down the chain
  }
  const int root_gpu = call.gpus[static_cast<size_t>(call.root)];
  CommPhase phase;
  for (const auto& ring : channels) {
    for (size_t i = 0; i < ring.size(); ++i) {
      const int dst = ring[(i + 1) % ring.size()];
      if (call.op == CollectiveOp::broadcast && dst == root_gpu) continue;
      phase.transfers.push_back({ring[i], dst, edge_bytes});
    }
  }
  if (channels.size() > k_channel_major_rings) {
    // Hop by hop: by the sender's index in its NVLink domain, then its domain, then the receiver.
    const int domain = platform.cluster().domain_gpus();
    const auto key = [domain](const Transfer& t) {
      return std::make_tuple(t.src_gpu % domain, t.src_gpu / domain, t.dst_gpu);
    };
    std::stable_sort(phase.transfers.begin(), phase.transfers.end(),
                     [&](const Transfer& a, const Transfer& b) { return key(a) < key(b); });
  }
  double latency_s = 0;
  for (const auto& ring : channels) latency_s = std::max(latency_s, chain_latency_s(ring, steps, platform));
  phase.latency_s = latency_s;
  return CommPlan{{std::move(phase)}};
}

double chain_latency_s(const std::vector<int>& ring, double steps, const Platform& platform) {
  const size_t n = ring.size();
  if (n < 2 || !(steps > 0)) return 0.0;
  std::vector<double> edge(n);
  double cycle = 0;
  for (size_t i = 0; i < n; ++i) cycle += edge[i] = platform.latency_s(ring[i], ring[(i + 1) % n]);
  // steps = laps x n + rest consecutive hops; the slowest window of `rest` hops.
  const auto whole = static_cast<size_t>(steps);
  const size_t laps = whole / n;
  const size_t rest = whole % n;
  double window = 0;
  for (size_t i = 0; i < rest; ++i) window += edge[i];
  double worst = window;
  for (size_t i = 1; i < n && rest > 0; ++i) {
    window += edge[(i + rest - 1) % n] - edge[i - 1];
    worst = std::max(worst, window);
  }
  return static_cast<double>(laps) * cycle + worst;
}

}  // namespace trainsim::engine
