#include "sim/schedule/one_f_one_b_schedule.hpp"

#include <algorithm>

namespace trainsim {

std::vector<PipelineTask> OneFOneBSchedule::order(int stage, int pp, int microbatches, int /*virtual_stages*/) const {
  const int warmup = std::min(pp - stage - 1, microbatches);
  std::vector<PipelineTask> tasks;
  int next_forward = 0;
  int next_backward = 0;
  for (; next_forward < warmup; ++next_forward) tasks.push_back({next_forward, 0, TaskPass::forward});
  while (next_forward < microbatches) {
    tasks.push_back({next_forward++, 0, TaskPass::forward});
    tasks.push_back({next_backward++, 0, TaskPass::backward});
  }
  while (next_backward < microbatches) tasks.push_back({next_backward++, 0, TaskPass::backward});
  return tasks;
}

}  // namespace trainsim
