#pragma once
// When the job's nodes fail: one renewal process per failure unit in the job (a node, or each
// GPU of a node: failures.unit), exponential or Weibull with the MTBF as its mean, seeded. A
// unit that fails is replaced (by a spare node, or by itself after a restart) and starts a
// fresh lifetime. When the job shrinks, the nodes it no longer uses stop counting; when it
// grows back, they count again, fresh.

#include <cstdint>
#include <random>
#include <vector>

#include "sim/run/run_spec.hpp"

namespace trainsim {

struct NodeFailure {
  double time_s = 0;
  int unit = 0;  ///< index of the failure unit in the job
  int node = 0;  ///< index of its node in the job
};

class FailureClock {
 public:
  /// `nodes` job nodes of `units_per_node` failure units each, all in use, lifetimes starting at 0.
  FailureClock(const FailureSpec& spec, int nodes, int units_per_node, std::mt19937_64& rng);

  /// The next failure among the nodes in use (time_s is infinite if none are).
  NodeFailure next() const;
  /// The unit that failed at `at` starts a fresh lifetime.
  void renew(int unit, double at);
  /// The job now uses its first `nodes` nodes; nodes coming back into use start fresh at `at`.
  void use(int nodes, double at);

 private:
  double draw(double now);

  FailureSpec spec_;
  std::mt19937_64& rng_;
  int per_node_ = 1;
  std::vector<double> next_;  ///< per failure unit, its next failure time
  int in_use_ = 0;            ///< units in use
};

}  // namespace trainsim
