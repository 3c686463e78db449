#include "sim/sweep/slurm_script.hpp"

#include <cctype>

#include "sim/core/error.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/core/utf8_text.hpp"

namespace trainsim::sweep {

namespace {

// How sbatch reads a script's options, from Slurm's own source (SchedMD/slurm
// src/sbatch/opt.c get_argument and _opt_batch_script @ 284c3b95, the same rules in the
// slurm-22-05-8-1 tag @ d525b687 but for '\ '): the script is read line by line; an #SBATCH
// line is cut into arguments at whitespace, a quote (" or ') groups characters up to the
// same quote, a backslash makes the next character literal (inside quotes too), and an
// unquoted # ends the line. Then --output is a filename pattern (src/common/print_fields.c
// expand_stdio_fields @ 284c3b95): %% is a %, %A and %a the array's job and task, and a
// backslash anywhere turns every replacement off.

// `value` as one sbatch argument: unchanged when it holds none of the characters above,
// else in double quotes with " and \ escaped.
std::string sbatch_quoted(const std::string& value) {
  bool plain = true;
  for (const char c : value)
    plain = plain && !std::isspace(static_cast<unsigned char>(c)) && c != '"' && c != '\'' && c != '\\' && c != '#';
  if (plain) return value;
  std::string q = "\"";
  for (const char c : value) q += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

// `folder` as the literal start of a filename pattern.
std::string pattern_literal(const std::string& folder) {
  std::string p;
  for (const char c : folder) p += c == '%' ? std::string("%%") : std::string(1, c);
  return p;
}

// The #SBATCH line that sends a job's output to `folder`/`file_pattern`.
std::string output_directive(const std::string& folder, const std::string& file_pattern) {
  return "#SBATCH --output=" + sbatch_quoted(pattern_literal(folder) + "/" + file_pattern) + "\n";
}

// Refuses the paths the scripts cannot carry, naming `option`: a line end (sbatch reads the
// script line by line; a comment line would end early), and in the log folder a backslash
// (the log pattern would lose %A_%a: every task would write one file).
void require_carriable(const std::string& path, const std::string& option, bool holds_logs) {
  if (path.find('\n') != std::string::npos)
    throw InputError("trainsim sweep --slurm", option, path,
                     "a Slurm script cannot carry a path with a line end (sbatch reads it line by line)");
  if (holds_logs && path.find('\\') != std::string::npos)
    throw InputError("trainsim sweep --slurm", option, path,
                     "Slurm's log pattern cannot carry a backslash (sbatch would then leave %A_%a unexpanded and "
                     "every task would write one log): choose a folder without one");
}

// Refuses a sweep file whose absolute path is not UTF-8 (a current folder named so, the sweep
// given by a relative name): each task reads the sweep file by that path, and trainsim refuses
// a scenario or sweep file named so (sim/scenario/ini_reader.cpp), so every task of the
// submitted array failed.
void require_utf8_sweep_path(const std::string& path) {
  if (const std::size_t at = first_invalid_utf8(path); at != std::string::npos)
    throw InputError("trainsim sweep --slurm", "SWEEP", utf8_escaped(path),
                     "its absolute path is not UTF-8 text (byte " + std::to_string(at + 1) +
                         "), and each array task would read the sweep file by it: trainsim refuses a file named "
                         "so; rename the folder on its path");
}

// Refuses an --slurm-option sbatch could not read as one option on an #SBATCH line, or one
// that would undo what the scripts rely on: the array's size (--shards), the log names
// (--out), the CPUs of --jobs, the merge's dependency (slurm_submission.hpp).
void require_sbatch_option(const std::string& option) {
  const auto refuse = [&option](const std::string& rule) {
    throw InputError("trainsim sweep --slurm", "--slurm-option", option, rule);
  };
  if (option.empty() || option[0] != '-')
    refuse("expected an sbatch option, one argument starting with '-': --slurm-option=--partition=gpu");
  if (option.find_first_of("\n\r") != std::string::npos)
    refuse("a Slurm script cannot carry a line end (sbatch reads it line by line)");
  struct Owned {
    const char* long_name;
    const char* short_name;
    const char* set_by;
  };
  for (const Owned& o : {Owned{"--array", "-a", "--shards"}, Owned{"--output", "-o", "--out"},
                         Owned{"--cpus-per-task", "-c", "--jobs"}, Owned{"--dependency", "-d", "the submission"}}) {
    const bool is_long = option.substr(0, option.find('=')) == o.long_name;
    const bool is_short = option.rfind("--", 0) != 0 && option.rfind(o.short_name, 0) == 0;
    if (is_long || is_short)
      refuse(std::string("trainsim writes ") + o.long_name + " itself (" + o.set_by + " sets it)");
  }
}

}  // namespace

SlurmScripts slurm_scripts(const SlurmScriptOptions& o) {
  require_carriable(o.trainsim_exe, "trainsim executable", false);
  require_carriable(o.sweep_path, "SWEEP", false);
  require_utf8_sweep_path(o.sweep_path);
  require_carriable(o.out_dir, "--out", true);
  std::string user_lines;
  for (const std::string& option : o.sbatch_options) {
    require_sbatch_option(option);
    user_lines += "#SBATCH " + sbatch_quoted(option) + "\n";
  }
  const std::string exe = shell_quoted(o.trainsim_exe);
  const std::string dir = shell_quoted(o.out_dir);
  const std::string logs = o.out_dir + "/slurm";
  const std::string n = std::to_string(o.shards);
  SlurmScripts s;
  s.array_script =
      "#!/bin/bash\n"
      "# Written and submitted by trainsim sweep --slurm, with slurm/merge.sbatch after it (it\n"
      "# starts once every task has succeeded). Task i computes shard i of " +
      n + ".\n"
      "#SBATCH --job-name=trainsim-sweep\n"
      "#SBATCH --array=1-" +
      n +
      "\n"
      "#SBATCH --cpus-per-task=" +
      std::to_string(o.jobs) + "\n" + output_directive(logs, "%A_%a.out") + user_lines +
      "set -euo pipefail\n"
      "exec " +
      exe + " sweep " + shell_quoted(o.sweep_path) + " --shard \"${SLURM_ARRAY_TASK_ID}/" + n + "\" --jobs " +
      std::to_string(o.jobs) + " --out " + dir + (o.trace ? " --trace" : "") + "\n";
  s.merge_script =
      "#!/bin/bash\n"
      "# The merge of a trainsim sweep's shards: rebuilds results.csv and results.h5, and records\n"
      "# its exit status in slurm/merge_JOB.exit for trainsim sweep --status.\n"
      "#SBATCH --job-name=trainsim-sweep-merge\n" +
      output_directive(logs, "merge_%j.out") + user_lines + exe + " sweep --merge " + dir +
      "\n"
      "status=$?\n"
      "printf '%s\\n' \"$status\" > " +
      shell_quoted(logs + "/merge_") + "\"${SLURM_JOB_ID}\".exit\n"
      "exit \"$status\"\n";
  return s;
}

}  // namespace trainsim::sweep
