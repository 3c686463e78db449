#pragma once
// A scenario small enough that a sweep test simulates dozens of points in seconds:
// two layers of Llama 3 8B on 2 GPUs, datasheet roofline, ideal fabric; and the folders and
// sweep files the sweep tests build around it.

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>

#include "support/run_trainsim.hpp"

namespace trainsim::testing {

inline std::string tiny_scenario_text() {
  return "[model]\npreset = llama3-8b\nlayers = 2\nseq_len = 512\n"
         "[training]\ngrad_accum = 2\n"
         "[parallel]\ntp = 1\npp = 1\n"
         "[cluster]\npreset = dgx-h100\nnodes = 1\ngpus_per_node = 2\nfabric = ideal\ncalibration = none\n";
}

// A path for an output folder that does not exist yet (a fresh temporary name).
inline std::string fresh_dir(const std::string& name) {
  const std::string dir = write_temp_file(name, "");
  std::filesystem::remove_all(dir);
  return dir;
}

// A sweep file over the tiny scenario: `sections` follow its `[sweep] base = ...` line.
inline std::string tiny_sweep_file(const std::string& sections) {
  const std::string base = write_temp_file("tiny.ini", tiny_scenario_text());
  return write_temp_file("sweep.ini", "[sweep]\nbase = " + base + "\n" + sections);
}

// The finished points of a sweep folder: its point files.
inline int count_point_files(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/points", ec))
    if (e.path().extension() == ".json") ++n;
  return n;
}

// Each point file's inode: a file rewritten (rather than reused) gets a new one.
inline std::map<std::string, ino_t> point_inodes(const std::string& dir) {
  std::map<std::string, ino_t> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/points", ec)) {
    struct stat st {};
    if (e.path().extension() == ".json" && ::stat(e.path().c_str(), &st) == 0) out[e.path().string()] = st.st_ino;
  }
  return out;
}

}  // namespace trainsim::testing
