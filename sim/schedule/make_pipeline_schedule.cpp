#include "sim/schedule/dualpipe_schedule.hpp"
#include "sim/schedule/gpipe_schedule.hpp"
#include "sim/schedule/interleaved_schedule.hpp"
#include "sim/schedule/one_f_one_b_schedule.hpp"
#include "sim/schedule/pipeline_schedule.hpp"

namespace trainsim {

std::unique_ptr<PipelineSchedule> make_pipeline_schedule(Schedule schedule, int microbatch_group, int extra_warmup) {
  switch (schedule) {
    case Schedule::gpipe:
      return std::make_unique<GpipeSchedule>();
    case Schedule::one_f_one_b:
      return std::make_unique<OneFOneBSchedule>();
    case Schedule::interleaved:
      return std::make_unique<InterleavedSchedule>(microbatch_group, extra_warmup);
    case Schedule::zb_h1:
      return std::make_unique<ZeroBubbleH1Schedule>();
    case Schedule::dualpipe:
      return std::make_unique<DualPipeSchedule>();
  }
  return std::make_unique<OneFOneBSchedule>();
}

std::unique_ptr<PipelineSchedule> make_pipeline_schedule(const ParallelSpec& p) {
  return make_pipeline_schedule(p.schedule, p.microbatch_group, p.extra_warmup_chunks());
}

}  // namespace trainsim
