#include "sim/core/output_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <system_error>
#include <vector>

#include "sim/core/error.hpp"

namespace trainsim {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_temporary_suffix = ".tmp";
static_assert(k_temporary_prefix.front() == '.', "temporaries are hidden files");
// Linux's own bound on links followed in one path resolution (MAXSYMLINKS in namei.c).
constexpr int k_max_link_hops = 40;
constexpr std::size_t k_copy_chunk_bytes = 1 << 20;

std::string system_reason(int error) {
  return std::strerror(error);
}

std::string host_and_pid() {
  // Host and process: shards on several nodes may write into one shared folder.
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + "." + std::to_string(::getpid());
}

// The target of `path`, or the rule it breaks.
struct Resolution {
  OutputTarget target;
  std::string problem;  ///< empty when the path can be written
};

Resolution resolve(const std::string& path) {
  Resolution r;
  r.target.path = path;
  if (path.empty()) return {r.target, "needs a file name"};
  fs::path p = path;
  std::error_code ec;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    if (hops == k_max_link_hops) return {r.target, "names a loop of symbolic links"};
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) return {r.target, "cannot read the symbolic link '" + p.string() + "': " + ec.message()};
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  r.target.resolved = p.string();
  const fs::file_status st = fs::status(p, ec);
  switch (st.type()) {
    case fs::file_type::not_found:
    case fs::file_type::regular: {
      const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
      if (!fs::is_directory(parent, ec)) return {r.target, "the directory '" + parent.string() + "' does not exist"};
      if (const auto reason = refuses_new_files(parent.string()))
        return {r.target, "cannot create a file in the directory '" + parent.string() + "': " + *reason};
      return r;
    }
    case fs::file_type::character:
    case fs::file_type::block:
    case fs::file_type::fifo:
      r.target.write_through = true;
      if (::access(p.c_str(), W_OK) != 0) return {r.target, "cannot be written: " + system_reason(errno)};
      return r;
    case fs::file_type::directory:
      return {r.target, "is a directory, not a file name"};
    case fs::file_type::socket:
      return {r.target, "is a socket: outputs go to files, devices or FIFOs"};
    default:
      return {r.target, "is neither a file, a device nor a FIFO"};
  }
}

// The temporary file of a device or FIFO target: in the system's temporary folder, since
// the device's own folder (/dev) is no place for files.
std::string write_through_temporary(const OutputTarget& t) {
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  return (dir / temporary_file_name(fs::path(t.resolved).filename().string())).string();
}

// write(2) of all of `size` bytes, retried on EINTR and short writes; 0 or the errno.
int write_all(int fd, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// Copies `from` into the open `to`: 0 or the errno. SIGPIPE (a FIFO whose reader left) is
// blocked on this thread and discarded, so the error arrives as EPIPE, not as the signal's
// default action of ending the process.
int copy_into(const std::string& from, int to) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return errno;
  sigset_t pipe_only, previous;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  std::vector<char> buffer(k_copy_chunk_bytes);
  int error = 0;
  while (error == 0) {
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = errno;
    if (n <= 0) break;
    error = write_all(to, buffer.data(), static_cast<std::size_t>(n));
  }
  if (error == EPIPE) {
    const timespec none{0, 0};
    sigtimedwait(&pipe_only, nullptr, &none);
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ::close(in);
  return error;
}

// Opens the temporary file afresh: a name left by an earlier process with the same host and
// pid is removed first (O_EXCL never follows a link planted under the name).
int create_temporary(const std::string& temp) {
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(temp.c_str()) == 0)
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  return fd;
}

}  // namespace

OutputTarget output_target(const std::string& path, const std::string& option) {
  Resolution r = resolve(path);
  if (!r.problem.empty()) throw InputError("", option, path, r.problem);
  // Once per output and command (not per write: a sweep's folder holds a file per point).
  const fs::path temp = r.target.write_through ? write_through_temporary(r.target) : temporary_name(r.target.resolved);
  remove_stale_temporaries(temp.parent_path().string(), fs::path(r.target.resolved).filename().string());
  if (r.target.write_through) {
    const fs::path dir = fs::path(write_through_temporary(r.target)).parent_path();
    if (const auto reason = refuses_new_files(dir.string()))
      throw InputError("", option, path,
                       "needs a temporary file in '" + dir.string() + "' (TMPDIR), which refuses one: " + *reason);
  }
  return r.target;
}

