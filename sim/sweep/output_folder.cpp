#include "sim/sweep/output_folder.hpp"

#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"

namespace trainsim::sweep {

namespace fs = std::filesystem;

namespace {

// The first entry of `dir` that trainsim did not write there, or "" when there is none.
std::string foreign_entry(const std::string& dir) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!is_temporary_name(name)) return name;
  }
  return {};
}

}  // namespace

void prepare_output_folder(const std::string& dir, const std::string& command, const std::string& option,
                           const std::string& marker) {
  if (dir.empty()) throw InputError(command, option, dir, "needs a folder name");
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st) && !fs::is_directory(st))
    throw InputError(command, option, dir, "names a file, not a folder: give a folder for the results");
  if (!fs::exists(st)) {
    fs::create_directories(dir, ec);
    if (ec) throw InputError(command, option, dir, "cannot create the folder: " + ec.message());
  }
  if (const auto reason = refuses_new_files(dir))
    throw InputError(command, option, dir, "cannot write into the folder: " + *reason);
  if (!fs::exists(fs::path(dir) / marker, ec))
    if (const std::string entry = foreign_entry(dir); !entry.empty())
      throw InputError(command, option, dir,
                       "holds '" + entry + "' and is not a trainsim output folder (no " + marker +
                           "): give a new or empty folder, so that nothing of yours is written over");
}

}  // namespace trainsim::sweep
