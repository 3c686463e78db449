#pragma once
// A trainsim subcommand: its name, a one-line summary, and how it runs.

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace trainsim::cli {

struct Command {
  std::string name;
  std::string summary;
  /// Runs with the arguments after the command name. Returns the exit code; throws
  /// InputError (exit 2) on bad input. Writes nothing until its output is complete.
  std::function<int(const std::vector<std::string>& args, std::ostream& out)> run;
};

Command memory_command();
Command layer_command();
Command plan_command();
Command run_command();
Command scale_command();
Command check_command();
Command topology_command();
Command collective_command();
Command batch_command();
Command sweep_command();
Command calibrate_command();
Command drill_command();
Command replay_command();
Command import_command();
Command presets_command();

}  // namespace trainsim::cli
