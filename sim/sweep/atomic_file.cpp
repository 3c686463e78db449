#include "sim/sweep/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"

namespace trainsim::sweep {

namespace {
constexpr const char* k_suffix = ".tmp";

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error("cannot write " + path + ": " + what + ": " + std::strerror(errno));
}
}  // namespace

std::string temporary_name(const std::string& path) {
  // Host and process: shards on several nodes may write into one shared folder.
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return path + "." + host + "." + std::to_string(::getpid()) + k_suffix;
}

bool is_temporary_name(const std::string& file_name) {
  const std::string suffix = k_suffix;
  return file_name.size() > suffix.size() &&
         file_name.compare(file_name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = temporary_name(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("open", tmp);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      fail("write", tmp);
    }
    done += static_cast<size_t>(n);
  }
  // fsync before rename: after a power cut the new name never points at missing data.
  if (::fsync(fd) != 0 || ::close(fd) != 0) fail("sync", tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename", tmp);
}

std::string read_file_or_empty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace trainsim::sweep
