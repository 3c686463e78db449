#include "sbatch_reader.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/sweep/read_file.hpp"

namespace trainsim::testing {

namespace fs = std::filesystem;

std::vector<std::string> sbatch_arguments(const std::string& text) {
  std::vector<std::string> arguments;
  size_t i = 0;
  for (;;) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i == text.size() || text[i] == '#') return arguments;
    std::string a;
    char quote = '\0';
    for (; i < text.size() && (quote != '\0' || !std::isspace(static_cast<unsigned char>(text[i]))); ++i) {
      const char c = text[i];
      if (c == '\\') {
        if (++i < text.size()) a += text[i];
      } else if (quote != '\0' && c == quote) {
        quote = '\0';
      } else if (quote == '\0' && (c == '"' || c == '\'')) {
        quote = c;
      } else if (quote == '\0' && c == '#') {
        break;
      } else {
        a += c;
      }
    }
    arguments.push_back(a);
    if (i < text.size() && text[i] == '#') return arguments;
  }
}

std::string expand_sbatch_pattern(const std::string& pattern, const std::map<char, std::string>& fields) {
  std::string out;
  if (pattern.find('\\') != std::string::npos) {
    for (const char c : pattern)
      if (c != '\\') out += c;
    return out;
  }
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char f = pattern[++i];
    const auto it = fields.find(f);
    out += f == '%' ? std::string("%") : it != fields.end() ? it->second : std::string("%") + f;
  }
  return out;
}

std::optional<std::vector<std::string>> arguments_sbatch_reads(const std::string& script, const std::string& scratch) {
  if (std::system("command -v sbatch >/dev/null 2>&1") != 0) return std::nullopt;
  fs::create_directories(scratch);
  std::ofstream(scratch + "/slurm.conf") << "ClusterName=t\nSlurmctldHost=localhost\nNodeName=localhost CPUs=1\n"
                                         << "PartitionName=p Nodes=ALL Default=YES\n";
  // An unknown option first: sbatch reads every #SBATCH line, then stops at it, before it
  // would look for a controller.
  const std::string text = sweep::read_file_or_empty(script);
  const auto first_line_end = text.find('\n') + 1;
  std::ofstream(scratch + "/copy.sbatch") << text.substr(0, first_line_end) << "#SBATCH --trainsim-test-stops-here\n"
                                          << text.substr(first_line_end);
  const std::string command =
      "cd '" + scratch + "' && SLURM_CONF=slurm.conf timeout 20 sbatch -vvv copy.sbatch >log 2>&1";
  (void)std::system(command.c_str());
  std::vector<std::string> arguments;
  std::istringstream log(sweep::read_file_or_empty(scratch + "/log"));
  const std::string marker = "Found in script, argument \"";
  for (std::string line; std::getline(log, line);)
    if (const auto at = line.find(marker); at != std::string::npos && line.back() == '"')
      arguments.push_back(line.substr(at + marker.size(), line.size() - at - marker.size() - 1));
  if (!arguments.empty()) arguments.erase(arguments.begin());  // the stop line's
  return arguments;
}

}  // namespace trainsim::testing
