#include "models/pipeline_inflight.hpp"

#include <algorithm>

namespace trainsim {

int interleaved_warmup_chunks(int pp, int stage, int microbatches, int virtual_stages, int microbatch_group,
                              int extra_warmup) {
  const int total = microbatches * virtual_stages;
  // Megatron-Core (schedules.py, get_pp_rank_microbatches). Megatron-LM 2021 also ran every
  // forward first when m = p; Megatron-Core dropped that case, and so do we.
  return std::min((pp - stage - 1) * 2 + (virtual_stages - 1) * microbatch_group + extra_warmup, total);
}

double inflight_microbatches(Schedule schedule, int pp, int stage, int microbatches, int virtual_stages,
                             int microbatch_group, int extra_warmup) {
  if (pp == 1) return 1.0;
  switch (schedule) {
    case Schedule::gpipe:
      return microbatches;
    case Schedule::one_f_one_b:
    case Schedule::zb_h1:
      return std::min(pp - stage, microbatches);
    case Schedule::interleaved: {
      const int v = virtual_stages;
      const int group = microbatch_group > 0 ? microbatch_group : pp;
      const int chunks =
          std::min(interleaved_warmup_chunks(pp, stage, microbatches, v, group, extra_warmup) + 1, microbatches * v);
      return static_cast<double>(chunks) / v;
    }
    case Schedule::dualpipe:
      // DeepSeek-V3 Table 2: PP + 1 chunks' activations on every rank (PP in 1F1B's units),
      // here in units of the rank's two chunks (dualpipe_schedule.hpp's order holds it).
      return std::min(pp + 1, microbatches) / 2.0;
  }
  return 1.0;
}

}  // namespace trainsim
