// `trainsim check SCENARIO [--resolved]`: validates a scenario; prints every key resolved.

#include <boost/program_options/options_description.hpp>
#include <ostream>

#include "sim/cli/command.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/core/comment_line.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace trainsim::cli {

Command check_command() {
  Command c;
  c.name = "check";
  c.summary = "validate a scenario and print it with every default and preset filled in";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    boost::program_options::options_description none;
    const ScenarioOptions o = parse_scenario_options("check", args, none);
    if (o.help) {
      out << scenario_usage("check", summary, none);
      return 0;
    }
    const Scenario s = load_scenario(o.scenario_path, o.overrides);
    out << "# " << comment_line(s.source) << ": valid (" << s.cluster.total_gpus() << " GPUs)\n" << resolved_ini(s);
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
