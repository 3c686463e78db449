#include "sim/compute/calibration_table.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"

namespace trainsim {

namespace {

// The 11 columns every table has, and the optional 12th, `origin`.
constexpr std::size_t k_value_columns = 11;
constexpr std::size_t k_column_count = 12;
constexpr std::array<const char*, k_column_count> k_columns = {"kernel", "dtype", "m",     "n",      "k",    "batch",
                                                               "time_s", "flops", "bytes", "tflops", "gbps", "origin"};

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::string lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string::size_type start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return fields;
}

std::string where(int line, std::size_t column) {
  std::string s = "line " + std::to_string(line);
  if (column > 0) s += ", column " + std::to_string(column) + " (" + k_columns[column - 1] + ")";
  return s;
}

// Locale-independent, whole-field parse, so a table reads the same everywhere.
double parse_number(const std::string& field, const std::string& file, int line, std::size_t column) {
  double value = 0;
  const char* begin = field.data();
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (field.empty() || ec != std::errc() || ptr != end) {
    throw InputError(file, where(line, column), field, "must be a decimal number");
  }
  if (!std::isfinite(value)) throw InputError(file, where(line, column), field, "must be finite");
  return value;
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// `measured:<name>` or `derived:<name>`, the name of letters, digits and . _ + - (no commas,
// no spaces), so that a row's provenance reads back unambiguously.
bool valid_origin(const std::string& origin) {
  const auto colon = origin.find(':');
  if (colon == std::string::npos) return false;
  const std::string kind = origin.substr(0, colon);
  const std::string name = origin.substr(colon + 1);
  if ((kind != "measured" && kind != "derived") || name.empty()) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

bool CalibrationRow::measured(bool table_measured) const {
  return origin.empty() ? table_measured : starts_with(origin, "measured:");
}

bool CalibrationTable::measured() const {
  return source_kind() == CalibrationSource::measured;
}

CalibrationSource CalibrationTable::source_kind() const {
  const std::string s = lower(source());
  if (starts_with(s, "measured")) return CalibrationSource::measured;
  if (starts_with(s, "converted")) return CalibrationSource::converted;
  return CalibrationSource::derived;
}

std::size_t CalibrationTable::measured_rows() const {
  const bool all = measured();
  std::size_t n = 0;
  for (const CalibrationRow& row : rows) n += row.measured(all) ? 1 : 0;
  return n;
}

std::string CalibrationTable::source() const {
  const auto it = header.find("source");
  return it == header.end() ? std::string() : it->second;
}

std::string calibration_columns(bool with_origin) {
  std::string s;
  const std::size_t count = with_origin ? k_column_count : k_value_columns;
  for (std::size_t c = 0; c < count; ++c) s += (s.empty() ? "" : ",") + std::string(k_columns[c]);
  return s;
}

CalibrationTable parse_calibration_table(std::istream& in, const std::string& file) {
  CalibrationTable table;
  table.file = file;
  std::string raw;
  int line = 0;
  bool columns_seen = false;
  std::size_t fields = k_value_columns;  // 11, or 12 with the origin column
  while (std::getline(in, raw)) {
    ++line;
    const std::string text = trim(raw);
    if (text.empty()) continue;
    if (text[0] == '#') {
      if (columns_seen) continue;  // comments between rows are allowed and ignored
      const auto colon = text.find(':');
      if (colon == std::string::npos) {
        throw InputError(file, where(line, 0), text, "a header line reads '# key: value'");
      }
      const std::string key = lower(trim(text.substr(1, colon - 1)));
      if (key.empty()) throw InputError(file, where(line, 0), text, "a header line reads '# key: value'");
      table.header[key] = trim(text.substr(colon + 1));
      continue;
    }
    if (!columns_seen) {
      if (text == calibration_columns(true)) {
        fields = k_column_count;
        table.has_origin = true;
      } else if (text != calibration_columns(false)) {
        throw InputError(
            file, where(line, 0), text,
            "the column line must be '" + calibration_columns(false) + "' (optionally followed by ',origin')");
      }
      columns_seen = true;
      continue;
    }
    const std::vector<std::string> f = split_fields(text);
    if (f.size() != fields) {
      throw InputError(
          file, where(line, 0), text,
          "a row has " + std::to_string(fields) + " comma-separated fields, this one has " + std::to_string(f.size()));
    }
    CalibrationRow row;
    row.line = line;
    row.kernel = f[0];
    row.dtype = f[1];
    if (row.kernel.empty()) throw InputError(file, where(line, 1), "", "the kernel name must not be empty");
    if (row.dtype.empty()) throw InputError(file, where(line, 2), "", "the dtype must not be empty");
    std::array<double, k_value_columns> v{};
    for (std::size_t c = 2; c < k_value_columns; ++c) {
      v[c] = parse_number(f[c], file, line, c + 1);
      if (v[c] < 0) throw InputError(file, where(line, c + 1), f[c], "must not be negative");
    }
    row.m = v[2];
    row.n = v[3];
    row.k = v[4];
    row.batch = v[5];
    row.time_s = v[6];
    row.flops = v[7];
    row.bytes = v[8];
    if (row.time_s <= 0) throw InputError(file, where(line, 7), f[6], "time_s must be positive");
    if (row.batch < 1) throw InputError(file, where(line, 6), f[5], "batch must be at least 1");
    if (table.has_origin) {
      row.origin = f[11];
      if (!valid_origin(row.origin)) {
        throw InputError(file, where(line, 12), row.origin,
                         "origin must read 'measured:<source>' or 'derived:<rule>' (letters, digits, . _ + -)");
      }
    }
    table.rows.push_back(row);
  }
  if (!table.header.count("gpu")) throw InputError(file, "header", "", "the '# gpu: ...' line is missing");
  const std::string source = lower(table.source());
  if (!starts_with(source, "measured") && !starts_with(source, "converted") && !starts_with(source, "derived")) {
    throw InputError(file, "header source", table.source(),
                     "'# source:' must be 'measured', 'converted from <citations>' or 'derived from <citations>'");
  }
  if (!columns_seen) throw InputError(file, "line " + std::to_string(line), "", "the column line is missing");
  if (table.rows.empty()) throw InputError(file, "line " + std::to_string(line), "", "the table has no rows");
  return table;
}

CalibrationTable read_calibration_table(const std::string& path) {
  // 64 MiB: the shipped tables are 100 to 230 KB (kernels/calibration/); a line without end
  // (a pipe of zeros) would otherwise grow one std::getline string until memory runs out.
  std::istringstream text(
      read_input_file(path, {"the calibration table", "cannot open the calibration table", std::size_t{64} << 20}));
  return parse_calibration_table(text, path);
}

}  // namespace trainsim
