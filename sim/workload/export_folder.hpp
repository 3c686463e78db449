#pragma once
// The folder of an export (`trainsim run --chakra-out DIR`): the rank traces appear whole, as a
// set, or not at all (issue 54: an export cut by a full disk, kill -9 or Ctrl-C left a folder
// that `replay` read as a job of fewer ranks).
//
// The set is written into a temporary folder beside DIR (.trainsim-tmp.DIR.HOST.PID.tmp), its
// manifest last (chakra-export.json: the world's size, each rank's file and the comm-group
// configuration, comm_groups.json, each with its size and CRC-32), then renamed into place. An existing DIR is replaced
// only when it is empty or an earlier export's, and then only what that export wrote is removed. `replay` of a prefix
// whose folder has a manifest for it checks every file against it as it reads them (read_workload:
// read_export_manifest, check_exported_file); traces from elsewhere have no manifest and are
// read as before.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/workload/comm_groups.hpp"
#include "sim/workload/step_export.hpp"

namespace trainsim::workload {

/// The manifest's file name in an export folder.
inline constexpr const char* k_export_manifest = "chakra-export.json";

/// One export into `dir`, under construction. Unless committed, the temporary folder and
/// everything in it go when the object goes.
class ExportFolder {
 public:
  /// Checks `dir` before anything is simulated: InputError(command, option, dir, rule) when
  /// it names a file, when it exists and holds anything an export of ours did not write, or
  /// when its parent folder is missing or refuses a new folder. First removes what writers of
  /// this host that are gone (killed mid-export) left beside it: their half-written sets, only
  /// the names an export writes (an earlier export they had moved aside goes back to a missing DIR).
  static void check(const std::string& dir, const std::string& command, const std::string& option);

  /// Creates the temporary folder. Throws OutputError.
  explicit ExportFolder(std::string dir);
  ~ExportFolder();
  ExportFolder(const ExportFolder&) = delete;
  ExportFolder& operator=(const ExportFolder&) = delete;

  /// Writes `rank`'s trace into the temporary folder. Throws OutputError.
  void add_rank(int rank, const std::vector<ExportNode>& nodes, int world);
  /// Writes the groups' comm-group configuration (comm_groups.hpp). Throws OutputError.
  void add_comm_groups(const std::vector<CommGroup>& groups);
  /// Writes the manifest and renames the folder into place (replacing an earlier export).
  /// Throws OutputError; nothing of the new set is left behind then.
  void commit();

  /// The prefix the traces will have once committed: `<dir>/step`.
  std::string prefix() const { return export_prefix(dir_); }

 private:
  struct Written {
    int rank = 0;
    std::string file;  ///< file name in the folder
    std::uint64_t bytes = 0;
    std::uint32_t crc32 = 0;
  };

  std::string dir_;     ///< as given (what messages and the prefix name)
  std::string target_;  ///< the folder replaced: dir_ with its symbolic links followed
  std::string temp_dir_;
  int world_ = 0;
  std::vector<Written> written_;
  std::optional<Written> comm_groups_;
  bool committed_ = false;
};

/// An export's manifest as `replay` checks against it: each rank's file, by rank.
struct ExportManifest {
  struct File {
    std::uint64_t bytes = 0;
    std::uint32_t crc32 = 0;
  };
  std::string path;         ///< the manifest file, for messages
  std::vector<File> ranks;  ///< ranks 0 to N-1
  /// The comm-group configuration's path and what it holds (exports of version 2 on).
  std::optional<std::pair<std::string, File>> comm_groups;
};

/// The manifest the folder of `prefix` holds for it, or nullopt when there is none (traces
/// from elsewhere). Throws InputError for a manifest that is not one of ours, and for ranks
/// that are not 0 to N-1 (`--ranks 0-7` exports replay; `--ranks 3,9` ones do not).
std::optional<ExportManifest> read_export_manifest(const std::string& prefix);

/// Throws InputError (`path`, the rule) unless `bytes` are rank `rank`'s file as the export
/// wrote it: its size and CRC-32 (rank < m.ranks.size()).
void check_exported_file(const ExportManifest& m, int rank, const std::string& path, std::string_view bytes);

/// Throws InputError unless the comm-group configuration the manifest lists, if any, is there
/// as the export wrote it (its size and CRC-32).
void check_exported_comm_groups(const ExportManifest& m);

}  // namespace trainsim::workload
