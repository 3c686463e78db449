#include "sim/sweep/read_file.hpp"

#include <fstream>
#include <sstream>

namespace trainsim::sweep {

std::string read_file_or_empty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace trainsim::sweep
