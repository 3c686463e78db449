#pragma once
// A calibration table from a PyTorch profiler trace: each GPU kernel is paired with the op
// that launched it (launch_pairing.hpp), ops are mapped to table rows (op_rules.hpp), and
// the calls of one row merged.
//
// Which op a kernel belongs to: of the ops enclosing its launch, the outermost that has a
// rule (aten::linear over the aten::addmm it calls; aten::rms_norm over the pow, mean and
// mul it decomposes into), so a composite op's kernels are timed together. A call's time is
// the sum of the durations of the kernels (and memsets) it launched; memcpy events are rows
// of their own. Calls of one (kernel, dtype, shape) are merged into one row with their
// median time (the mean of the two middle times for an even count) and their count.

#include <string>
#include <vector>

#include "sim/profile/launch_gaps.hpp"
#include "sim/profile/op_rules.hpp"
#include "sim/profile/profiler_trace.hpp"

namespace trainsim::profile {

/// One row of the table.
struct ProfileRow {
  MappedOp op;                   ///< shape, FLOP and bytes per call
  double time_s = 0;             ///< median GPU time per call, seconds
  double min_s = 0;              ///< fastest call, seconds
  double max_s = 0;              ///< slowest call, seconds
  int calls = 0;                 ///< calls merged
  std::vector<std::string> ops;  ///< names of the PyTorch ops that ran it, sorted
};

/// GPU work that no row holds, by kernel name.
struct UnmappedKernel {
  std::string name;            ///< the kernel's (or copy's) name as the trace gives it
  int count = 0;               ///< activities of that name left out
  double time_s = 0;           ///< their summed duration, seconds
  std::string launched_by;     ///< the innermost op of their launch (the most frequent one)
  std::string reason;          ///< why (the most frequent reason)
  bool communication = false;  ///< an NCCL kernel: communication, never a compute row
};

struct ProfileSummary {
  int activities = 0;                    ///< GPU kernels, copies and memsets in the trace
  int mapped = 0;                        ///< of them, timed in some row
  double gpu_time_s = 0;                 ///< all their durations, seconds
  double mapped_time_s = 0;              ///< the mapped ones', seconds
  double communication_time_s = 0;       ///< NCCL kernels', seconds
  std::vector<UnmappedKernel> unmapped;  ///< largest time first
  LaunchGaps launch_gaps;                ///< between kernels queued back to back (training.kernel_gap)
};

struct ProfileCalibration {
  std::string file;                   ///< the trace
  std::string gpu;                    ///< deviceProperties' name (or the caller's override)
  bool integer_microseconds = false;  ///< the trace's GPU durations are whole microseconds
  std::vector<ProfileRow> rows;       ///< by kernel, dtype, m, n, k, batch
  ProfileSummary summary;
};

/// The rows and summary of `trace`. Calls whose median time is zero (under an
/// integer-microsecond trace's resolution) are left out, as unmapped. Throws InputError
/// naming the trace when no kernel maps to any row (e.g. recorded without shapes).
ProfileCalibration calibrate_from_profile(const ProfilerTrace& trace);

}  // namespace trainsim::profile
