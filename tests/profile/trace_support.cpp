#include "profile/trace_support.hpp"

#include <zlib.h>

#include <sstream>
#include <stdexcept>

namespace trainsim::testing {

namespace {

// A gzip file's decompressed text (zlib's gzread).
std::string gunzip_file(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  gzclose(f);
  if (n < 0) throw std::runtime_error("cannot decompress " + path);
  return text;
}

}  // namespace

std::string profile_path(const std::string& name) {
  return shared_data_path("profiles/" + name);
}

std::string control_trace() {
  return profile_path("trace-diff-control-step1011.json.gz");
}

nlohmann::json control_trace_json() {
  return nlohmann::json::parse(gunzip_file(control_trace()));
}

std::string without_run_lines(const std::string& table) {
  std::istringstream in(table);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("# date_utc:", 0) != 0 && line.rfind("# tool:", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace trainsim::testing
