#pragma once
// Reads an INI scenario file into `section.key = value` pairs, in file order, with
// Boost.Program_options' config-file parser (sections become `section.` prefixes).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace trainsim {

struct IniEntry {
  std::string name;    ///< "section.key"
  std::string value;   ///< as written, trimmed
  std::string origin;  ///< the file, or "--set" for a command-line override
};

/// The most bytes a scenario or sweep file may hold: 16 MiB. The shipped ones are 0.2 to 3 KB
/// (scenarios/), a sweep with a thousand-value list some 10 KB; the cap only stops a
/// file that never ends (/dev/zero, a FIFO fed forever) or a wrong file, before it is held in
/// memory (core/bounded_read.hpp).
inline constexpr std::size_t k_max_ini_file_bytes = std::size_t{16} << 20;

/// The bytes of a scenario or sweep file, at most k_max_ini_file_bytes. Throws InputError
/// naming `path` when it is a directory, cannot be opened or holds more.
std::string read_ini_file_text(const std::string& path);

/// Throws InputError naming `path` if the file cannot be read, holds more than
/// k_max_ini_file_bytes (or is a directory) or a line
/// is not `key = value` / `[section]`, and if a key appears twice.
std::vector<IniEntry> read_ini_file(const std::string& path);

/// The same from INI text already in memory; `origin` names it in messages and entries.
std::vector<IniEntry> read_ini_text(const std::string& text, const std::string& origin);

/// Parses a `--set section.key=value` argument.
IniEntry parse_override(const std::string& assignment);

}  // namespace trainsim
