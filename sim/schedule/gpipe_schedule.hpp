#pragma once

#include "sim/schedule/pipeline_schedule.hpp"

namespace trainsim {

class GpipeSchedule final : public PipelineSchedule {
 public:
  std::vector<PipelineTask> order(int stage, int pp, int microbatches, int virtual_stages) const override;
  std::string name() const override { return "gpipe"; }
};

}  // namespace trainsim
