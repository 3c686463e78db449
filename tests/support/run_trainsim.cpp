#include "support/run_trainsim.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace trainsim::testing {

namespace {

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string unique_name(const std::string& stem) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "no_test";
  for (char& c : name)
    if (c == '/') c = '_';
  // The process id keeps two test runs at once (two build trees, a helper's and CI's) from
  // writing each other's files.
  return ::testing::TempDir() + "trainsim_" + name + "_" + std::to_string(::getpid()) + "_" + stem;
}

RunResult run_command(const std::string& prefix, const std::vector<std::string>& args,
                      const std::string& exe = TRAINSIM_EXE) {
  const std::string out_path = unique_name("stdout.txt");
  const std::string err_path = unique_name("stderr.txt");
  std::string command = prefix + quote(exe);
  for (const auto& a : args) command += " " + quote(a);
  command += " >" + quote(out_path) + " 2>" + quote(err_path) + " </dev/null";
  const int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

}  // namespace

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunResult run_trainsim(const std::vector<std::string>& args) {
  return run_command("", args);
}

RunResult run_trainsim_limited(const std::vector<std::string>& args, long memory_kib, int seconds) {
  // The shell std::system starts takes the limit, and passes it on. timeout(1) answers 124
  // when time ran out (and kills 5 s after its TERM, if need be).
  return run_command("ulimit -v " + std::to_string(memory_kib) + " && exec timeout -k 5 " + std::to_string(seconds) + " ",
                     args);
}

RunResult run_trainsim_after(const std::string& shell_prefix, const std::vector<std::string>& args) {
  return run_command(shell_prefix, args);
}

RunResult run_executable(const std::string& shell_prefix, const std::string& executable,
                         const std::vector<std::string>& args) {
  return run_command(shell_prefix, args, executable);
}

std::string write_temp_file(const std::string& name, const std::string& text) {
  const std::string path = unique_name(name);
  std::ofstream(path) << text;
  return path;
}

std::string source_path(const std::string& relative) {
  return std::string(TRAINSIM_SOURCE_DIR) + "/" + relative;
}

std::string without_caveats(const std::string& err) {
  std::string kept;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.find(": caveat: accuracy") == std::string::npos) kept += line + "\n";
  return kept;
}

}  // namespace trainsim::testing
