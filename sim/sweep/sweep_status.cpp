#include "sim/sweep/sweep_status.hpp"

#include <filesystem>
#include <sstream>

#include "sim/core/shell_quote.hpp"
#include "sim/sweep/read_file.hpp"
#include "sim/sweep/slurm_submission.hpp"
#include "sim/sweep/sweep_run.hpp"

namespace trainsim::sweep {

namespace {

// The merge job's state from the files it leaves: its exit status (merge.sbatch writes it
// when the merge ends), else its log (Slurm creates it when the job starts).
std::string merge_line(const std::string& dir, const std::string& job, bool& ok) {
  const std::string exit_text = read_file_or_empty(merge_exit_path(dir, job));
  const std::string log = dir + "/slurm/merge_" + job + ".out";
  const std::string merge_by_hand = "trainsim sweep --merge " + shell_quoted_path(dir);
  ok = false;
  if (!exit_text.empty()) {
    const std::string status = exit_text.substr(0, exit_text.find('\n'));
    ok = status == "0";
    if (ok) return "merge: job " + job + " done: " + dir + "/results.csv";
    return "merge: job " + job + " failed (exit status " + status + "): see " + log;
  }
  std::error_code ec;
  if (std::filesystem::exists(log, ec))
    return "merge: job " + job + " started and has not ended, or was killed: see " + log;
  return "merge: job " + job +
         " has not run: Slurm starts it once every array task has succeeded and cancels it when one "
         "fails; once the array has ended, " +
         merge_by_hand + " writes the tables";
}

}  // namespace

SweepStatus sweep_status(const std::string& dir) {
  const SweepTally t = sweep_tally(dir);
  std::ostringstream out;
  out << dir << ": " << t.points << " points: " << t.ok << " ok, ";
  // Simulated, but over the GPU's memory (issue 55): said only where there are some, as the
  // sweep's own tally says it.
  if (t.does_not_fit > 0) out << t.does_not_fit << " do not fit in GPU memory, ";
  out << t.skipped << " skipped, " << t.failed << " failed, " << t.pending << " never run\n";
  bool merged = true;
  if (const auto s = read_slurm_submission(dir)) {
    if (s->array_job.empty()) {
      out << "slurm: not submitted: " << s->error << "\n";
      merged = false;
    } else if (s->merge_job.empty()) {
      out << "slurm: array job " << s->array_job << "; the merge was not submitted: " << s->error
          << "; once the array has ended, trainsim sweep --merge " << shell_quoted_path(dir) << " writes the tables\n";
      merged = false;
    } else {
      out << "slurm: array job " << s->array_job << ", then merge job " << s->merge_job << "\n"
          << merge_line(dir, s->merge_job, merged) << "\n";
    }
  }
  return {out.str(), merged && t.pending == 0 && t.failed == 0};
}

}  // namespace trainsim::sweep
