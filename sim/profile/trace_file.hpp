#pragma once
// The bytes of a PyTorch profiler trace file: plain JSON, or gzip-compressed JSON
// (`torch.profiler.tensorboard_trace_handler(..., use_gzip=True)` writes `.json.gz`).
// Compression is recognised by the gzip magic bytes (RFC 1952 §2.3.1: 0x1f 0x8b), not by
// the file name.

#include <string>

namespace trainsim::profile {

/// The whole file as text, decompressed when it is gzip. Throws InputError(path, ...) when
/// the file cannot be opened or its gzip stream is corrupt or truncated.
std::string read_trace_text(const std::string& path);

/// True when `path` looks like a profiler trace rather than a trainsim calibration table:
/// it is gzip, or its first non-blank character opens a JSON object or array (a table
/// starts with `#` header lines). False when the file cannot be read.
bool looks_like_profiler_trace(const std::string& path);

}  // namespace trainsim::profile
