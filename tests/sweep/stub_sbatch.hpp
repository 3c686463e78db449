#pragma once
// A stand-in for Slurm's sbatch, first on PATH for one trainsim command: it records each
// call's arguments and answers as `sbatch --parsable` does (job ids 1001, 1002, ...), or
// fails as sbatch does on a cluster that refuses the job (a message on stderr, exit 1).

#include <string>
#include <vector>

namespace trainsim::testing {

class StubSbatch {
 public:
  /// The stub in `folder` (created). From call `fail_from` on (1 = the first), it prints
  /// `failure` on stderr and exits 1; with an empty `failure` it never fails.
  explicit StubSbatch(const std::string& folder, const std::string& failure = "", int fail_from = 1);

  /// Text to put before the executable in run_trainsim_after: the stub first on PATH.
  std::string shell_prefix() const;

  /// The arguments of each call so far, in order.
  std::vector<std::vector<std::string>> calls() const;

 private:
  std::string folder_;
};

}  // namespace trainsim::testing
