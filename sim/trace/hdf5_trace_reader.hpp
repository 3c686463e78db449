#pragma once
// Reads a trace written by write_hdf5_trace back into TraceContents (the round-trip tests
// and tools). Throws trainsim::Error when the file is not a trace of a known major schema
// version, or lacks a documented dataset or attribute. Older minor versions read too: a 1.0
// trace has no links, and 1.0 and 1.1 traces no run.

#include <string>

#include "sim/trace/trace_contents.hpp"

namespace trainsim {

TraceContents read_hdf5_trace(const std::string& path);

}  // namespace trainsim
