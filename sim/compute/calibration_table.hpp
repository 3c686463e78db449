#pragma once
// A calibration table: kernel timings measured by kernels/trainsim-calibrate on one GPU, or
// derived from cited published figures (kernels/calibration/derive_tables.py). The file
// format is documented in kernels/README.md ("Calibration table format"):
//
//   # key: value                       header lines (gpu, source, clocks, versions, date, ...)
//   kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps
//   gemm,bf16,4096,4096,4096,1,1.9e-04,1.37e+11,1.0e+08,722.1,528.7
//
// Units: time_s in seconds, flops in FLOP, bytes in bytes (HBM traffic), tflops in 1e12
// FLOP/s, gbps in 1e9 bytes/s. m, n, k, batch are the shape fields of the kernel (see
// kernels/README.md for what each kernel puts in them).

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace trainsim {

struct CalibrationRow {
  std::string kernel;  ///< "gemm", "batched_gemm", "attention_fwd", "rmsnorm", "adam", ...
  std::string dtype;   ///< "bf16", "fp16", "fp8", "tf32", "fp32"
  double m = 0;
  double n = 0;
  double k = 0;
  double batch = 1;
  double time_s = 0;  ///< seconds per call
  double flops = 0;   ///< FLOP per call
  double bytes = 0;   ///< HBM bytes per call
  int line = 0;       ///< 1-based line in the file, for error messages
};

struct CalibrationTable {
  std::string file;                           ///< where it was read from
  std::map<std::string, std::string> header;  ///< "# key: value" lines, keys lower-case
  std::vector<CalibrationRow> rows;           ///< in file order

  /// True if the `source` header says `measured`; false for `derived from ...`.
  bool measured() const;
  /// The `source` header value.
  std::string source() const;
};

/// The column header line every table carries after its `#` lines.
std::string calibration_columns();

/// Reads and validates `path`. Throws InputError(file, "line L[, column C]", value, rule)
/// for a missing file, a missing `gpu` or `source` header, a wrong column line, a row with
/// the wrong number of fields, a number that does not parse, a non-finite, negative or
/// zero time, negative shape fields, flops or bytes, or an empty kernel or dtype.
CalibrationTable read_calibration_table(const std::string& path);

/// As read_calibration_table, from a stream; `file` names it in error messages.
CalibrationTable parse_calibration_table(std::istream& in, const std::string& file);

}  // namespace trainsim
