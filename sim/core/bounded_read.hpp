#pragma once
// Every input file trainsim reads whole goes through here, with a cap stated by its reader:
// past the cap the read stops and the file is refused with one line (InputError naming the
// file, what it is and the cap), in bounded memory. Bytes are counted as they are read, not
// taken from stat(2), which says 0 for /dev/zero, a FIFO or a process substitution. A gzip
// stream is inflated with its own cap on what it inflates to, so that a few MB of compressed
// zeros (a "gzip bomb", about 1,000:1 for deflate) are refused as soon as the cap is passed.

#include <cstddef>
#include <fstream>
#include <istream>
#include <string>
#include <string_view>

namespace trainsim {

/// `path` opened for reading. Throws InputError(path, "", "", cannot_open + ": " + the system's
/// reason) when it cannot be: "cannot open the scenario file: Permission denied" (or "No such
/// file or directory", "Is a directory"); before, the reason was left out.
std::ifstream opened_input(const std::string& path, const std::string& cannot_open);

/// Everything `in` holds, at most `cap_bytes`. Throws InputError(path, "", "", rule) naming
/// `what` ("the scenario file") and the cap when there is more, or when the read fails (with the
/// system's reason). `expected_bytes` (a regular file's size) is reserved up front, so that a
/// file near the cap is not held twice while the string grows.
std::string read_capped(std::istream& in, std::size_t cap_bytes, const std::string& path, const std::string& what,
                        std::size_t expected_bytes = 0);

/// True when `bytes` starts with the gzip magic (RFC 1952 §2.3.1: 0x1f 0x8b).
bool starts_as_gzip(std::string_view bytes);

/// Every gzip member of `gz` inflated (gzip allows several, concatenated), at most `cap_bytes`
/// in all. Throws InputError naming `path`, `what` and the cap past it, and for a stream that
/// is corrupt, truncated, or followed by bytes that are not another member.
std::string gunzip_capped(std::string_view gz, std::size_t cap_bytes, const std::string& path, const std::string& what);

/// Throws InputError(path, "", "", "WHAT VERB more than CAP, the most trainsim reads"); `verb` is
/// "holds" or "inflates to".
[[noreturn]] void refuse_past_cap(const std::string& path, const std::string& what, std::size_t cap_bytes,
                                  const char* verb);

/// A cap for messages: "16 MiB", "1 GiB", or bytes when not a whole number of either.
std::string cap_text(std::size_t bytes);

}  // namespace trainsim
