#include "sim/sweep/slurm_script.hpp"

#include "sim/core/error.hpp"

namespace trainsim::sweep {

namespace {

std::string quoted(const std::string& s) {
  if (s.find('\n') != std::string::npos) throw InputError("trainsim sweep", "--slurm", s, "a path with a newline");
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

SlurmScripts slurm_scripts(const SlurmScriptOptions& o) {
  const std::string exe = quoted(o.trainsim_exe);
  const std::string dir = quoted(o.out_dir);
  const std::string logs = o.out_dir + "/slurm";
  const std::string n = std::to_string(o.shards);
  SlurmScripts s;
  s.array_script =
      "#!/bin/bash\n"
      "# Written by trainsim sweep --slurm. Submit with: sbatch " +
      quoted(o.out_dir + "/sweep.sbatch") +
      "\n"
      "# Task i computes shard i of " +
      n +
      "; task 1 also submits the merge, which runs after every task has ended.\n"
      "#SBATCH --job-name=trainsim-sweep\n"
      "#SBATCH --array=1-" +
      n +
      "\n"
      "#SBATCH --cpus-per-task=" +
      std::to_string(o.jobs) +
      "\n"
      "#SBATCH --output=" +
      logs +
      "/%A_%a.out\n"
      "set -euo pipefail\n"
      "if [ \"${SLURM_ARRAY_TASK_ID}\" = 1 ]; then\n"
      "  sbatch --parsable --dependency=afterany:\"${SLURM_ARRAY_JOB_ID}\" " +
      quoted(logs + "/merge.sbatch") +
      "\n"
      "fi\n"
      "exec " +
      exe + " sweep " + quoted(o.sweep_path) + " --shard \"${SLURM_ARRAY_TASK_ID}/" + n + "\" --jobs " +
      std::to_string(o.jobs) + " --out " + dir + (o.trace ? " --trace" : "") + "\n";
  s.merge_script =
      "#!/bin/bash\n"
      "# The merge of a trainsim sweep's shards: rebuilds results.csv and results.h5.\n"
      "#SBATCH --job-name=trainsim-sweep-merge\n"
      "#SBATCH --output=" +
      logs +
      "/merge_%j.out\n"
      "exec " +
      exe + " sweep --merge " + dir + "\n";
  return s;
}

}  // namespace trainsim::sweep
