#pragma once
// A "gzip bomb": a small gzip file that inflates to far more than it holds, as the tests of the
// readers' caps need (sim/core/bounded_read.hpp).

#include <cstddef>
#include <string>

namespace trainsim::testing {

/// Writes to `path` a gzip file of zeros that inflates to at least `inflated_bytes`: one member
/// of 64 MiB of zeros (about 64 KB compressed, deflate's ratio on zeros being about 1,000:1),
/// repeated (RFC 1952 §2.2: a gzip file is a series of members). 6 GiB take about 6 MB.
void write_gzip_bomb(const std::string& path, std::size_t inflated_bytes);

}  // namespace trainsim::testing
