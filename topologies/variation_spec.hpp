#pragma once
// What differs from a uniform cluster (the scenario's [variations] section): GPUs that
// compute slower than the others. A value type; topologies/slow_gpus.hpp says which GPUs.

#include <vector>

namespace trainsim {

struct VariationSpec {
  int slow_gpu_count = 0;         ///< slow GPUs drawn at random (seeded by run.seed)
  std::vector<int> slow_gpu_ids;  ///< or these GPUs, listed (ascending, distinct)
  double slow_gpu_speed = 0.9;    ///< a slow GPU's compute speed over the others' (0, 1]

  /// Whether any GPU differs.
  bool any() const { return (slow_gpu_count > 0 || !slow_gpu_ids.empty()) && slow_gpu_speed < 1.0; }
};

}  // namespace trainsim
