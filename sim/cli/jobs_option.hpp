#pragma once
// The --jobs option of the commands that run points in parallel (batch, sweep, plan).

#include <boost/program_options/variables_map.hpp>
#include <string>

namespace trainsim::cli {

/// --jobs as given (1..4096), or the core count. Throws InputError naming `command`.
int jobs_option(const boost::program_options::variables_map& vm, const std::string& command);

}  // namespace trainsim::cli
