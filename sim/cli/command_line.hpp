#pragma once
// A command's arguments parsed by Boost.Program_options, its parse errors as InputError.

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>
#include <string>
#include <vector>

namespace trainsim::cli {

/// `args` parsed against `options` and notified; the arguments without an option go to
/// `positional` (`count` of them, -1: any; none when `positional` is empty). A parse error
/// is an InputError naming `command` ("trainsim run").
boost::program_options::variables_map parse_command_line(const std::vector<std::string>& args,
                                                         const boost::program_options::options_description& options,
                                                         const std::string& command, const std::string& positional = "",
                                                         int count = 1);

}  // namespace trainsim::cli
