#pragma once
// The failure of another program trainsim runs for the user, as the CLI reports it.

#include "sim/core/error.hpp"

namespace trainsim {

/// Another program that trainsim runs for the user failed or answered nothing it can use
/// (sbatch, for `trainsim sweep --slurm`, refusing the job or printing no job id): one line
/// naming its command and what it printed. Neither bad input nor trainsim's own failure: the
/// CLI prints it as it is (not as an internal error) and exits with code 1.
class ProgramFailure : public Error {
 public:
  using Error::Error;
};

}  // namespace trainsim
