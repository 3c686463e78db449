#include "sim/schedule/interleaved_schedule.hpp"

#include <algorithm>

#include "models/pipeline_inflight.hpp"

namespace trainsim {

namespace {

// The forward passes of a stage in order: micro-batches advance group by group, each group
// through chunk 0, then chunk 1, ... (Megatron-Core's get_schedule_table). Backward passes
// take the same order with the chunks reversed.
std::vector<PipelineTask> forward_table(int microbatches, int virtual_stages, int group) {
  std::vector<PipelineTask> table;
  table.reserve(static_cast<size_t>(microbatches) * virtual_stages);
  for (int first = 0; first < microbatches; first += group) {
    const int end = std::min(first + group, microbatches);
    for (int chunk = 0; chunk < virtual_stages; ++chunk)
      for (int mb = first; mb < end; ++mb) table.push_back({mb, chunk, TaskPass::forward});
  }
  return table;
}

}  // namespace

std::vector<PipelineTask> InterleavedSchedule::order(int stage, int pp, int microbatches, int virtual_stages) const {
  const int group = microbatch_group_ > 0 ? microbatch_group_ : pp;
  const std::vector<PipelineTask> table = forward_table(microbatches, virtual_stages, group);
  const int total = static_cast<int>(table.size());
  const int warmup = interleaved_warmup_chunks(pp, stage, microbatches, virtual_stages, group, extra_warmup_);
  auto forward = [&](int k) { return table[static_cast<size_t>(k)]; };
  auto backward = [&](int k) {
    PipelineTask t = table[static_cast<size_t>(k)];
    return PipelineTask{t.microbatch, virtual_stages - 1 - t.chunk, TaskPass::backward};
  };
  std::vector<PipelineTask> tasks;
  tasks.reserve(2 * table.size());
  int forwards = 0;
  int backwards = 0;
  for (; forwards < warmup; ++forwards) tasks.push_back(forward(forwards));
  while (forwards < total) {
    tasks.push_back(forward(forwards++));
    tasks.push_back(backward(backwards++));
  }
  while (backwards < total) tasks.push_back(backward(backwards++));
  return tasks;
}

}  // namespace trainsim
