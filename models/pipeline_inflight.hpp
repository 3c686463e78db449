#pragma once
// How many micro-batches' activations a pipeline stage holds at its peak, per schedule.

#include "models/parallel_spec.hpp"

namespace trainsim {

/// Peak activations held by pipeline rank `stage` (0-based) of `pp`, in units of one
/// micro-batch through all of that rank's layers, with `microbatches` (m) per step.
///   gpipe:        m (all forwards run before any backward; Huang et al., GPipe)
///   1f1b, zb-h1:  min(pp - stage, m) (Narayanan et al. SC21 §2.2.1; Qi et al. Table 2: p M_B)
///   interleaved:  Megatron-LM's warm-up of (pp - stage - 1)·2 + (v - 1)·pp model chunks,
///                 plus the one in flight, each 1/v of the rank's layers; on the first stage
///                 this is 1 + (p - 1)/(p v) micro-batches (Korthikanti et al. §4.2.3).
/// Without pipelining (pp = 1) one micro-batch is held whatever the schedule.
double inflight_microbatches(Schedule schedule, int pp, int stage, int microbatches, int virtual_stages);

}  // namespace trainsim
