#pragma once
// One collective simulated in a forked child (tests/engine/isolated_run.hpp): its bus
// bandwidth and the algorithm NCCL's selection (or the caller) ran.

#include <vector>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim::engine::test {

/// `op` of `bytes` over `gpus` of `cluster`: {bus bandwidth in GB/s, the CollectiveAlgo run}.
inline std::vector<double> measured_collective(const ClusterSpec& cluster, CollectiveOp op,
                                               const std::vector<int>& gpus, double bytes,
                                               CollectiveAlgo algo = CollectiveAlgo::automatic) {
  return run_isolated([&] {
    Simulation sim;
    const Platform platform(cluster);
    CollectiveCall call;
    call.op = op;
    call.algo = algo;
    call.bytes = bytes;
    call.gpus = gpus;
    const double chosen = static_cast<double>(choose_algorithm(call, platform));
    const CommActivity a = start_collective(platform, call);
    sim.run();
    return std::vector<double>{
        bytes / a.duration_s() * bus_bandwidth_factor(op, static_cast<int>(gpus.size())) / 1e9, chosen};
  });
}

/// `count` whole NVL72 racks of a `preset` of 18 trays a rack (gb200-nvl72, gb300-nvl72).
inline ClusterSpec racks(const char* preset, int count) {
  ClusterSpec c = *cluster_preset(preset);
  c.nodes = 18 * count;
  return c;
}

/// The first `per_rack` GPUs of each of `count` 72-GPU racks.
inline std::vector<int> per_rack_gpus(int count, int per_rack) {
  std::vector<int> g;
  for (int r = 0; r < count; ++r)
    for (int i = 0; i < per_rack; ++i) g.push_back(72 * r + i);
  return g;
}

/// GPUs 0 .. n-1.
inline std::vector<int> first_gpus(int n) {
  std::vector<int> g;
  for (int i = 0; i < n; ++i) g.push_back(i);
  return g;
}

}  // namespace trainsim::engine::test
