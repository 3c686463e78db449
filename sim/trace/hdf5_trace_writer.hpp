#pragma once
// Writes a trace as HDF5 (schema: analysis/SCHEMA.md, version k_trace_schema_version):
// root attributes, /summary, /steps, /events, /memory, /links, and the run-level simulation's
// /run, /failures and /checkpoints (empty, and saying so, without one). Tables are chunked and
// deflate-compressed. The file is written as sim/core/output_file.hpp writes every output
// (whole or not at all; a device or FIFO written through); a failed write throws OutputError. Objects
// carry no modification times, so equal contents give equal files (sim_wall_s in /summary is
// the one wall-clock value).

#include <string>

#include "sim/trace/trace_contents.hpp"

namespace trainsim {

void write_hdf5_trace(const std::string& path, const TraceContents& contents);

}  // namespace trainsim
