#include "sim/core/new_output_folder.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2 (glibc 2.28 on)

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"

namespace trainsim {

namespace fs = std::filesystem;

namespace {

// `dir` as the folder it names: "out/" and "out/." are "out".
fs::path folder_path(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  if (p.filename().empty() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

}  // namespace

void NewOutputFolder::check(const std::string& given, const std::string& command, const std::string& option) {
  if (given.empty()) throw InputError(command, option, given, "needs a folder name");
  const fs::path dir = folder_path(given);
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      throw InputError(command, option, given, "names a file, not a folder: give a new or empty folder");
    fs::directory_iterator it(dir, ec);
    if (ec) throw InputError(command, option, given, "cannot be listed: " + ec.message());
    // What a run killed while writing here left (its temporaries, the writer gone) goes: the
    // folder is otherwise empty, and refusing it would leave the user to remove our files.
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (stale_temporary(name) && it->is_regular_file(ec)) {
        fs::remove(it->path(), ec);
        continue;
      }
      throw InputError(command, option, given,
                       "holds '" + name + "': give a new or empty folder (trainsim writes over nothing in it)");
    }
    if (const auto reason = refuses_new_files(dir.string()))
      throw InputError(command, option, given, "refuses new files: " + *reason);
    return;
  }
  // Missing: the nearest folder above it that exists must take a new folder.
  fs::path above = fs::absolute(dir, ec).parent_path();
  while (!above.empty() && !fs::exists(above, ec) && above != above.root_path()) above = above.parent_path();
  if (!fs::is_directory(above, ec))
    throw InputError(command, option, given, "cannot be created: '" + above.string() + "' is not a folder");
  if (const auto reason = refuses_new_files(above.string()))
    throw InputError(command, option, given, "cannot be created in '" + above.string() + "': " + *reason);
}

NewOutputFolder::NewOutputFolder(std::string dir) : dir_(folder_path(dir).string()) {
  // The folders to create, outermost first, so that a failure removes exactly those.
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::absolute(dir_, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.root_path()) break;
  }
  std::reverse(missing.begin(), missing.end());
  for (const fs::path& p : missing) {
    if (!fs::create_directory(p, ec)) {
      remove_ours();
      throw OutputError(dir_, "cannot create the folder '" + p.string() + "': " + (ec ? ec.message() : "it exists"));
    }
    created_.push_back(p.string());
  }
}

NewOutputFolder::~NewOutputFolder() {
  if (!committed_) remove_ours();
}

void NewOutputFolder::add(const std::string& file_name, std::string_view bytes) {
  const std::string final_path = (fs::path(dir_) / file_name).string();
  const std::string temp = (fs::path(dir_) / temporary_file_name(file_name)).string();
  try {
    write_file_atomically(temp, std::string(bytes));
  } catch (const OutputError& e) {
    throw OutputError(final_path, e.reason());
  }
  files_.emplace_back(temp, final_path);
}

void NewOutputFolder::commit() {
  for (const auto& [temp, final_path] : files_) {
    // Never over a file that appeared since check(): RENAME_NOREPLACE fails with EEXIST.
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, final_path.c_str(), RENAME_NOREPLACE) != 0) {
      const int error = errno;
      remove_ours();
      throw OutputError(final_path, error == EEXIST ? std::string("a file of that name appeared while trainsim ran; "
                                                                  "it is left as it is")
                                                    : std::string(std::strerror(error)));
    }
    named_.push_back(final_path);
  }
  committed_ = true;
}

void NewOutputFolder::remove_ours() noexcept {
  std::error_code ec;
  for (const auto& [temp, final_path] : files_) fs::remove(temp, ec);
  for (const std::string& path : named_) fs::remove(path, ec);
  named_.clear();
  // Innermost first; fs::remove takes a folder only when empty, so a file someone added keeps it.
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) fs::remove(*it, ec);
  created_.clear();
}

}  // namespace trainsim
