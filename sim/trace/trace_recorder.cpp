#include "sim/trace/trace_recorder.hpp"

#include <algorithm>

namespace trainsim {

TraceRecorder::TraceRecorder(bool keep_events, std::int64_t max_events, bool sample_links)
    : keep_events_(keep_events), sample_links_(sample_links), max_events_(max_events) {}

std::string TraceRecorder::stream_name(ActivityStream stream) {
  switch (stream) {
    case ActivityStream::compute:
      return "compute";
    case ActivityStream::tp_comm:
      return "tp_comm";
    case ActivityStream::pp_comm:
      return "pp_comm";
    case ActivityStream::dp_comm:
      return "dp_comm";
    case ActivityStream::data:
      return "data";
  }
  return "compute";
}

void TraceRecorder::on_activity(const ActivityRecord& r) {
  ++observed_;
  if (!keep_events_) return;
  TraceEvent e;
  e.step = r.step;
  e.rank = r.rank;
  e.stage = r.stage;
  e.replica = r.replica;
  e.stream = stream_name(r.stream);
  e.kind = r.kind;
  e.layer = r.chunk;
  e.microbatch = r.microbatch;
  e.start_s = r.start_s;
  e.end_s = r.end_s;
  e.bytes = r.bytes;
  e.flops = r.flops;
  if (static_cast<std::int64_t>(kept_.size()) < max_events_) {
    kept_.push_back(std::move(e));
    return;
  }
  const Key key{e.step, e.rank, e.stage, e.replica, e.stream, e.kind};
  auto [it, inserted] = aggregated_.try_emplace(key, e);
  if (inserted) {
    it->second.layer = -1;
    it->second.microbatch = -1;
    return;
  }
  TraceEvent& a = it->second;
  a.count += 1;
  a.start_s = std::min(a.start_s, e.start_s);
  a.end_s = std::max(a.end_s, e.end_s);
  a.bytes += e.bytes;
  a.flops += e.flops;
}

void TraceRecorder::on_step(int step, double start_s, double end_s) {
  TraceStep s;
  s.step = step;
  s.start_s = start_s;
  s.end_s = end_s;
  steps_.push_back(s);
}

std::vector<TraceEvent> TraceRecorder::events() const {
  std::vector<TraceEvent> out = kept_;
  for (const auto& [key, e] : aggregated_) out.push_back(e);
  std::stable_sort(out.begin(), out.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return std::tie(a.step, a.start_s) < std::tie(b.step, b.start_s);
  });
  return out;
}

std::string TraceRecorder::rule() const {
  const std::string cap = std::to_string(max_events_);
  if (!aggregated_.empty())
    return "aggregated: the first " + cap + " activities are kept as they are (count = 1); each later one is " +
           "folded into one row per (step, rank, stage, replica, stream, kind) with count > 1, the earliest " +
           "start, the latest end, bytes and flops summed, layer and microbatch -1";
  return "all: every activity is kept (count = 1); beyond " + cap + " activities later ones would be aggregated " +
         "per (step, rank, stage, replica, stream, kind)";
}

}  // namespace trainsim
