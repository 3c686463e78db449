// The trainsim executable: dispatches to one subcommand. Bad input, and an output that cannot
// be written (standard output included), exit 2 with one line on stderr; an internal failure
// exits 1. A line that could not be written on standard error (a warning, a caveat, the error
// itself) makes a run that would end 0 end 2: the user never saw it.

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/command.hpp"
#include "sim/core/address_sanitizer.hpp"
#include "sim/core/error.hpp"
#include "sim/core/large_stack_call.hpp"
#include "sim/core/library_versions.hpp"
#include "sim/core/nearest_name.hpp"
#include "sim/core/program_failure.hpp"
#include "sim/core/stop_signals.hpp"
#include "sim/core/utf8_text.hpp"
#include "trainsim/version.hpp"

namespace {

using trainsim::cli::Command;

constexpr int k_exit_bad_input = 2;

// Writes `text` to standard output and flushes it: false when a write failed (a full disk
// under `> file`, a closed stdout), which must not pass as success (`cat`, `sort` and `gcc`
// exit non-zero then too). errno is the system's reason.
bool write_stdout(const std::string& text) {
  errno = 0;
  std::cout << text;
  std::cout.flush();
  return static_cast<bool>(std::cout);
}

int stdout_failed() {
  const int error = errno;
  std::cerr << "trainsim: cannot write the results to standard output: "
            << (error != 0 ? std::strerror(error) : "write failed") << "\n";
  return k_exit_bad_input;
}

std::vector<Command> commands() {
  return {trainsim::cli::run_command(),        trainsim::cli::scale_command(),    trainsim::cli::memory_command(),
          trainsim::cli::layer_command(),      trainsim::cli::check_command(),    trainsim::cli::topology_command(),
          trainsim::cli::collective_command(), trainsim::cli::batch_command(),    trainsim::cli::sweep_command(),
          trainsim::cli::plan_command(),       trainsim::cli::calibrate_command(), trainsim::cli::drill_command(),
          trainsim::cli::replay_command(),     trainsim::cli::import_command(),   trainsim::cli::presets_command()};
}

std::string help_text(const std::vector<Command>& cmds) {
  std::ostringstream out;
  out << "trainsim " << trainsim::k_version << ": a discrete-event simulator of GPU clusters training large models\n\n"
      << "usage: trainsim COMMAND [options]    (trainsim COMMAND --help for its options)\n\ncommands:\n";
  for (const Command& c : cmds)
    out << "  " << c.name << std::string(c.name.size() < 11 ? 11 - c.name.size() : 1, ' ') << c.summary << "\n";
  return out.str();
}

int run_cli(const std::vector<std::string>& args) {
  const std::vector<Command> cmds = commands();
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    if (!write_stdout(help_text(cmds))) return stdout_failed();
    return args.empty() ? k_exit_bad_input : 0;
  }
  if (args[0] == "--version") {
    if (!write_stdout("trainsim " + std::string(trainsim::k_version) + " (SimGrid " +
                      trainsim::simgrid_runtime_version() + ", HDF5 " + trainsim::hdf5_runtime_version() + ")\n"))
      return stdout_failed();
    return 0;
  }
  try {
    for (const Command& c : cmds) {
      if (c.name != args[0]) continue;
      std::ostringstream out;  // nothing reaches stdout unless the command completes
      const int code = c.run({args.begin() + 1, args.end()}, out);
      if (!write_stdout(out.str())) return stdout_failed();
      return code;
    }
    std::vector<std::string> names;
    for (const Command& c : cmds) names.push_back(c.name);
    const auto nearest = trainsim::nearest_name(args[0], names);
    std::cerr << "trainsim: unknown command '" << trainsim::utf8_escaped(args[0]) << "'"
              << (nearest ? "; did you mean '" + *nearest + "'?" : std::string()) << " (trainsim --help lists them)\n";
    return k_exit_bad_input;
  } catch (const trainsim::Interrupted& e) {
    // Ended as the signal would have ended it, once the command has cleaned up: a shell
    // then stops a loop or script that ran it (SIGINT), and $? says 128 + the signal.
    std::cerr << "trainsim: " << e.what() << "\n";
    trainsim::end_by_signal(e.signal_number());
  } catch (const trainsim::InputError& e) {
    // One line, whatever the value holds: a path with a line end (`--out $'a\nb'`) split it. Bytes
    // that are not UTF-8 (a path made absolute in a folder so named) as C escapes, \xff.
    std::cerr << "trainsim: " << trainsim::utf8_escaped(e.what()) << "\n";
    return k_exit_bad_input;
  } catch (const trainsim::OutputError& e) {
    std::cerr << "trainsim: " << trainsim::utf8_escaped(e.what()) << "\n";
    return k_exit_bad_input;
  } catch (const trainsim::ProgramFailure& e) {
    std::cerr << "trainsim: " << trainsim::utf8_escaped(e.what()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "trainsim: internal error: " << e.what() << "\n";
    return 1;
  }
}

// `code`, or 2 where it is 0 and a write on standard error failed (`2>/dev/full`, a full disk
// under `2> log`, a closed stderr): a warning or caveat the user never got must not pass as
// success, as gnulib's close_stdout ends `cat`, `sort` and `gcc` with a failure then. Nothing
// can say why (stderr is what failed); a code that is already a failure stays.
int with_stderr_checked(int code) {
  std::cerr.flush();
  const bool lost = !std::cerr || std::fflush(stderr) != 0 || std::ferror(stderr) != 0;
  return code == 0 && lost ? k_exit_bad_input : code;
}

// Ends the process with `code` once standard output and error are flushed, without running
// the libraries' exit handlers: SimGrid's ns-3 modules tear down their type registries
// (ns3::IidManager) and every library runs its destructors, 4 % of the instructions of an
// 8-GPU `trainsim collective` (126 M to 121 M, callgrind, 2026-12-07). Every command has
// closed its outputs before it returns (sim/core/output_file.hpp commits each by a rename).
// Under AddressSanitizer the handlers run (its leak check is one).
int code_after_exit(int code) {
  code = with_stderr_checked(code);
  if (trainsim::k_address_sanitizer) return code;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  int code = 1;
  try {
    // Every command runs on the simulation's large stack (sim/core/large_stack_call.hpp).
    trainsim::large_stack_call([&] { code = run_cli(args); });
  } catch (const std::exception& e) {
    std::cerr << "trainsim: internal error: " << e.what() << "\n";
    return 1;
  }
  return code_after_exit(code);
}
