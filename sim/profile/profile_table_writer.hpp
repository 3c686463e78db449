#pragma once
// The text of a calibration table built from a profiler trace, in trainsim's format
// (kernels/README.md, "Calibration table format"; read back by
// sim/compute/calibration_table.hpp), and the mapping summary.
//
//   # gpu: NVIDIA A100-PG509-200
//   # source: measured (PyTorch profiler trace control-step.json.gz)
//   # date_utc: ...          # tool: ...          # timing: ...
//   # gpu_time_mapped: ...   # unmapped: ...      (the largest unmapped kernels)
//   kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps
//   # 6 calls of aten::mm, 41 us .. 43 us      (a comment: the row's calls)
//   gemm,tf32,1024,256,2880,1,4.2e-05,...

#include <cstddef>
#include <string>

#include "sim/profile/profile_calibration.hpp"

namespace trainsim::profile {

/// What the header records besides the trace.
struct TableProvenance {
  std::string date_utc;  ///< "2026-01-31T12:00:00Z"
  std::string tool;      ///< the command line that wrote it
};

/// The whole table. `#` lines after the column line are comments the reader skips: each
/// row is preceded by one giving its calls, their range and the PyTorch ops.
std::string profile_table_text(const ProfileCalibration& calibration, const TableProvenance& provenance);

/// The summary for a terminal: kernels mapped, the share of GPU time mapped (with and
/// without communication), and the `max_unmapped` largest unmapped kernels by name with
/// their share of GPU time, count, launching op and reason.
std::string profile_summary_text(const ProfileCalibration& calibration, std::size_t max_unmapped);

/// A kernel name shortened for one line: no leading "void ", no parameter list, at most
/// `width` characters ("..." marks a cut).
std::string short_kernel_name(const std::string& name, std::size_t width);

}  // namespace trainsim::profile
