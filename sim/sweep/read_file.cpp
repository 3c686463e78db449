#include "sim/sweep/read_file.hpp"

#include <fstream>

#include "sim/core/bounded_read.hpp"

namespace trainsim::sweep {

std::string read_file_or_empty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return read_capped(in, k_max_sweep_file_bytes, path, "a file of the sweep's folder");
}

}  // namespace trainsim::sweep
