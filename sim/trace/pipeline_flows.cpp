#include "sim/trace/pipeline_flows.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace trainsim {

namespace {

// A pass's compute slices: (step, replica, stage, micro-batch, model chunk, kind).
using PassKey = std::tuple<int, int, int, int, int, std::string>;

// The trace's resolution: a pass that ended within it of the transfer's start sent it.
constexpr double k_tolerance_s = 1e-9;

bool is_transfer(const TraceEvent& e) {
  return e.stream == "pp_comm" && e.kind == "pp_transfer" && e.count == 1 && e.microbatch >= 0 && e.layer >= 0;
}

}  // namespace

std::vector<PipelineFlow> pipeline_flows(const std::vector<TraceEvent>& events) {
  int pp = 1;
  std::map<PassKey, std::vector<std::size_t>> passes;  // each pass's compute slices, by start
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    pp = std::max(pp, e.stage + 1);
    if (e.stream == "compute" && e.count == 1 && e.microbatch >= 0 && (e.kind == "forward" || e.kind == "backward"))
      passes[{e.step, e.replica, e.stage, e.microbatch, e.layer, e.kind}].push_back(i);
  }
  for (auto& [key, ids] : passes)
    std::stable_sort(ids.begin(), ids.end(),
                     [&](std::size_t a, std::size_t b) { return events[a].start_s < events[b].start_s; });
  // The pass's last slice that began by `at`, if it ended by then too.
  const auto sender = [&](const PassKey& key, double at) -> std::optional<std::size_t> {
    const auto it = passes.find(key);
    if (it == passes.end()) return std::nullopt;
    std::optional<std::size_t> last;
    for (const std::size_t i : it->second)
      if (events[i].start_s <= at) last = i;
    if (!last || events[*last].end_s > at + k_tolerance_s) return std::nullopt;
    return last;
  };
  std::vector<PipelineFlow> flows;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& t = events[i];
    if (!is_transfer(t)) continue;
    const int s = t.stage;
    const int c = t.layer;
    const PassKey forward{t.step, t.replica, (s + pp - 1) % pp, t.microbatch, s > 0 ? c : c - 1, "forward"};
    const PassKey backward{t.step, t.replica, (s + 1) % pp, t.microbatch, s < pp - 1 ? c : c + 1, "backward"};
    const std::optional<std::size_t> f = sender(forward, t.start_s);
    const std::optional<std::size_t> b = sender(backward, t.start_s);
    std::optional<std::size_t> from = f ? f : b;
    if (f && b && events[*b].end_s > events[*f].end_s) from = b;  // the later one sent it
    if (from) flows.push_back({*from, i});
  }
  return flows;
}

}  // namespace trainsim
