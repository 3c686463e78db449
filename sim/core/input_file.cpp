#include "sim/core/input_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "sim/core/bounded_read.hpp"
#include "sim/core/error.hpp"

namespace trainsim {

std::string file_kind_name(unsigned mode) {
  if (S_ISREG(mode)) return "a file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

std::string read_input_file(const std::string& path, const InputFileRule& rule) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;  // before the message's allocations
    throw InputError(path, "", "", rule.cannot_open + ": " + std::strerror(error));
  }
  const bool regular = S_ISREG(st.st_mode);
  if (S_ISDIR(st.st_mode)) throw InputError(path, "", "", rule.cannot_open + ": " + std::strerror(EISDIR));
  if (!regular && !(rule.pipes && S_ISFIFO(st.st_mode)))
    throw InputError(path, "", "",
                     rule.what + " is " + file_kind_name(st.st_mode) + ", not a file" +
                         (rule.pipes ? " or a pipe: trainsim reads it whole, and a device may never end"
                                     : ": trainsim wrote a plain file here; remove it"));
  if (regular && static_cast<std::size_t>(st.st_size) > rule.cap_bytes)
    refuse_past_cap(path, rule.what, rule.cap_bytes, "holds");
  std::ifstream in = opened_input(path, rule.cannot_open);
  return read_capped(in, rule.cap_bytes, path, rule.what, regular ? static_cast<std::size_t>(st.st_size) : 0);
}

}  // namespace trainsim
