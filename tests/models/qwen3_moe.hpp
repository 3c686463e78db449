#pragma once
// Qwen3 30B-A3B at sequence 4,096, dropless or padded to a capacity factor of 1 (the A3 pairs'
// two paths), for the MoE workload tests.

#include "models/model_presets.hpp"
#include "models/model_spec.hpp"

namespace trainsim::testing {

inline ModelSpec qwen3_moe(bool padded) {
  ModelSpec m = *model_preset("qwen3-30b-a3b");
  m.seq_len = 4096;
  if (padded) {
    m.capacity_factor = 1.0;
    m.pad_to_capacity = true;
  }
  return m;
}

}  // namespace trainsim::testing
