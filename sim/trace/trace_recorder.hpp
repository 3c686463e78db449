#pragma once
// The step observer behind traces: it keeps the simulated steps and, when asked, the
// activities, up to a cap. Beyond the cap it aggregates, so that a very large step still
// gives a usable trace: the first `max_events` activities are kept as they are, every later
// one is folded into one row per (step, rank, stage, replica, stream, kind) with its count,
// the earliest start, the latest end, and bytes and FLOPs summed.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/step/step_observer.hpp"
#include "sim/trace/trace_contents.hpp"

namespace trainsim {

class TraceRecorder : public StepObserver {
 public:
  /// `keep_events` false records steps only; `sample_links` asks the simulation for link
  /// utilization over time.
  TraceRecorder(bool keep_events, std::int64_t max_events, bool sample_links = false);

  void on_activity(const ActivityRecord& record) override;
  void on_step(int step, double start_s, double end_s) override;
  bool wants_link_samples() const override { return sample_links_; }
  void on_link_samples(const std::vector<LinkSample>& samples) override { links_ = samples; }
  const std::vector<LinkSample>& links() const { return links_; }

  /// (step, start_s, end_s) per step; tokens and samples are left 0 for the caller.
  const std::vector<TraceStep>& steps() const { return steps_; }
  /// Kept events, then aggregated rows, ordered by step and start time (stable).
  std::vector<TraceEvent> events() const;
  std::int64_t observed() const { return observed_; }
  std::int64_t max_events() const { return max_events_; }
  /// The capping rule, in words, for the /events `rule` attribute.
  std::string rule() const;

  /// The stream's name in traces.
  static std::string stream_name(ActivityStream stream);

 private:
  using Key = std::tuple<int, int, int, int, std::string, std::string>;
  bool keep_events_;
  bool sample_links_;
  std::int64_t max_events_;
  std::int64_t observed_ = 0;
  std::vector<TraceStep> steps_;
  std::vector<TraceEvent> kept_;
  std::map<Key, TraceEvent> aggregated_;
  std::vector<LinkSample> links_;
};

}  // namespace trainsim
