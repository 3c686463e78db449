#pragma once
// The pipeline transfers of a step's trace as flows: for each transfer a stage received
// (stream pp_comm, kind pp_transfer), the compute slice of the stage that sent it. The Chrome
// trace binds each pair with a flow so that Perfetto draws an arrow from the sending pass to the
// transfer the next stage waited for.

#include <cstddef>
#include <vector>

#include "sim/trace/trace_contents.hpp"

namespace trainsim {

/// One transfer, as indices into the events: `from` is the sending pass's last compute slice
/// that began before the transfer did, `to` the transfer on the receiving stage's pp_comm track.
struct PipelineFlow {
  std::size_t from = 0;
  std::size_t to = 0;
};

/// One flow per pipeline transfer whose sender is in `events`, in the order of the transfers.
/// A transfer carries the receiving pass's micro-batch and model chunk; the pass that produced
/// it is the same micro-batch's forward on the stage before (the previous chunk's on the last
/// stage, for stage 0) or its backward on the stage after (the next chunk's on stage 0, for the
/// last stage), whichever had ended when the transfer began (the other one runs only after
/// the transfer has arrived). Aggregated rows (count > 1, micro-batch -1) have no flow, and
/// neither do replayed traces' sends (no micro-batch).
std::vector<PipelineFlow> pipeline_flows(const std::vector<TraceEvent>& events);

}  // namespace trainsim
