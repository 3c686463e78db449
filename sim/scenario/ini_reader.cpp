#include "sim/scenario/ini_reader.hpp"

#include <boost/program_options/errors.hpp>
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/parsers.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/utf8_text.hpp"

namespace trainsim {

namespace po = boost::program_options;

namespace {
std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r");
  const auto last = s.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

// Scenario and sweep files are UTF-8 text: everything downstream writes their keys and values
// into JSON (results, manifests, --json), which must be UTF-8 (found by tests/fuzz).
void require_utf8(const std::string& text, const std::string& origin, const std::string& what) {
  const std::size_t at = first_invalid_utf8(text);
  if (at == std::string::npos) return;
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
  throw InputError(origin, "", "",
                   what + " is not UTF-8 text: byte " + std::to_string(at + 1) + " (line " + std::to_string(line) +
                       ") is not valid UTF-8");
}

// Text as editors save it: a UTF-8 byte-order mark (Windows' Notepad writes one) and CRLF line
// ends are dropped. Any other control character (C0 but tab and line feed, DEL, C1) is refused
// with its line and code point, never printed raw. `text` is valid UTF-8.
std::string as_plain_text(const std::string& text, const std::string& origin, const std::string& what) {
  const std::string bom = "\xEF\xBB\xBF";
  std::string out;
  out.reserve(text.size());
  long line = 1;
  for (std::size_t i = text.compare(0, bom.size(), bom) == 0 ? bom.size() : 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;  // CRLF: keep the LF
    unsigned code = c < 0x20 || c == 0x7F ? c : 0x100;
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F)  // C1: U+0080..U+009F
      code = static_cast<unsigned char>(text[i + 1]);
    if (code < 0x100 && c != '\n' && c != '\t') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "U+%04X", code);
      throw InputError(origin, "", "",
                       what + " holds the control character " + hex +
                           (origin == "--set" ? std::string() : " on line " + std::to_string(line)) +
                           ": only tabs and line ends (LF or CRLF) may appear besides printable text");
    }
    line += c == '\n';
    out += text[i];
  }
  return out;
}

// A line of the file (valid UTF-8) for a one-line message: control bytes as '?', at most 80
// bytes, cut where a character begins.
std::string printable(const std::string& line) {
  std::size_t end = std::min<std::size_t>(line.size(), 80);
  while (end < line.size() && end > 0 && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) --end;
  std::string out;
  for (const char c : line.substr(0, end)) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
  return end < line.size() ? out + "..." : out;
}

std::vector<IniEntry> parse_ini(const std::string& raw, const std::string& path) {
  require_utf8(raw, path, "the file");
  const std::string text = as_plain_text(raw, path, "the file");
  std::istringstream in(text);
  po::parsed_options parsed(nullptr);
  try {
    // Nothing is registered: every key comes back "unregistered", and the scenario
    // schema (sim/scenario/scenario_fields.hpp) decides what is known.
    const po::options_description none;
    parsed = po::parse_config_file(in, none, /*allow_unregistered=*/true);
  } catch (const po::invalid_config_file_syntax& e) {
    // Not e.what(): Boost 1.74 substitutes the line into its message until no
    // "%invalid_line%" is left, forever when the line holds that text itself (tests/fuzz).
    throw InputError(path, "", "", "not a valid INI file: the line '" + printable(e.tokens()) +
                                       "' is neither [section] nor key = value");
  } catch (const po::error_with_option_name&) {
    throw InputError(path, "", "", "not a valid INI file");  // what() again: see above
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

}  // namespace

std::string read_ini_file_text(const std::string& path) {
  // The name goes into --json, results tables and manifests, and JSON text is UTF-8: a name
  // that is not ended `run $'t\xff.ini' --json` and `batch` with "internal error:
  // [json.exception.type_error.316]", and `check --json` wrote JSON no reader takes.
  if (const std::size_t at = first_invalid_utf8(path); at != std::string::npos)
    throw InputError(utf8_escaped(path), "", "",
                     "the file's name is not UTF-8 text (byte " + std::to_string(at + 1) +
                         "): results and --json write it, as UTF-8; rename the file or a folder on its path");
  // An ifstream opens a directory and reads nothing from it: say what it is.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "", "is a directory, not a file");
  return read_input_file(path, {"the scenario or sweep file", "cannot open the scenario file", k_max_ini_file_bytes});
}

std::vector<IniEntry> read_ini_file(const std::string& path) {
  return parse_ini(read_ini_file_text(path), path);
}

std::vector<IniEntry> read_ini_text(const std::string& text, const std::string& origin) {
  return parse_ini(text, origin);
}

IniEntry parse_override(const std::string& assignment) {
  require_utf8(assignment, "--set", "the argument");
  (void)as_plain_text(assignment, "--set", "the argument '" + printable(assignment) + "'");
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError("--set", assignment, "", "expected section.key=value");
  return {trim(assignment.substr(0, eq)), trim(assignment.substr(eq + 1)), "--set"};
}

}  // namespace trainsim
