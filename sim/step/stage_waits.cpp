#include "sim/step/stage_waits.hpp"

#include <algorithm>

namespace trainsim {

StageWaits::StageWaits(StageContext& s, StageCompute& compute)
    : s_(s),
      compute_(compute),
      loader_(s.w.scenario.training.sample_load_time_s * s.w.scenario.training.micro_batch,
              s.w.scenario.training.prefetch) {}

void StageWaits::wait_data(const PipelineTask& t) {
  const int index = s_.w.schedule.feed_index(s_.step, t.microbatch, s_.w.costs.microbatches);
  const double ready = loader_.ready_time(index);
  const double now = s_.clock.now();
  if (ready > now) {
    s_.clock.sleep(ready - now);
    s_.account().data += ready - now;
    s_.observe(ActivityStream::data, "data_wait", &t, now, ready, 0, 0);
  }
  loader_.consumed(index, s_.clock.now());
}

// The copies the pass's compute did not hide (stage_costs.cpp).
void StageWaits::wait_offload(const PipelineTask& t, const PassCost& pass) {
  if (pass.offload_s <= 0) return;
  const double start = s_.clock.now();
  s_.clock.sleep(pass.offload_s);
  s_.account().offload += pass.offload_s;
  s_.observe(ActivityStream::compute, "offload_wait", &t, start, s_.clock.now(), pass.offload_bytes, 0);
}

// A pass without a host sync: the host's launches run on while its blocking collectives hold
// the stream (a NCCL kernel is one more kernel in the stream's order; the host does not wait
// for it), so of the GPU's wait for the host (PassCost::hideable_host_s) only what exceeds
// the `blocked_s` the pass spent in them is left: a run of such layers settles to the later
// of the host's time and the GPU's with its collectives. Returns the seconds it adds.
double StageWaits::host_beside_collectives(const char* kind, const PipelineTask& t, const PassCost& pass,
                                           double blocked_s) {
  if (!(pass.hideable_host_s > 0)) return 0.0;
  const double left = std::max(0.0, pass.hideable_host_s - blocked_s);
  s_.account().host_wait -= pass.hideable_host_s - left;
  if (!(left > 0)) return 0.0;
  compute_.open_record(kind, t, WorkRate{});  // the pass's, its GPU waiting for launches
  const double spent = compute_.compute(left);
  compute_.close_record();
  return spent;
}

}  // namespace trainsim
