#include "sim/schedule/interleaved_schedule.hpp"

#include <algorithm>

namespace trainsim {

namespace {

// The k-th forward (or backward) task of a stage: micro-batches advance in groups of pp
// through the chunks (forward: chunk 0 first; backward: the last chunk first).
PipelineTask kth_task(int k, int pp, int virtual_stages, TaskPass pass) {
  const int group = pp * virtual_stages;
  const int chunk_in_order = (k % group) / pp;
  const int chunk = pass == TaskPass::forward ? chunk_in_order : virtual_stages - 1 - chunk_in_order;
  const int microbatch = (k / group) * pp + k % pp;
  return {microbatch, chunk, pass};
}

}  // namespace

std::vector<PipelineTask> InterleavedSchedule::order(int stage, int pp, int microbatches, int virtual_stages) const {
  const int total = microbatches * virtual_stages;
  const int warmup = microbatches == pp ? total : std::min((pp - stage - 1) * 2 + (virtual_stages - 1) * pp, total);
  std::vector<PipelineTask> tasks;
  int forwards = 0;
  int backwards = 0;
  for (; forwards < warmup; ++forwards) tasks.push_back(kth_task(forwards, pp, virtual_stages, TaskPass::forward));
  while (forwards < total) {
    tasks.push_back(kth_task(forwards++, pp, virtual_stages, TaskPass::forward));
    tasks.push_back(kth_task(backwards++, pp, virtual_stages, TaskPass::backward));
  }
  while (backwards < total) tasks.push_back(kth_task(backwards++, pp, virtual_stages, TaskPass::backward));
  return tasks;
}

}  // namespace trainsim
