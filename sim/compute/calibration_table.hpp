#pragma once
// A calibration table: kernel timings measured by kernels/trainsim-calibrate on one GPU,
// converted from public measurements (kernels/calibration/convert_public.py), or derived from
// cited published figures. The file format is documented in kernels/README.md ("Calibration
// table format"):
//
//   # key: value                       header lines (gpu, source, clocks, versions, date, ...)
//   kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps[,origin]
//   gemm,bf16,4096,4096,4096,1,1.9e-04,1.37e+11,1.0e+08,722.1,528.7[,measured:xla]
//
// Units: time_s in seconds, flops in FLOP, bytes in bytes (HBM traffic), tflops in 1e12
// FLOP/s, gbps in 1e9 bytes/s. m, n, k, batch are the shape fields of the kernel (see
// kernels/README.md for what each kernel puts in them). The optional 12th column `origin`
// says where a row comes from: `measured:<source>` or `derived:<rule>`.

#include <cstddef>
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
  double time_s = 0;   ///< seconds per call
  double flops = 0;    ///< FLOP per call
  double bytes = 0;    ///< HBM bytes per call
  std::string origin;  ///< "measured:<source>" or "derived:<rule>"; empty without the origin column
  int line = 0;        ///< 1-based line in the file, for error messages

  /// True if the row is a measurement: its origin says `measured:`, or, in a table without the
  /// origin column, the table is a trainsim-calibrate measurement.
  bool measured(bool table_measured) const;
};

/// What the `# source:` header says the table is.
enum class CalibrationSource {
  measured,   ///< "measured": trainsim-calibrate on this GPU; every row is a measurement
  converted,  ///< "converted from <citations>": public measurements, with derived rows marked by `origin`
  derived,    ///< "derived from <citations>": figures, not kernel timings
};

struct CalibrationTable {
  std::string file;                           ///< where it was read from
  std::map<std::string, std::string> header;  ///< "# key: value" lines, keys lower-case
  std::vector<CalibrationRow> rows;           ///< in file order
  bool has_origin = false;                    ///< the column line has the 12th column `origin`

  /// True if the `source` header says `measured` (a trainsim-calibrate table).
  bool measured() const;
  /// The kind of table the `source` header names.
  CalibrationSource source_kind() const;
  /// The `source` header value.
  std::string source() const;
  /// Rows that are measurements (CalibrationRow::measured).
  std::size_t measured_rows() const;
};

/// The column header line every table carries after its `#` lines: the 11 columns, and with
/// `with_origin` the 12th, `origin`.
std::string calibration_columns(bool with_origin = false);

/// Reads and validates `path`. Throws InputError(file, "line L[, column C]", value, rule)
/// for a missing file, a missing `gpu` or `source` header (source: `measured`, `converted
/// from ...` or `derived from ...`), a wrong column line (either column line above), a row
/// with a number of fields other than the column line's, a number that does not parse, a
/// non-finite, negative or zero time, negative shape fields, flops or bytes, an empty kernel
/// or dtype, or an origin that is not `measured:<name>` or `derived:<name>` (a name of
/// letters, digits and . _ + -).
CalibrationTable read_calibration_table(const std::string& path);

/// As read_calibration_table, from a stream; `file` names it in error messages.
CalibrationTable parse_calibration_table(std::istream& in, const std::string& file);

}  // namespace trainsim
