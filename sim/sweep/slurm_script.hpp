#pragma once
// The Slurm scripts of a sweep (`trainsim sweep SWEEP.ini --slurm`): a job-array script
// whose task i runs `trainsim sweep SWEEP.ini --shard i/n`, and a merge script that
// rebuilds the tables and records its exit status. Both carry the user's --slurm-option
// lines (partition, account, time...). The tasks submit nothing: the submitting side puts
// the merge after the array (slurm_submission.hpp). Failed shards leave failed or pending
// points: submitting again resumes them.

#include <string>
#include <vector>

namespace trainsim::sweep {

struct SlurmScriptOptions {
  std::string trainsim_exe;  ///< absolute path of the trainsim executable
  std::string sweep_path;    ///< absolute path of the sweep file
  std::string out_dir;       ///< absolute path of the output folder (shared by the nodes)
  int shards = 1;            ///< array tasks
  int jobs = 1;              ///< points at once per task, and --cpus-per-task
  bool trace = false;        ///< pass --trace to the shards
  /// sbatch options for every script (--slurm-option), one argument each: `--partition=gpu`.
  std::vector<std::string> sbatch_options;
};

struct SlurmScripts {
  std::string array_script;  ///< written to out_dir/sweep.sbatch
  std::string merge_script;  ///< written to out_dir/slurm/merge.sbatch
};

/// The two scripts. Paths are quoted for the shell (shell_quote.hpp) and the #SBATCH
/// --output lines for sbatch's own reader (slurm_script.cpp says how it reads them). Throws
/// InputError naming the path if one cannot be carried: a line end in any, a backslash in
/// out_dir (sbatch's log pattern would lose %A_%a); and naming --slurm-option for an option
/// that does not start with '-', holds a line end, or is one trainsim writes itself.
SlurmScripts slurm_scripts(const SlurmScriptOptions& options);

}  // namespace trainsim::sweep
