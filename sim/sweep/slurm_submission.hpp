#pragma once
// The submission of a sweep's Slurm scripts (slurm_script.hpp), from the submitting side:
// `sbatch --parsable DIR/sweep.sbatch` for the job array, then the merge with
// `--dependency=afterok:<array job>`, so that it starts once every task has succeeded
// (and `--kill-on-invalid-dep=yes`: Slurm cancels it when a task fails rather than keeping it
// pending). Nothing is submitted from inside a task. What was submitted, or how sbatch
// refused, is recorded in DIR/slurm/submission.json for `trainsim sweep --status`.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/program_run.hpp"

namespace trainsim::sweep {

struct SlurmSubmission {
  std::string array_job;  ///< the array's job id; empty when it was not submitted
  std::string merge_job;  ///< the merge's job id; empty when it was not submitted
  std::string error;      ///< why a submission failed (sbatch's command, exit status and message); empty if none
};

/// Runs a program (run_program; tests pass a stub).
using ProgramRunner = std::function<ProgramResult(const std::vector<std::string>& argv)>;

/// Submits `out_dir`'s array script, then its merge script after it, with `sbatch` through
/// `run`, and records the outcome. When sbatch fails the record says so and the result's
/// `error` names the command, its exit status and what sbatch printed.
SlurmSubmission submit_slurm_sweep(const std::string& out_dir, const ProgramRunner& run = run_program);

/// `out_dir`'s recorded submission; nullopt when there is none (or it cannot be read).
std::optional<SlurmSubmission> read_slurm_submission(const std::string& out_dir);

/// Where a merge job writes its exit status when it ends: DIR/slurm/merge_<job>.exit.
std::string merge_exit_path(const std::string& out_dir, const std::string& merge_job);

}  // namespace trainsim::sweep
