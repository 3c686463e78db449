#pragma once
// Reading back what a sweep wrote (point results, the manifest, a worker's output). The
// writing side is sim/core/output_file.hpp: files appear whole or not at all.

#include <cstddef>
#include <string>

namespace trainsim::sweep {

/// The most bytes read back from one such file: 1 GiB. A point's result and a worker's
/// `run --json` are kilobytes; the manifest some 300 to 400 bytes a point (its scenario path,
/// values, overrides, fingerprint: sweep_plan.cpp), some 400 MB at the 1,000,000 points a sweep
/// may have. The cap stops a file put there by someone else, or a device, from being held in
/// memory whole (core/bounded_read.hpp).
inline constexpr std::size_t k_max_sweep_file_bytes = std::size_t{1} << 30;

/// The whole file, or nothing if there is none; InputError naming it when it is not a regular
/// file (a device, a FIFO, a folder), cannot be opened, or holds more than
/// k_max_sweep_file_bytes (checked from its size, before it is read).
std::string read_file_or_empty(const std::string& path);

}  // namespace trainsim::sweep
