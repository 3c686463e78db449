#pragma once
// An output file written under a temporary name and renamed into place when complete, so
// that a crashed or failed run never leaves a file that looks complete.

#include <string>

namespace trainsim {

/// Throws InputError (key `option`) when `path` cannot be an output file: an empty path,
/// a directory, or a parent directory that does not exist or is not writable. Call it
/// before simulating.
void check_output_path(const std::string& path, const std::string& option);

class AtomicOutputFile {
 public:
  /// The temporary name is `<final_path>.tmp-<pid>`.
  explicit AtomicOutputFile(std::string final_path);
  ~AtomicOutputFile();  ///< removes the temporary file unless committed
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  const std::string& temp_path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }
  /// Renames the temporary file to the final name. Throws trainsim::Error on failure.
  void commit();

 private:
  std::string final_path_;
  std::string temp_path_;
  bool committed_ = false;
};

}  // namespace trainsim
