#pragma once
// When the job's nodes fail: one renewal process per node in the job, exponential or
// Weibull with the node MTBF as its mean, seeded. A node that fails is replaced (by a spare,
// or by itself after a restart) and starts a fresh lifetime. When the job shrinks, the nodes
// it no longer uses stop counting; when it grows back, they count again, fresh.

#include <cstdint>
#include <random>
#include <vector>

#include "sim/run/run_spec.hpp"

namespace trainsim {

struct NodeFailure {
  double time_s = 0;
  int node = 0;  ///< index of the node in the job
};

class FailureClock {
 public:
  /// `nodes` job nodes, all in use, lifetimes starting at 0.
  FailureClock(const FailureSpec& spec, int nodes, std::mt19937_64& rng);

  /// The next failure among the nodes in use (time_s is infinite if none are).
  NodeFailure next() const;
  /// The node that failed at `at` starts a fresh lifetime.
  void renew(int node, double at);
  /// The job now uses its first `nodes` nodes; nodes coming back into use start fresh at `at`.
  void use(int nodes, double at);

 private:
  double draw(double now);

  FailureSpec spec_;
  std::mt19937_64& rng_;
  std::vector<double> next_;  ///< per job node, its next failure time
  int in_use_ = 0;
};

}  // namespace trainsim
