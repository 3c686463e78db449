#pragma once
// How many micro-batches' activations a pipeline stage holds at its peak, per schedule.

#include "models/parallel_spec.hpp"

namespace trainsim {

/// Peak activations held by pipeline rank `stage` (0-based) of `pp`, in units of one
/// micro-batch through all of that rank's layers, with `microbatches` (m) per step.
///   gpipe:        m (all forwards run before any backward; Huang et al., GPipe)
///   1f1b, zb-h1:  min(pp - stage, m) (Narayanan et al. SC21 §2.2.1; Qi et al. Table 2: p M_B)
///   interleaved:  Megatron-LM's warm-up of (pp - stage - 1)·2 + (v - 1)·N model chunks
///                 (N: the micro-batch group, pp unless set), plus the one in flight, each
///                 1/v of the rank's layers; at N = p on the first stage this is
///                 1 + (p - 1)/(p v) micro-batches (Korthikanti et al. §4.2.3). A smaller N
///                 holds fewer (Llama 3 §3.3.2).
///   dualpipe:     pp + 1 chunks (DeepSeek-V3 Table 2), each half of the rank's layers.
/// Without pipelining (pp = 1) one micro-batch is held whatever the schedule.
/// `microbatch_group` 0 means pp; `extra_warmup`: warm-up forwards beyond Megatron-Core's usual
/// count (ParallelSpec::extra_warmup_chunks).
double inflight_microbatches(Schedule schedule, int pp, int stage, int microbatches, int virtual_stages,
                             int microbatch_group = 0, int extra_warmup = 0);

/// Forward chunks the interleaved schedule runs on `stage` before its first backward
/// (Megatron-Core schedules.py): (pp - stage - 1)·2 + (v - 1)·N + extra, at most all m·v of them.
int interleaved_warmup_chunks(int pp, int stage, int microbatches, int virtual_stages, int microbatch_group,
                              int extra_warmup = 0);

}  // namespace trainsim