std::optional<std::string> refuses_new_files(const std::string& dir) {
  const std::string probe = (fs::path(dir) / temporary_file_name("write-probe")).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return system_reason(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return std::nullopt;
}

void check_output_path(const std::string& path, const std::string& option) {
  (void)output_target(path, option);
}

void check_output_path(const std::string& path, const std::string& option, const std::vector<std::string>& inputs) {
  const OutputTarget target = output_target(path, option);
  struct stat out {};
  if (target.write_through || ::stat(target.resolved.c_str(), &out) != 0) return;  // a new file, a device
  for (const std::string& input : inputs) {
    struct stat in {};
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      throw InputError("", option, path,
                       "is the input '" + input + "' (links followed): an output never replaces what the command reads");
  }
}

AtomicOutputFile::AtomicOutputFile(std::string final_path) {
  Resolution r = resolve(final_path);
  target_ = std::move(r.target);
  if (!r.problem.empty()) throw OutputError(target_.path, r.problem);
  temp_path_ = target_.write_through ? write_through_temporary(target_) : temporary_name(target_.resolved);
  fd_ = create_temporary(temp_path_);
  if (fd_ < 0) throw OutputError(target_.path, "cannot create " + temp_path_ + ": " + system_reason(errno));
  // A file written over keeps its permissions (a shell's `>` keeps them too).
  struct stat existing {};
  if (!target_.write_through && ::stat(target_.resolved.c_str(), &existing) == 0)
    ::fchmod(fd_, existing.st_mode & 07777);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicOutputFile::append(std::string_view bytes) {
  buffer_.append(bytes);
  if (buffer_.size() >= k_copy_chunk_bytes) flush();
}

void AtomicOutputFile::flush() {
  if (buffer_.empty()) return;
  if (const int error = write_all(fd_, buffer_.data(), buffer_.size()); error != 0)
    throw OutputError(target_.path, system_reason(error));
  buffer_.clear();
}

void AtomicOutputFile::commit() {
  flush();
  // fsync before rename: after a power cut the new name never points at missing data.
  int error = !target_.write_through && ::fsync(fd_) != 0 ? errno : 0;
  if (::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  if (error != 0) throw OutputError(target_.path, system_reason(error));
  if (target_.write_through) {
    // O_WRONLY without O_CREAT or O_TRUNC: a FIFO waits for its reader, as under a shell.
    const int to = ::open(target_.resolved.c_str(), O_WRONLY | O_CLOEXEC);
    if (to < 0) throw OutputError(target_.path, system_reason(errno));
    error = copy_into(temp_path_, to);
    if (::close(to) != 0 && error == 0) error = errno;
    if (error != 0) throw OutputError(target_.path, system_reason(error));
    ::unlink(temp_path_.c_str());
  } else if (std::rename(temp_path_.c_str(), target_.resolved.c_str()) != 0) {
    throw OutputError(target_.path, "cannot rename " + temp_path_ + " into place: " + system_reason(errno));
  }
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  AtomicOutputFile file(path);
  file.append(text);
  file.commit();
}

std::string temporary_file_name(const std::string& file_name) {
  return std::string(k_temporary_prefix) + file_name + "." + host_and_pid() + k_temporary_suffix;
}

std::string temporary_name(const std::string& path) {
  const fs::path p = path;
  return (p.parent_path() / temporary_file_name(p.filename().string())).string();
}

bool is_temporary_name(const std::string& file_name) {
  const std::string_view name = file_name;
  const std::string_view suffix = k_temporary_suffix;
  return name.size() > k_temporary_prefix.size() + suffix.size() && name.starts_with(k_temporary_prefix) &&
         name.ends_with(suffix);
}

namespace {

// The PID of the process of this host that `file_name` (a temporary name) says is writing it,
// or 0 when it names another host or no PID.
pid_t temporary_writer_here(const std::string& file_name) {
  if (!is_temporary_name(file_name)) return 0;
  // NAME.HOST.PID.tmp: the PID is the last part before the suffix, the host the one before it.
  const std::string rest = file_name.substr(0, file_name.size() - std::strlen(k_temporary_suffix));
  const std::size_t dot = rest.rfind('.');
  if (dot == std::string::npos || dot + 1 == rest.size()) return 0;
  const std::string pid_text = rest.substr(dot + 1);
  if (pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos) return 0;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return 0;
  if (!std::string_view(rest).substr(0, dot).ends_with("." + std::string(host))) return 0;
  return static_cast<pid_t>(std::stol(pid_text));
}

bool alive(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

}  // namespace

bool temporary_writer_running(const std::string& file_name) {
  const pid_t pid = temporary_writer_here(file_name);
  if (pid <= 0 || pid == ::getpid()) return false;  // this process' own name: none of its files is open yet
  return alive(pid);
}

bool stale_temporary(const std::string& file_name) {
  const pid_t pid = temporary_writer_here(file_name);
  return pid > 0 && pid != ::getpid() && !alive(pid);
}

std::vector<std::string> stale_temporaries(const std::string& dir, const std::string& file_name) {
  std::vector<std::string> paths;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return paths;
  const std::string head = std::string(k_temporary_prefix) + file_name + "." + host + ".";
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(head)) continue;
    const pid_t pid = temporary_writer_here(name);
    // NAME exactly (the PID follows the host), and a writer that is gone.
    if (pid > 0 && name == head + std::to_string(pid) + k_temporary_suffix && pid != ::getpid() && !alive(pid))
      paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());  // directory order is the file system's
  return paths;
}

void remove_stale_temporaries(const std::string& dir, const std::string& file_name) {
  std::error_code ec;
  for (const std::string& path : stale_temporaries(dir, file_name)) fs::remove(path, ec);  // a file, or an empty folder
}

std::string temporary_target_name(const std::string& file_name) {
  if (!is_temporary_name(file_name)) return {};
  return file_name.substr(k_temporary_prefix.size());
}

}  // namespace trainsim
