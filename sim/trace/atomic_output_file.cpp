#include "sim/trace/atomic_output_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"

namespace trainsim {

namespace fs = std::filesystem;

void check_output_path(const std::string& path, const std::string& option) {
  if (path.empty()) throw InputError("", option, path, "needs a file name");
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError("", option, path, "is a directory, not a file name");
  const fs::path parent = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  if (!fs::is_directory(parent, ec))
    throw InputError("", option, path, "the directory '" + parent.string() + "' does not exist");
  if (::access(parent.c_str(), W_OK) != 0)
    throw InputError("", option, path, "the directory '" + parent.string() + "' is not writable");
}

AtomicOutputFile::AtomicOutputFile(std::string final_path)
    : final_path_(std::move(final_path)), temp_path_(final_path_ + ".tmp-" + std::to_string(::getpid())) {}

AtomicOutputFile::~AtomicOutputFile() {
  if (committed_) return;
  std::error_code ec;
  fs::remove(temp_path_, ec);
}

void AtomicOutputFile::commit() {
  std::error_code ec;
  fs::rename(temp_path_, final_path_, ec);
  if (ec) throw Error("cannot rename " + temp_path_ + " to " + final_path_ + ": " + ec.message());
  committed_ = true;
}

}  // namespace trainsim
