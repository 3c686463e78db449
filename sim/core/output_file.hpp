#pragma once
// Every file trainsim writes goes through here (traces, tables, sweep and plan folders, --dot,
// calibration tables). A file appears whole or not at all, and a path never loses what it
// names:
// - a new path, or an existing regular file: written under a temporary name in the same
//   folder, flushed, then renamed over it (a reader sees the old file or the new one);
// - a symbolic link: followed; what it points to is written, the link stays;
// - an existing character or block device or FIFO (/dev/null, a pipe): written through, as a
//   shell's `>` would, from a finished temporary file in the system's temporary folder;
//   never renamed over, never truncated;
// - a socket, a directory, a link loop, a missing folder: refused (InputError) before any
//   work; a failed write (full disk, read-only file system): OutputError, no temporary file
//   left behind.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim {

/// What an output path names once symbolic links are followed.
struct OutputTarget {
  std::string path;            ///< as given (what messages name)
  std::string resolved;        ///< the file written or renamed over (symbolic links followed)
  bool write_through = false;  ///< an existing device or FIFO: written into, not replaced
};

/// Resolves `path` and checks that it can be written: InputError (key `option`) when it is
/// empty, a directory, a socket or other special file, a link loop, or in a folder that is
/// missing or refuses a new file (probed, since root passes access(2) on /proc). Call it
/// before simulating.
OutputTarget output_target(const std::string& path, const std::string& option);

/// Whether the folder `dir` takes a new file: nullopt when it does, else the system's reason.
/// It creates and removes a file of trainsim's temporary name: the one test that holds for
/// root too (access(2) passes on /proc and on some read-only mounts).
std::optional<std::string> refuses_new_files(const std::string& dir);

/// output_target, for callers that only check.
void check_output_path(const std::string& path, const std::string& option);

/// check_output_path, and an InputError (key `option`) when `path` is one of `inputs`: the
/// same file once symbolic links are followed (device and inode, so a hard link too). No
/// command writes over what it reads (issue 54: `calibrate --from-profile P --out P` replaced
/// a profiler trace with a table). Inputs that do not exist are skipped.
void check_output_path(const std::string& path, const std::string& option, const std::vector<std::string>& inputs);

/// One output file under construction: write temp_path(), then commit(). Unless committed,
/// the temporary file is removed when the object goes.
class AtomicOutputFile {
 public:
  /// Creates the (empty) temporary file. Throws OutputError naming `final_path` when it cannot
  /// be created (the system's reason in the message).
  explicit AtomicOutputFile(std::string final_path);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  /// Where to write, for writers that open the file themselves (HDF5); the others append().
  const std::string& temp_path() const { return temp_path_; }
  const std::string& final_path() const { return target_.path; }
  /// Appends to the temporary file (buffered). Throws OutputError on a failed write.
  void append(std::string_view bytes);
  /// Flushes the temporary file to disk and renames it over the target, or, for a device or
  /// FIFO, copies it in and removes it. Throws OutputError (no temporary file left).
  void commit();

 private:
  void flush();

  OutputTarget target_;
  std::string temp_path_;
  int fd_ = -1;         ///< the temporary file, open for append()
  std::string buffer_;  ///< appended bytes not yet written
  bool committed_ = false;
};

/// Writes `text` to `path` through an AtomicOutputFile. Throws OutputError.
void write_file_atomically(const std::string& path, const std::string& text);

/// What every temporary name starts with. A user's own files never carry it (a hidden name
/// with trainsim's mark), so a clean-up that removes names of this pattern removes only what
/// some trainsim process created (`*.tmp` alone took users' files: issue 54).
inline constexpr std::string_view k_temporary_prefix = ".trainsim-tmp.";

/// The temporary name of the file `file_name`: .trainsim-tmp.NAME.HOST.PID.tmp (unique per
/// process, also across the nodes of a shared file system).
std::string temporary_file_name(const std::string& file_name);

/// The temporary name of `path` in its own folder (temporary_file_name of its file name).
std::string temporary_name(const std::string& path);

/// Whether a file name is such a temporary name (left behind by a killed writer).
bool is_temporary_name(const std::string& file_name);

/// Whether the temporary `file_name` is being written right now by a process of this host
/// (its PID, other than this process', is alive): a clean-up leaves it. Two commands writing
/// into one folder (a sweep started twice, a `--merge` beside a running sweep) removed each
/// other's temporaries, and the other's rename then failed. Another host's temporaries cannot be
/// told apart and are not kept.
bool temporary_writer_running(const std::string& file_name);

/// Whether the temporary `file_name` was left by a process of this host that is gone (killed
/// mid-write): nobody will rename it, and a clean-up may remove it.
bool stale_temporary(const std::string& file_name);

/// The paths in `dir` of the temporaries of `file_name` (a file's or a folder's name) left by
/// processes of this host that are gone, in name order: what remove_stale_temporaries removes,
/// and what an export folder's clean-up empties first (sim/workload/export_folder.hpp).
std::vector<std::string> stale_temporaries(const std::string& dir, const std::string& file_name);

/// Removes from `dir` the temporaries of the file `file_name` left by processes of this host
/// that are gone (a `trainsim run --trace T` stopped by SIGTERM or kill -9 mid-write left
/// .trainsim-tmp.T.HOST.PID.tmp beside T for good). output_target (so check_output_path) calls
/// it for its path: once per output of a command, not per write (a sweep's folder holds a file
/// per point). Nothing else is removed (another name, another host, a writer still running).
void remove_stale_temporaries(const std::string& dir, const std::string& file_name);

/// The part of a temporary name after the prefix (NAME.HOST.PID.tmp), or "" for another name:
/// what a clean-up reads to tell whose temporary it is.
std::string temporary_target_name(const std::string& file_name);

}  // namespace trainsim
