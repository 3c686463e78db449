#pragma once
// Reads an INI scenario file into `section.key = value` pairs, in file order, with
// Boost.Program_options' config-file parser (sections become `section.` prefixes).

#include <string>
#include <utility>
#include <vector>

namespace trainsim {

struct IniEntry {
  std::string name;    ///< "section.key"
  std::string value;   ///< as written, trimmed
  std::string origin;  ///< the file, or "--set" for a command-line override
};

/// Throws InputError naming `path` if the file cannot be read (or is a directory) or a line
/// is not `key = value` / `[section]`, and if a key appears twice.
std::vector<IniEntry> read_ini_file(const std::string& path);

/// The same from INI text already in memory; `origin` names it in messages and entries.
std::vector<IniEntry> read_ini_text(const std::string& text, const std::string& origin);

/// Parses a `--set section.key=value` argument.
IniEntry parse_override(const std::string& assignment);

}  // namespace trainsim
