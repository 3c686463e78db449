#include "sim/sweep/engine_identity.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "sim/core/data_folder.hpp"
#include "sim/sweep/fnv1a.hpp"

namespace trainsim::sweep {

namespace fs = std::filesystem;

namespace {

// The file's bytes, read in blocks (the executable is megabytes); nothing when it cannot be read.
void hash_file(const std::string& path, Fnv1a64& h) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> block(1 << 16);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    h.bytes(std::string_view(block.data(), static_cast<std::size_t>(in.gcount())));
  }
}

bool is_data_file(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".csv" || ext == ".ini" || ext == ".json";
}

}  // namespace

std::string engine_identity(const std::string& executable, const std::string& data_folder) {
  Fnv1a64 h;
  hash_file(executable, h);
  h.field("");
  if (data_folder.empty()) return h.hex();
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(data_folder, fs::directory_options::follow_directory_symlink, ec), end;
       !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec) && is_data_file(it->path()))
      files.push_back(fs::relative(it->path(), data_folder, ec).generic_string());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    h.field(f);
    hash_file(data_folder + "/" + f, h);
    h.field("");
  }
  return h.hex();
}

std::string engine_identity() {
  return engine_identity("/proc/self/exe", find_data_folder().path);
}

}  // namespace trainsim::sweep
