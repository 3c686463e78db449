#include "sim/core/forked_call.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "sim/core/error.hpp"
#include "sim/core/large_stack_call.hpp"
#include "sim/core/stop_signals.hpp"

namespace trainsim {

namespace {

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

// The child's message: a tag line ("ok", "input", "error"), then the payload. An input
// error carries its four fields, one per line, then the payload is empty.
std::string encode_input_error(const InputError& e) {
  return "input\n" + e.file() + "\n" + e.key() + "\n" + e.value() + "\n" + e.rule();
}

}  // namespace

std::string forked_call(const std::function<std::string()>& fn) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(std::string("forked_call: pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("forked_call: fork: ") + std::strerror(errno));
  if (pid == 0) {
    end_with_parent(parent);  // a stopped sweep worker's simulations stop with it
    ::close(fds[0]);
    std::string message;
    try {
      // The child simulates: on a large stack (large_stack_call.hpp), whatever thread forked.
      large_stack_call([&] { message = "ok\n" + fn(); });
    } catch (const InputError& e) {
      message = encode_input_error(e);
    } catch (const std::exception& e) {
      message = std::string("error\n") + e.what();
    }
    write_all(fds[1], message);
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::close(fds[1]);
  const std::string message = read_all(fds[0]);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const auto newline = message.find('\n');
  const std::string tag = message.substr(0, newline);
  const std::string payload = newline == std::string::npos ? std::string() : message.substr(newline + 1);
  if (tag == "ok") return payload;
  if (tag == "input") {
    std::string fields[4];
    size_t start = 0;
    for (int i = 0; i < 4; ++i) {
      const size_t end = i < 3 ? payload.find('\n', start) : payload.size();
      fields[i] = payload.substr(start, end - start);
      start = end + 1;
    }
    throw InputError(fields[0], fields[1], fields[2], fields[3]);
  }
  if (tag == "error") throw Error(payload);
  throw Error("forked_call: the child process died (status " + std::to_string(status) + ")");
}

}  // namespace trainsim
