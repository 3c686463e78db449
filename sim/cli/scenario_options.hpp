#pragma once
// Options every scenario-reading command shares: the scenario file, --set overrides, --json.

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/positional_options.hpp>
#include <boost/program_options/variables_map.hpp>
#include <string>
#include <vector>

namespace trainsim::cli {

struct ScenarioOptions {
  std::string scenario_path;
  std::vector<std::string> overrides;
  bool json = false;
  bool help = false;
  boost::program_options::variables_map variables;  ///< every option, the command's own included
};

/// Parses `args` for `command` (usage text names it); `extra` adds command-specific options.
/// Throws InputError for unknown options or a missing scenario.
ScenarioOptions parse_scenario_options(const std::string& command, const std::vector<std::string>& args,
                                       boost::program_options::options_description& extra);

/// The usage text of such a command.
std::string scenario_usage(const std::string& command, const std::string& summary,
                           const boost::program_options::options_description& extra);

}  // namespace trainsim::cli
