#include "sim/sweep/slurm_submission.hpp"

#include <cctype>
#include <nlohmann/json.hpp>

#include "sim/core/output_file.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/core/utf8_text.hpp"
#include "sim/sweep/read_file.hpp"

namespace trainsim::sweep {

namespace {

std::string record_path(const std::string& out_dir) {
  return out_dir + "/slurm/submission.json";
}

// `text`'s lines joined by " / " without trailing blanks: sbatch's message on one line.
std::string one_line(const std::string& text) {
  std::string line;
  std::string pending;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      pending = line.empty() ? "" : " / ";
      continue;
    }
    if (!pending.empty()) line += pending;
    pending.clear();
    line += c;
  }
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  // Bytes that are not UTF-8 and control characters as C escapes: sbatch printing \xff ended the
  // command with "internal error: [json.exception.type_error.316]" and no record for --status.
  return utf8_escaped(line);
}

// `text` in single quotes, cut after at most 200 bytes (marked by "..."): a program's output in one
// line of ours, however much it printed. Empty for an empty text.
std::string quoted_start(const std::string& text) {
  constexpr std::size_t k_most = 200;
  if (text.empty()) return "";
  if (text.size() <= k_most) return "'" + text + "'";
  std::size_t cut = k_most;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return "'" + text.substr(0, cut) + "'...";
}

// The job id `sbatch --parsable` printed: "ID" or "ID;CLUSTER"; empty when it is not one.
std::string parsable_job_id(const std::string& out) {
  std::string id;
  for (const char c : out) {
    if (c == ';' || c == '\n' || c == '\r') break;
    if (!std::isdigit(static_cast<unsigned char>(c))) return "";
    id += c;
  }
  return id;
}

void record(const std::string& out_dir, const SlurmSubmission& s) {
  nlohmann::ordered_json j;
  j["array_job"] = s.array_job;
  j["merge_job"] = s.merge_job;
  j["error"] = s.error;
  // (The error's text is escaped where it is made: U+FFFD here is only a safety net.)
  write_file_atomically(record_path(out_dir), j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// Runs sbatch with `args`; the job id, or "" with `error` set to what went wrong.
std::string sbatch(const std::vector<std::string>& args, const ProgramRunner& run, std::string& error) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProgramResult r = run(argv);
  const std::string id = r.exit_code == 0 ? parsable_job_id(r.out) : "";
  if (!id.empty()) return id;
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + shell_quoted(a);
  // A folder named with bytes that are not UTF-8 shown as C escapes (\xff), as sbatch's own
  // output is: the record said U+FFFD, which names no byte, and stderr had the raw bytes.
  command = utf8_escaped(command);
  if (r.exit_code == 0) {
    // Succeeded, yet no job id to wait on or report: what it printed, quoted (a site's wrapper
    // that ignores --parsable, a stub), else that it printed nothing.
    const std::string printed = quoted_start(one_line(r.out));
    error = command + " gave no job id (exit status 0; it printed " +
            (printed.empty() ? std::string("nothing on standard output") : printed) + ")";
    return "";
  }
  const std::string said = one_line(r.err.empty() ? r.out : r.err);
  error = command + " failed (exit status " + std::to_string(r.exit_code) + ")" + (said.empty() ? "" : ": " + said);
  return "";
}

}  // namespace

SlurmSubmission submit_slurm_sweep(const std::string& out_dir, const ProgramRunner& run) {
  SlurmSubmission s;
  s.array_job = sbatch({out_dir + "/sweep.sbatch"}, run, s.error);
  if (!s.array_job.empty())
    s.merge_job = sbatch({"--dependency=afterok:" + s.array_job, "--kill-on-invalid-dep=yes",
                          out_dir + "/slurm/merge.sbatch"},
                         run, s.error);
  record(out_dir, s);
  return s;
}

std::optional<SlurmSubmission> read_slurm_submission(const std::string& out_dir) {
  const std::string text = read_file_or_empty(record_path(out_dir));
  if (text.empty()) return std::nullopt;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto field = [&j](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  return SlurmSubmission{field("array_job"), field("merge_job"), field("error")};
}

std::string merge_exit_path(const std::string& out_dir, const std::string& merge_job) {
  return out_dir + "/slurm/merge_" + merge_job + ".exit";
}

}  // namespace trainsim::sweep
