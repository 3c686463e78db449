// GPipe (Huang et al. 2019, §2.2): every micro-batch's forward, then every backward.

#include "sim/schedule/gpipe_schedule.hpp"

namespace trainsim {

std::vector<PipelineTask> GpipeSchedule::order(int /*stage*/, int /*pp*/, int microbatches,
                                               int /*virtual_stages*/) const {
  std::vector<PipelineTask> tasks;
  for (int mb = 0; mb < microbatches; ++mb) tasks.push_back({mb, 0, TaskPass::forward});
  for (int mb = 0; mb < microbatches; ++mb) tasks.push_back({mb, 0, TaskPass::backward});
  return tasks;
}

}  // namespace trainsim
