#include "sim/core/stop_signals.hpp"

#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <ctime>

namespace trainsim {

namespace {

constexpr int k_stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

bool ignored(int number) {
  struct sigaction now {};
  return sigaction(number, nullptr, &now) == 0 && now.sa_handler == SIG_IGN;
}

}  // namespace

StopWaiter::StopWaiter() {
  sigemptyset(&stops_);
  for (const int s : k_stop_signals)
    if (!ignored(s)) sigaddset(&stops_, s);
  waited_ = stops_;
  sigaddset(&waited_, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &waited_, &previous_);
}

StopWaiter::~StopWaiter() {
  // A stop signal that came after the last wait() acts now, by its default action.
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int StopWaiter::wait() const {
  for (;;) {
    const int s = sigwaitinfo(&waited_, nullptr);
    if (s > 0) return s;
    // EINTR: a signal outside the set (SIGCONT after a stop, say) woke it; wait again.
  }
}

std::optional<int> StopWaiter::pending_stop() const {
  const timespec now{0, 0};
  const int s = sigtimedwait(&stops_, nullptr, &now);
  if (s > 0) return s;
  return std::nullopt;
}

void StopWaiter::restore_in_child() const {
  signal(SIGTERM, SIG_DFL);
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_UNBLOCK, &term, nullptr);
}

void end_with_parent(pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  // The parent may have gone between fork and prctl: then nobody would send the signal.
  if (getppid() != parent) _exit(1);
}

std::string signal_name(int number) {
  switch (number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(number);
  }
}

void end_by_signal(int number) {
  signal(number, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, number);
  pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  raise(number);
  _exit(128 + number);
}

}  // namespace trainsim
