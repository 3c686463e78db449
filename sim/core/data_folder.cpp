#include "sim/core/data_folder.hpp"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace trainsim {

namespace fs = std::filesystem;

namespace {

bool matches(const fs::path& folder) {
  std::error_code ec;
  return fs::is_directory(folder / "calibration", ec);
}

// Step 4: the build tree a test or benchmark binary lies in (the nearest folder above it with
// a CMakeCache.txt), whose share/trainsim CMake made; nothing when the binary is in none.
std::optional<fs::path> build_tree_above(const fs::path& bin) {
  std::error_code ec;
  for (fs::path folder = bin; !folder.empty(); folder = folder.parent_path()) {
    if (fs::is_regular_file(folder / "CMakeCache.txt", ec)) return folder / "share" / "trainsim";
    if (folder == folder.parent_path()) break;
  }
  return std::nullopt;
}

}  // namespace

DataFolder find_data_folder(const std::optional<std::string>& env, const std::string& executable) {
  DataFolder d;
  if (env) {
    d.looked.push_back("$TRAINSIM_DATA (" + *env + ")");
    if (matches(*env)) d.path = *env;
    return d;
  }
  d.looked.push_back("$TRAINSIM_DATA (unset)");
  if (executable.empty()) {
    d.looked.push_back("the executable's folder (/proc/self/exe cannot be read)");
    return d;
  }
  const fs::path bin = fs::path(executable).parent_path();
  // TRAINSIM_DATA_FROM_BIN: the install's data folder relative to its bin folder
  // (CMAKE_INSTALL_DATADIR/trainsim from CMAKE_INSTALL_BINDIR, sim/core/CMakeLists.txt).
  for (const fs::path& folder : {(bin / TRAINSIM_DATA_FROM_BIN).lexically_normal(), bin / "share" / "trainsim"}) {
    d.looked.push_back(folder.string());
    if (matches(folder)) {
      d.path = folder.string();
      return d;
    }
  }
  if (const auto tree = build_tree_above(bin); tree && *tree != bin / "share" / "trainsim") {
    d.looked.push_back(tree->string());
    if (matches(*tree)) d.path = tree->string();
  }
  return d;
}

DataFolder find_data_folder() {
  const char* env = std::getenv("TRAINSIM_DATA");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return find_data_folder(env && *env ? std::optional<std::string>(env) : std::nullopt, ec ? "" : exe.string());
}

std::string looked_places(const DataFolder& data) {
  std::string looked;
  for (const std::string& place : data.looked) looked += (looked.empty() ? "" : ", ") + place;
  return looked;
}

std::vector<std::string> shipped_calibration_tables() {
  // TRAINSIM_SHIPPED_TABLES: the stems of kernels/calibration/*.csv, comma-separated.
  std::vector<std::string> names;
  std::istringstream list(TRAINSIM_SHIPPED_TABLES);
  for (std::string name; std::getline(list, name, ',');)
    if (!name.empty()) names.push_back(name);
  return names;
}

}  // namespace trainsim
