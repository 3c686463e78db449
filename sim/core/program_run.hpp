#pragma once
// Runs another program (sbatch, for `trainsim sweep --slurm`) with its arguments as given,
// no shell in between, and brings back its exit status and what it printed.

#include <string>
#include <vector>

namespace trainsim {

struct ProgramResult {
  int exit_code = -1;  ///< its exit status; 128 + N when signal N ended it; 127 when it could not be started
  std::string out;     ///< its standard output
  std::string err;     ///< its standard error (or why it could not be started)
};

/// Runs `argv` (argv[0] looked up on PATH, as execvp does) with stdin from /dev/null and
/// waits for it. Never throws for the program's own failure: that is in the result.
ProgramResult run_program(const std::vector<std::string>& argv);

}  // namespace trainsim
