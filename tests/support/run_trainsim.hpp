#pragma once
// Runs the built trainsim executable, as a user would, and captures what it printed.

#include <string>
#include <vector>

namespace trainsim::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs `trainsim ARGS...` (arguments are shell-quoted) and waits for it.
RunResult run_trainsim(const std::vector<std::string>& args);

/// The same under `ulimit -v memory_kib` and `timeout seconds`: exit code 124 when the time
/// ran out (timeout(1)).
RunResult run_trainsim_limited(const std::vector<std::string>& args, long memory_kib, int seconds);

/// The same with `shell_prefix` written before the executable in the shell command line that
/// starts it: commands run first ("trap '' XFSZ; ulimit -f 64; exec "), or a program that runs
/// it ("exec qemu-x86_64 -cpu Nehalem ").
RunResult run_trainsim_after(const std::string& shell_prefix, const std::vector<std::string>& args);

/// The same for another trainsim executable (an installed or copied one), by its path.
RunResult run_executable(const std::string& shell_prefix, const std::string& executable,
                         const std::vector<std::string>& args);

/// Writes `text` to a fresh file under the test temp dir and returns its path.
/// The whole of the file at `path`, byte for byte (empty when it cannot be read).
std::string slurp(const std::string& path);

std::string write_temp_file(const std::string& name, const std::string& text);

/// Path of a file in the source tree (scenarios/...).
std::string source_path(const std::string& relative);

/// `err` without the accuracy-caveat lines a command says on stderr for a validation family
/// whose published runs are off by more than 10 % (sim/scenario/accuracy_caveats.hpp): what
/// else the command said.
std::string without_caveats(const std::string& err);

}  // namespace trainsim::testing
