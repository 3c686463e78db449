#include "sim/scenario/ini_reader.hpp"

#include <boost/program_options/errors.hpp>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/parsers.hpp>
#include <fstream>
#include <set>

#include "sim/core/error.hpp"

namespace trainsim {

namespace po = boost::program_options;

namespace {
std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r");
  const auto last = s.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}
}  // namespace

std::vector<IniEntry> read_ini_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "", "cannot open the scenario file");
  po::parsed_options parsed(nullptr);
  try {
    // Nothing is registered: every key comes back "unregistered", and the scenario
    // schema (sim/scenario/scenario_fields.hpp) decides what is known.
    const po::options_description none;
    parsed = po::parse_config_file(in, none, /*allow_unregistered=*/true);
  } catch (const po::error& e) {
    throw InputError(path, "", "", std::string("not a valid INI file: ") + e.what());
  }
  std::vector<IniEntry> entries;
  std::set<std::string> seen;
  for (const po::option& o : parsed.options) {
    const std::string value = o.value.empty() ? std::string() : trim(o.value.front());
    if (!seen.insert(o.string_key).second) throw InputError(path, o.string_key, value, "the key is given twice");
    entries.push_back({o.string_key, value, path});
  }
  return entries;
}

IniEntry parse_override(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError("--set", assignment, "", "expected section.key=value");
  return {trim(assignment.substr(0, eq)), trim(assignment.substr(eq + 1)), "--set"};
}

}  // namespace trainsim
