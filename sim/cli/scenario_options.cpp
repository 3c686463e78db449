#include "sim/cli/scenario_options.hpp"

#include <boost/program_options/variables_map.hpp>
#include <sstream>

#include "sim/cli/command_line.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace trainsim::cli {

namespace po = boost::program_options;

namespace {
po::options_description common_options() {
  po::options_description d("Options");
  d.add_options()("help,h", "show this help")("json", "machine-readable output (JSON)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario key: --set section.key=value (repeatable)");
  return d;
}
}  // namespace

ScenarioOptions parse_scenario_options(const std::string& command, const std::vector<std::string>& args,
                                       po::options_description& extra) {
  po::options_description all = common_options();
  all.add(extra);
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::string>());
  po::options_description visible_and_hidden;
  visible_and_hidden.add(all).add(hidden);
  const po::variables_map vm = parse_command_line(args, visible_and_hidden, "trainsim " + command, "scenario");
  ScenarioOptions o;
  o.help = vm.count("help") > 0;
  o.json = vm.count("json") > 0;
  if (vm.count("set")) o.overrides = vm["set"].as<std::vector<std::string>>();
  check_overrides_given_once(o.overrides);
  if (vm.count("scenario")) o.scenario_path = vm["scenario"].as<std::string>();
  o.variables = vm;
  if (!o.help && o.scenario_path.empty())
    throw InputError("trainsim " + command, "", "", "a scenario file is required: trainsim " + command + " SCENARIO");
  return o;
}

std::string scenario_usage(const std::string& command, const std::string& summary,
                           const po::options_description& extra) {
  std::ostringstream out;
  po::options_description all = common_options();
  all.add(extra);
  out << "usage: trainsim " << command << " SCENARIO [options]\n\n" << summary << "\n\n" << all;
  return out.str();
}

}  // namespace trainsim::cli
