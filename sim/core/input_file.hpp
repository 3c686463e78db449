#pragma once
// Reading one input file whole: what kind of file it may be, and the cap checked before the
// first byte is read where the size is known. Devices are refused unopened: `/dev/zero` given
// as a sweep's point file was read up to the 1 GiB cap (6 s, 2.1 GB of memory) before it was
// refused. A regular file larger than the cap is refused from its size, unread. A pipe (a
// FIFO, `<(zcat trace.gz)`) has no size: it is read with the cap (core/bounded_read.hpp).

#include <cstddef>
#include <string>

namespace trainsim {

/// How one reader reads its files.
struct InputFileRule {
  std::string what;         ///< for messages: "the scenario or sweep file"
  std::string cannot_open;  ///< "cannot open the scenario file" (the system's reason is added)
  std::size_t cap_bytes = 0;
  bool pipes = true;  ///< false: regular files only (the files trainsim wrote itself)
};

/// The whole file at `path` (links followed). Throws InputError(path, "", "", rule) with one
/// line when it cannot be opened (the system's reason), is a folder, a device or a socket (or a
/// pipe where `rule.pipes` is false), or holds more than `rule.cap_bytes`.
std::string read_input_file(const std::string& path, const InputFileRule& rule);

/// "a character device", "a block device", "a socket", "a FIFO (pipe)", "a directory" or "a
/// file" for the st_mode of stat(2).
std::string file_kind_name(unsigned mode);

}  // namespace trainsim
