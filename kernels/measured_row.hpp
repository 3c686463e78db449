#pragma once
// One row of a calibration CSV, and its text form. The format (header lines, columns,
// units, what each kernel puts in m, n, k, batch) is documented in kernels/README.md; the
// simulator's reader is sim/compute/calibration_table.hpp.

#include <string>
#include <vector>

namespace trainsim::kernels {

struct MeasuredRow {
  std::string kernel;  ///< "gemm", "batched_gemm", "attention_fwd", "rmsnorm", ...
  std::string dtype;   ///< "bf16", "fp16", "fp8", "tf32", "fp32", "u8"
  double m = 0, n = 0, k = 0, batch = 1;
  double time_s = 0;  ///< seconds per call
  double flops = 0;   ///< FLOP per call
  double bytes = 0;   ///< HBM (or PCIe, for host copies) bytes per call
};

/// "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps"
std::string csv_columns();
/// The row as a CSV line (no newline): integral fields as integers, times and rates to six
/// significant digits.
std::string csv_line(const MeasuredRow& row);

}  // namespace trainsim::kernels
