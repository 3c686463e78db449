#include "sim/core/program_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trainsim {

namespace {

// Reads what is ready on `fd` into `text`; false at its end.
bool read_some(int fd, std::string& text) {
  char buffer[4096];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
  return n > 0 || (n < 0 && errno == EINTR);
}

}  // namespace

ProgramResult run_program(const std::vector<std::string>& argv) {
  ProgramResult r;
  int out_pipe[2], err_pipe[2];
  if (argv.empty() || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.err = "cannot start a program: " + std::string(std::strerror(errno));
    return r;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.err = "cannot start " + argv[0] + ": " + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return r;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::execvp(args[0], args.data());
    const std::string why = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    const ssize_t ignored = ::write(2, why.data(), why.size());
    (void)ignored;
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (pid < 0) {
    r.err = "cannot start " + argv[0] + ": " + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return r;
  }
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* texts[2] = {&r.out, &r.err};
  int open_pipes = 2;
  while (open_pipes > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i)
      if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && !read_some(fds[i].fd, *texts[i])) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      }
  }
  for (const pollfd& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  return r;
}

}  // namespace trainsim
