#include "sim/cli/command_line.hpp"

#include <boost/program_options/parsers.hpp>
#include <boost/program_options/positional_options.hpp>

#include "sim/core/error.hpp"

namespace trainsim::cli {

namespace po = boost::program_options;

po::variables_map parse_command_line(const std::vector<std::string>& args, const po::options_description& options,
                                     const std::string& command, const std::string& positional, int count) {
  po::positional_options_description positions;
  if (!positional.empty()) positions.add(positional.c_str(), count);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positions).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(command, "", "", e.what());
  }
  return vm;
}

}  // namespace trainsim::cli
