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

/// GPUs 0 .. n-1.
inline std::vector<int> first_gpus(int n) {
  std::vector<int> g;
  for (int i = 0; i < n; ++i) g.push_back(i);
  return g;
}

}  // namespace trainsim::engine::test
