#pragma once
// The signals that ask a command to stop (SIGINT from Ctrl-C, SIGTERM from kill, SIGHUP from
// a closed terminal), for a process that runs children: it waits for them and for a stop
// signal in one place (sigwaitinfo; no handler, no global state), so it can stop its
// children, remove what they left, and then end by the signal, as a shell expects of an
// interrupted program.
//
// Every thread must block a signal for sigwaitinfo to receive it: large_stack_call's waiting
// thread blocks all signals (sim/core/large_stack_call.hpp), and StopWaiter blocks these on
// the thread that runs the command.

#include <signal.h>
#include <sys/types.h>

#include <optional>
#include <string>

namespace trainsim {

/// While it lives, SIGCHLD and the stop signals are blocked on this thread and arrive
/// through wait() instead. A stop signal ignored when it is made (nohup's SIGHUP, a
/// background job's SIGINT) stays ignored.
class StopWaiter {
 public:
  StopWaiter();
  ~StopWaiter();
  StopWaiter(const StopWaiter&) = delete;
  StopWaiter& operator=(const StopWaiter&) = delete;

  /// Blocks until a child changed state (returns SIGCHLD) or a stop signal came (returns it).
  int wait() const;
  /// A stop signal that came and was not yet waited for, without blocking.
  std::optional<int> pending_stop() const;
  /// In a child just forked: the signal mask the process had before, and SIGTERM's default
  /// action, so that the parent can stop it with SIGTERM.
  void restore_in_child() const;

 private:
  sigset_t waited_{};    ///< SIGCHLD and the stop signals not ignored
  sigset_t stops_{};     ///< the stop signals not ignored
  sigset_t previous_{};  ///< this thread's mask before
};

/// In a child just forked from `parent`: receive SIGTERM when the thread that forked it ends
/// (Linux prctl PR_SET_PDEATHSIG), so that helpers do not outlive a killed parent. Ends the
/// child at once if the parent has already gone.
void end_with_parent(pid_t parent);

/// "SIGINT", "SIGTERM", "SIGHUP", or "signal N" for another.
std::string signal_name(int number);

/// Ends the process by signal `number` with its default action (unblocked on this thread);
/// if that returns (it should not), exits with 128 + number, as a shell reports it.
[[noreturn]] void end_by_signal(int number);

}  // namespace trainsim
