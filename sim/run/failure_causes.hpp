#pragma once
// Why a job is interrupted, and whether the node it happened on must go to repair.

#include <random>
#include <string>
#include <vector>

#include "sim/run/run_spec.hpp"

namespace trainsim {

struct FailureCause {
  std::string component;      ///< e.g. "Faulty GPU"
  std::string category;       ///< GPU, Host, Network, Dependency, Unknown, Unplanned Maintenance
  int count = 0;              ///< interruptions of this cause in the source (the share's weight)
  bool needs_repair = false;  ///< the node leaves the job for repair (a spare takes its place)
};

/// The causes `which` draws from, with their weights.
const std::vector<FailureCause>& failure_causes(FailureCauses which);

/// Draws causes with the table's weights, from the caller's generator (seeded: reproducible).
class CausePicker {
 public:
  explicit CausePicker(FailureCauses which);
  const FailureCause& pick(std::mt19937_64& rng);

 private:
  const std::vector<FailureCause>& causes_;
  std::discrete_distribution<int> draw_;
};

}  // namespace trainsim
