#pragma once
// A folder of output files that replaces nothing (`trainsim run --kineto-out DIR`): DIR is
// created when missing, with any missing folders above it, or used when it exists and is
// empty; a DIR that holds anything is refused before any work (issue 54: never overwrite or
// delete what the user has). The files are written under temporary names (output_file.hpp:
// checked writes, flushed) and given their names together at commit(), each by a rename that
// never replaces a file (renameat2 with RENAME_NOREPLACE): a file that appeared meanwhile is
// kept and the commit fails. Unless committed, what this object wrote and the folders it
// created go when it goes; nothing else is removed.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainsim {

class NewOutputFolder {
 public:
  /// Checks `dir` before anything is simulated: InputError(command, option, dir, rule) when it
  /// is empty, names a file, holds anything, or when the folder it would be created in is
  /// missing a writable ancestor.
  static void check(const std::string& dir, const std::string& command, const std::string& option);

  /// Creates `dir` (and the folders above it) where missing. Throws OutputError.
  explicit NewOutputFolder(std::string dir);
  ~NewOutputFolder();
  NewOutputFolder(const NewOutputFolder&) = delete;
  NewOutputFolder& operator=(const NewOutputFolder&) = delete;

  /// Writes `bytes` as the file `file_name` (a name, no '/') under a temporary name. Throws
  /// OutputError naming the final path.
  void add(const std::string& file_name, std::string_view bytes);
  /// Gives every added file its name. Throws OutputError (nothing of this folder's files left).
  void commit();

  const std::string& dir() const { return dir_; }

 private:
  void remove_ours() noexcept;

  std::string dir_;
  std::vector<std::string> created_;                        ///< folders created, outermost first
  std::vector<std::pair<std::string, std::string>> files_;  ///< (temporary, final) paths
  std::vector<std::string> named_;                          ///< final paths renamed into place
  bool committed_ = false;
};

}  // namespace trainsim
