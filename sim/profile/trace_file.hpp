#pragma once
// The bytes of a PyTorch profiler trace file: plain JSON, or gzip-compressed JSON
// (`torch.profiler.tensorboard_trace_handler(..., use_gzip=True)` writes `.json.gz`).
// Compression is recognised by the gzip magic bytes (RFC 1952 §2.3.1: 0x1f 0x8b), not by
// the file name.

#include <cstddef>
#include <string>

namespace trainsim::profile {

/// The most bytes of a profiler trace read, as a file and decompressed: 256 MiB. Real ones:
/// HolisticTraceAnalysis' A100 trace of a recommendation model (rank 3 of 8, several steps,
/// 109,123 events) is 1.8 MB gzip, 35 MB of JSON; a few steps of a large model with shapes
/// recorded reach a few hundred MB (record fewer steps). Why not more: the parsed JSON takes
/// some 7.6 times the text (that trace: 309 MB of RSS against 44 MB for a tiny one), and
/// `calibrate --from-profile` must stay inside a 4 GB address space (`ulimit -v 4000000`),
/// where the process starts with some 1.2 GB reserved (core/large_stack_call.hpp): 256 MiB of
/// text and its tree take some 2.2 GB by that ratio (not measured at the cap).
inline constexpr std::size_t k_max_profiler_trace_bytes = std::size_t{256} << 20;

/// The whole file as text, decompressed when it is gzip. Throws InputError(path, ...) when
/// the file cannot be opened, its gzip stream is corrupt or truncated, or the file or its
/// text is larger than k_max_profiler_trace_bytes (core/bounded_read.hpp).
std::string read_trace_text(const std::string& path);

/// True when `path` looks like a profiler trace rather than a trainsim calibration table:
/// it is gzip, or its first non-blank character opens a JSON object or array (a table
/// starts with `#` header lines). False when the file cannot be read.
bool looks_like_profiler_trace(const std::string& path);

}  // namespace trainsim::profile
