#include "sim/sweep/read_file.hpp"

#include <sys/stat.h>

#include "sim/core/input_file.hpp"

namespace trainsim::sweep {

std::string read_file_or_empty(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  // The sweep wrote plain files here: a device or FIFO in their place (`points/000000.json` linked
  // to /dev/zero) is refused unread; it was read up to the cap, 6 s and 2.1 GB.
  return read_input_file(path, {"a file of the sweep's folder", "cannot open a file of the sweep's folder",
                                k_max_sweep_file_bytes, false});
}

}  // namespace trainsim::sweep
