#include "sim/profile/profile_calibration.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "sim/core/error.hpp"
#include "sim/profile/launch_pairing.hpp"

namespace trainsim::profile {

namespace {

constexpr double k_us = 1e-6;

bool is_communication(const std::string& kernel) {
  return kernel.rfind("nccl", 0) == 0 || kernel.rfind("void nccl", 0) == 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The most frequent value of a tally (the first in order on ties).
std::string most_frequent(const std::map<std::string, int>& tally) {
  std::string best;
  int count = 0;
  for (const auto& [value, n] : tally)
    if (n > count) {
      best = value;
      count = n;
    }
  return best;
}

// Unmapped work, tallied per kernel name.
class UnmappedTally {
 public:
  void add(const GpuActivity& g, const std::string& launched_by, const std::string& reason) {
    Entry& e = entries_[g.name];
    e.count += 1;
    e.time_us += g.duration_us;
    e.launched_by[launched_by] += 1;
    e.reasons[reason] += 1;
  }

  std::vector<UnmappedKernel> kernels() const {
    std::vector<UnmappedKernel> out;
    for (const auto& [name, e] : entries_)
      out.push_back({name, e.count, e.time_us * k_us, most_frequent(e.launched_by), most_frequent(e.reasons),
                     is_communication(name)});
    std::stable_sort(out.begin(), out.end(),
                     [](const UnmappedKernel& a, const UnmappedKernel& b) { return a.time_s > b.time_s; });
    return out;
  }

 private:
  struct Entry {
    int count = 0;
    double time_us = 0;
    std::map<std::string, int> launched_by;
    std::map<std::string, int> reasons;
  };
  std::map<std::string, Entry> entries_;
};

// The calls of one row: per call its time and the activities it ran.
struct RowCalls {
  MappedOp op;
  std::vector<double> times_us;
  std::vector<std::vector<std::size_t>> activities;
  std::set<std::string> ops;
};

std::string innermost_name(const ProfilerTrace& trace, const std::vector<std::size_t>& chain) {
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    if (!trace.ops[*it].annotation) return trace.ops[*it].name;
  return chain.empty() ? "(no CPU op)" : trace.ops[chain.back()].name;
}

}  // namespace

ProfileCalibration calibrate_from_profile(const ProfilerTrace& trace) {
  const std::vector<LaunchedWork> work = pair_launches(trace);
  UnmappedTally unmapped;
  // Rows by shape and per-call work (a causal and a full attention of one shape differ).
  std::map<std::tuple<RowShape, double, double>, RowCalls> rows;
  const auto add_call = [&](const MappedOp& op, double time_us, std::vector<std::size_t> activities,
                            const std::string& op_name) {
    RowCalls& r = rows[{op.shape, op.flops, op.bytes}];
    r.op = op;
    r.times_us.push_back(time_us);
    r.activities.push_back(std::move(activities));
    r.ops.insert(op_name);
  };

  // Kernels and memsets by the op instance that owns them: the outermost op with a rule.
  std::map<std::size_t, std::vector<std::size_t>> by_op;
  std::vector<std::string> launcher(trace.gpu.size());
  for (const LaunchedWork& w : work) {
    const GpuActivity& g = trace.gpu[w.activity];
    launcher[w.activity] = innermost_name(trace, w.op_chain);
    if (g.kind == GpuActivityKind::memcpy) {
      const OpMapping m = map_memcpy(g);
      if (m.row)
        add_call(*m.row, g.duration_us, {w.activity}, launcher[w.activity]);
      else
        unmapped.add(g, launcher[w.activity], m.reason);
      continue;
    }
    if (!w.launch_found) {
      unmapped.add(g, "(no launch event)", "no runtime launch event has its correlation id");
      continue;
    }
    const auto owner = std::find_if(w.op_chain.begin(), w.op_chain.end(), [&](std::size_t i) {
      return !trace.ops[i].annotation && has_rule(trace.ops[i].name);
    });
    if (owner == w.op_chain.end()) {
      unmapped.add(g, launcher[w.activity],
                   w.op_chain.empty() ? "no CPU op encloses its launch" : "no rule for its ops");
      continue;
    }
    by_op[*owner].push_back(w.activity);
  }
  for (const auto& [op_index, activities] : by_op) {
    const TraceOp& op = trace.ops[op_index];
    std::vector<std::string> kernel_names;
    double time_us = 0;
    for (std::size_t a : activities) {
      time_us += trace.gpu[a].duration_us;
      if (trace.gpu[a].kind == GpuActivityKind::kernel) kernel_names.push_back(trace.gpu[a].name);
    }
    const OpMapping m = map_op(op, kernel_names);
    if (m.row) {
      add_call(*m.row, time_us, activities, op.name);
    } else {
      for (std::size_t a : activities) unmapped.add(trace.gpu[a], op.name, m.reason);
    }
  }

  ProfileCalibration out;
  out.file = trace.file;
  out.gpu = trace.gpu_name;
  out.integer_microseconds = trace.integer_microseconds;
  ProfileSummary& s = out.summary;
  s.activities = static_cast<int>(trace.gpu.size());
  for (const GpuActivity& g : trace.gpu) {
    s.gpu_time_s += g.duration_us * k_us;
    if (g.kind == GpuActivityKind::kernel && is_communication(g.name)) s.communication_time_s += g.duration_us * k_us;
  }
  for (auto& [key, calls] : rows) {
    const double median_us = median(calls.times_us);
    if (median_us <= 0) {
      for (const auto& activities : calls.activities)
        for (std::size_t a : activities)
          unmapped.add(trace.gpu[a], launcher[a], "its calls take under the trace's 1 us time resolution");
      continue;
    }
    ProfileRow row;
    row.op = calls.op;
    row.time_s = median_us * k_us;
    row.min_s = *std::min_element(calls.times_us.begin(), calls.times_us.end()) * k_us;
    row.max_s = *std::max_element(calls.times_us.begin(), calls.times_us.end()) * k_us;
    row.calls = static_cast<int>(calls.times_us.size());
    row.ops.assign(calls.ops.begin(), calls.ops.end());
    for (const auto& activities : calls.activities) {
      s.mapped += static_cast<int>(activities.size());
      for (std::size_t a : activities) s.mapped_time_s += trace.gpu[a].duration_us * k_us;
    }
    out.rows.push_back(std::move(row));
  }
  s.unmapped = unmapped.kernels();
  s.launch_gaps = measure_launch_gaps(trace);
  if (out.rows.empty())
    throw InputError(trace.file, "traceEvents", "",
                     "none of its " + std::to_string(s.activities) +
                         " GPU activities maps to a calibration row (GEMMs, norms, softmax, GELU/SiLU, add, copies, "
                         "fused attention, fused Adam with their shapes): record with record_shapes=True");
  return out;
}

}  // namespace trainsim::profile
