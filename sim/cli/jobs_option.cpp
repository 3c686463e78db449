#include "sim/cli/jobs_option.hpp"

#include <algorithm>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::cli {

int jobs_option(const boost::program_options::variables_map& vm, const std::string& command) {
  if (!vm.count("jobs")) return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const std::string text = vm["jobs"].as<std::string>();
  const auto v = parse::integer(text);
  if (!v || *v < 1 || *v > 4096) throw InputError(command, "--jobs", text, "expected an integer 1..4096");
  return static_cast<int>(*v);
}

}  // namespace trainsim::cli
