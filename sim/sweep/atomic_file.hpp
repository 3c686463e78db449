#pragma once
// Files that appear whole or not at all: written under a temporary name in the same folder,
// flushed, then renamed over the target (rename is atomic within one file system). A reader,
// or a rerun after kill -9, sees the old file or the new one, never half of one.

#include <string>

namespace trainsim::sweep {

/// Writes `text` to `path` atomically. Temporary names end in ".tmp" (see
/// is_temporary_name). Throws trainsim::Error if the folder cannot be written.
void write_file_atomically(const std::string& path, const std::string& text);

/// The name under which `path` is written before the rename: path.HOST.PID.tmp (unique per
/// process, also across the nodes of a shared file system).
std::string temporary_name(const std::string& path);

/// Whether a file name is such a temporary name (left behind by a killed writer).
bool is_temporary_name(const std::string& file_name);

/// The whole file, or nothing if it cannot be read.
std::string read_file_or_empty(const std::string& path);

}  // namespace trainsim::sweep
