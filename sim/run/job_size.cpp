#include "sim/run/job_size.hpp"

#include <algorithm>

namespace trainsim {

namespace {

int gpus_per_replica(const Scenario& s) {
  return s.parallel.tp * s.parallel.pp * s.parallel.cp;
}

}  // namespace

int nodes_for_dp(const Scenario& s, int dp) {
  const int gpus = dp * gpus_per_replica(s);
  return (gpus + s.cluster.gpus_per_node - 1) / s.cluster.gpus_per_node;
}

int largest_dp_on(const Scenario& s, int nodes) {
  int dp = std::min(s.parallel.dp, nodes * s.cluster.gpus_per_node / gpus_per_replica(s));
  // Whole nodes (the step simulation's cluster) and whole expert-parallel groups.
  const auto fits = [&](int replicas) {
    ParallelSpec p = s.parallel;
    p.dp = replicas;
    return p.whole_expert_groups() && replicas * gpus_per_replica(s) % s.cluster.gpus_per_node == 0;
  };
  while (dp > 0 && !fits(dp)) --dp;
  return dp >= s.elastic.min_dp ? dp : 0;
}

Scenario scenario_at_dp(const Scenario& s, int dp) {
  Scenario r = s;
  r.parallel.dp = dp;
  r.cluster.nodes = nodes_for_dp(s, dp);
  if (s.elastic.global_batch == GlobalBatchPolicy::keep && dp != s.parallel.dp) {
    // The micro-batches per replica whose global batch is nearest the scenario's (ties: the
    // larger), among those the schedule allows: Narayanan et al. SC21 §2.2.2, the interleaved
    // schedule needs a multiple of pp. Rounding up instead would nearly double the batch of
    // an interleaved job that loses one replica of many.
    const long long target = static_cast<long long>(s.training.grad_accum) * s.parallel.dp;
    // DualPipe feeds half from each end: an even count (dualpipe.py's num_chunks % 2 == 0).
    const long long step = s.parallel.schedule == Schedule::interleaved ? s.parallel.pp
                           : s.parallel.schedule == Schedule::dualpipe  ? 2
                                                                        : 1;
    const long long above = (target + dp * step - 1) / (dp * step) * step;  // smallest allowed >= target / dp
    const long long below = std::max(step, above - step);
    r.training.grad_accum = static_cast<int>(target - below * dp < above * dp - target ? below : above);
  }
  return r;
}

}  // namespace trainsim
