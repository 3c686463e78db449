#pragma once
// `trainsim sweep --status DIR`: how far a sweep folder is, from its files alone (so it
// answers on any machine that mounts the folder, with or without Slurm): its points by
// status, the points never run among them, and for a Slurm submission (slurm_submission.hpp)
// what was submitted or how sbatch refused, and whether the merge ran and how it ended.

#include <string>

namespace trainsim::sweep {

struct SweepStatus {
  std::string text;  ///< lines for the terminal
  bool done = false;  ///< every point ok or skipped, and a Slurm merge (if any) ended with exit status 0
};

/// Reads `out_dir`. Throws InputError if it is not a sweep's output folder.
SweepStatus sweep_status(const std::string& out_dir);

}  // namespace trainsim::sweep
