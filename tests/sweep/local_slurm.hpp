#pragma once
// A single-node Slurm cluster for one test: munged, slurmctld and slurmd (Debian's munge
// and slurm-wlm packages) started in a private folder with their own socket, ports and
// state, and stopped (by the pids they wrote) when the object goes away.

#include <string>

namespace trainsim::testing {

class LocalSlurm {
 public:
  /// Starts the daemons under `dir` and waits (at most ~20 s) until the node is idle.
  /// Never throws: on any failure ready() is false and why() says what went wrong.
  explicit LocalSlurm(const std::string& dir);
  ~LocalSlurm();
  LocalSlurm(const LocalSlurm&) = delete;
  LocalSlurm& operator=(const LocalSlurm&) = delete;

  bool ready() const { return why_.empty(); }
  const std::string& why() const { return why_; }

  /// Runs a shell command with SLURM_CONF pointing at this cluster, at most `timeout_s`
  /// seconds; returns its stdout and sets `exit_code`.
  std::string shell(const std::string& command, int timeout_s, int* exit_code = nullptr) const;

 private:
  void start();
  void stop_daemon(const std::string& pid_file) const;

  std::string dir_;
  std::string why_;
};

}  // namespace trainsim::testing
