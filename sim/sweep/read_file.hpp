#pragma once
// Reading back what a sweep wrote (point results, the manifest, a worker's output). The
// writing side is sim/core/output_file.hpp: files appear whole or not at all.

#include <string>

namespace trainsim::sweep {

/// The whole file, or nothing if it cannot be read.
std::string read_file_or_empty(const std::string& path);

}  // namespace trainsim::sweep
