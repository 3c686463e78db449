#include "sim/workload/export_folder.hpp"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <system_error>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"

namespace trainsim::workload {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_format = "trainsim chakra export";
// Version 2 added the comm-group configuration (comm_groups); version 1 exports still replay.
constexpr int k_version = 2;
// A manifest lists at most 4,096 ranks (the most a workload may have) at about 80 bytes each.
constexpr std::uintmax_t k_max_manifest_bytes = 1 << 20;
constexpr std::size_t k_crc_chunk_bytes = 1 << 20;

// `dir` as the folder it names: "out/", "out/." and "x/../out" are "out" ("/" stays).
std::string folder_name(const std::string& dir) {
  std::string name = fs::path(dir).lexically_normal().string();
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  return name;
}

// `dir` with the symbolic links that name it followed: a link to a folder gets the export where
// it points and stays a link, as an output file's link does (output_file.hpp). Before, the link
// was moved aside and replaced by a folder of its own name.
std::string followed(const std::string& dir) {
  constexpr int k_max_link_hops = 40;  // Linux's MAXSYMLINKS
  fs::path p = dir;
  std::error_code ec;
  for (int hops = 0; hops < k_max_link_hops && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) break;
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return folder_name(p.string());
}

std::string folder_of(const std::string& prefix) {
  const fs::path parent = fs::path(prefix).parent_path();
  return parent.empty() ? "." : parent.string();
}

// zlib's CRC-32 of `bytes`, fed in pieces (its length argument is 32 bits).
std::uint32_t crc32_of(std::string_view bytes) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  for (std::size_t at = 0; at < bytes.size(); at += k_crc_chunk_bytes) {
    const std::size_t n = std::min(k_crc_chunk_bytes, bytes.size() - at);
    crc = ::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(n));
  }
  return static_cast<std::uint32_t>(crc);
}

// The manifest of `folder` as JSON, nullopt when there is none. Throws InputError for one
// that is not a manifest of ours.
std::optional<nlohmann::json> read_manifest(const std::string& folder) {
  const std::string path = (fs::path(folder) / k_export_manifest).string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  if (fs::file_size(path, ec) > k_max_manifest_bytes)
    throw InputError(path, "", "", "larger than 1 MiB: not the manifest of a trainsim export");
  std::ifstream in(path, std::ios::binary);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  const auto bad = [&](const std::string& what) {
    return InputError(path, "", "", "not the manifest of a trainsim export: " + what);
  };
  if (j.is_discarded() || !j.is_object()) throw bad("not a JSON object");
  const int version = j.contains("version") && j["version"].is_number_integer() ? j["version"].get<int>() : 0;
  if (j.value("format", "") != k_format || version < 1 || version > k_version)
    throw bad("expected format '" + std::string(k_format) + "', version 1 to " + std::to_string(k_version));
  if (!j.contains("prefix") || !j["prefix"].is_string() || !j.contains("ranks") || !j["ranks"].is_array())
    throw bad("needs 'prefix' and 'ranks'");
  const auto file_name_ok = [](const std::string& file) {
    return !file.empty() && file.find('/') == std::string::npos && file != "." && file != "..";
  };
  if (j.contains("comm_groups")) {
    const nlohmann::json& g = j["comm_groups"];
    if (!g.is_object() || !g.contains("file") || !g["file"].is_string() || !g.contains("bytes") ||
        !g["bytes"].is_number_unsigned() || !g.contains("crc32") || !g["crc32"].is_number_unsigned() ||
        !file_name_ok(g["file"].get<std::string>()))
      throw bad("'comm_groups' needs 'file' (a file name in the folder), 'bytes' and 'crc32'");
  }
  for (const nlohmann::json& r : j["ranks"]) {
    if (!r.is_object() || !r.contains("rank") || !r["rank"].is_number_integer() || !r.contains("file") ||
        !r["file"].is_string() || !r.contains("bytes") || !r["bytes"].is_number_unsigned() || !r.contains("crc32") ||
        !r["crc32"].is_number_unsigned())
      throw bad("each rank needs 'rank', 'file', 'bytes' and 'crc32'");
    if (!file_name_ok(r["file"].get<std::string>())) throw bad("a rank's 'file' must be a file name in the folder");
  }
  return j;
}

// The names an export wrote into `folder`: its manifest and the files the manifest lists.
std::set<std::string> export_names(const nlohmann::json& manifest) {
  std::set<std::string> names = {k_export_manifest};
  for (const nlohmann::json& r : manifest["ranks"]) names.insert(r["file"].get<std::string>());
  if (manifest.contains("comm_groups")) names.insert(manifest["comm_groups"]["file"].get<std::string>());
  return names;
}

// Removes what an export wrote into `folder` (and temporaries of ours), then the folder if
// that emptied it: a file someone added is left where it is.
void remove_export(const std::string& folder) {
  std::set<std::string> names;
  try {
    if (const auto m = read_manifest(folder)) names = export_names(*m);
  } catch (const InputError&) {
    return;  // not ours after all: leave it whole
  }
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (names.count(name) || is_temporary_name(name)) fs::remove(e.path(), ec);
  }
  fs::remove(folder, ec);  // only when empty
}

// The first entry of `folder` that is neither an earlier export's (its manifest lists it) nor
// a temporary of ours, or nullopt. A damaged manifest lists nothing.
std::optional<std::string> foreign_entry(const std::string& folder) {
  std::set<std::string> ours;
  try {
    if (const auto m = read_manifest(folder)) ours = export_names(*m);
  } catch (const InputError&) {
  }
  std::error_code ec;
  std::optional<std::string> first;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (!ours.count(name) && !is_temporary_name(name) && (!first || name < *first)) first = name;
  }
  return first;
}

// Whether `name` is a file an export writes into its folder: a rank's trace (step.N.et), the
// comm-group configuration, the manifest, or a temporary of ours.
bool written_by_an_export(const std::string& name) {
  constexpr std::string_view head = "step.", tail = ".et";
  if (name.starts_with(head) && name.ends_with(tail) && name.size() > head.size() + tail.size()) {
    const std::string rank = name.substr(head.size(), name.size() - head.size() - tail.size());
    return rank.find_first_not_of("0123456789") == std::string::npos;
  }
  return name == k_comm_group_file || name == k_export_manifest || is_temporary_name(name);
}

// What writers of this host that are gone left beside `target` (the folder of DIR, links
// followed): a run killed mid-export left its half-written set, .trainsim-tmp.DIR.HOST.PID.tmp,
// for good; one killed between its two renames, the earlier export in
// .trainsim-tmp.DIR.replaced.HOST.PID.tmp. The half set is emptied of the names an export
// writes, and removed when that empties it (a file someone put there stays, and so does the
// folder); the earlier export goes back to DIR when DIR is missing, else is removed as a
// committed export's would be. Another host's, a running writer's and another name's are kept.
void remove_dead_writers_sets(const std::string& target) {
  const fs::path parent = fs::path(target).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  const std::string name = fs::path(target).filename().string();
  std::error_code ec;
  for (const std::string& set : stale_temporaries(dir, name)) {
    if (fs::is_symlink(fs::symlink_status(set, ec)) || !fs::is_directory(set, ec)) continue;
    for (const fs::directory_entry& e : fs::directory_iterator(set, ec))
      if (written_by_an_export(e.path().filename().string()) && e.is_regular_file(ec)) fs::remove(e.path(), ec);
    fs::remove(set, ec);  // only when empty
  }
  for (const std::string& aside : stale_temporaries(dir, name + ".replaced")) {
    if (fs::is_symlink(fs::symlink_status(aside, ec)) || !fs::is_directory(aside, ec)) continue;
    if (fs::exists(fs::symlink_status(target, ec))) {
      remove_export(aside);
    } else {
      fs::rename(aside, target, ec);
    }
  }
}

}  // namespace

void ExportFolder::check(const std::string& given, const std::string& command, const std::string& option) {
  if (given.empty()) throw InputError(command, option, given, "needs a folder name");
  const std::string dir = followed(folder_name(given));
  std::error_code ec;
  // The folder is renamed aside and replaced: never the current folder or one holding it (a
  // shell left in a removed folder), nor the root.
  fs::path whole = fs::absolute(dir, ec).lexically_normal();
  if (whole.filename().empty()) whole = whole.parent_path();  // "out/." and "out/" are "out"
  const fs::path here = fs::current_path(ec).lexically_normal();
  const auto [end, rest] = std::mismatch(whole.begin(), whole.end(), here.begin(), here.end());
  if (whole == whole.root_path() || end == whole.end())
    throw InputError(command, option, given,
                     "is the current folder or holds it: give the traces a folder of their own (it is replaced whole)");
  remove_dead_writers_sets(dir);  // once per command, before the run (output_target's rule for files)
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st) && !fs::is_directory(st))
    throw InputError(command, option, given, "names a file, not a folder: give a folder for the traces");
  if (fs::exists(st)) {
    std::optional<nlohmann::json> manifest;
    try {
      manifest = read_manifest(dir);
    } catch (const InputError& e) {
      throw InputError(command, option, given, std::string("holds a damaged export manifest (") + e.what() + ")");
    }
    const std::set<std::string> ours = manifest ? export_names(*manifest) : std::set<std::string>{};
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      if (ours.count(name) || is_temporary_name(name)) continue;
      throw InputError(command, option, given,
                       "holds '" + name + "', which no export of trainsim wrote: give a new or empty folder, or " +
                           "an earlier export's, so that nothing of yours is replaced");
    }
  }
  const fs::path parent = whole.parent_path();
  fs::create_directories(parent, ec);
  if (ec)
    throw InputError(command, option, given, "cannot create the folder '" + parent.string() + "': " + ec.message());
  // The set is built beside DIR: its parent must take a new entry.
  if (const auto reason = refuses_new_files(parent.string()))
    throw InputError(command, option, given, "cannot create a folder in '" + parent.string() + "': " + *reason);
}

ExportFolder::ExportFolder(std::string dir) : dir_(folder_name(std::move(dir))), target_(followed(dir_)) {
  temp_dir_ = temporary_name(target_);
  std::error_code ec;
  fs::remove_all(temp_dir_, ec);  // an earlier process of the same host and pid
  if (!fs::create_directory(temp_dir_, ec))
    throw OutputError(dir_, "cannot create " + temp_dir_ + ": " + (ec ? ec.message() : "it exists"));
}

ExportFolder::~ExportFolder() {
  std::error_code ec;
  if (!committed_) fs::remove_all(temp_dir_, ec);  // a folder of this process' own name
}

void ExportFolder::add_rank(int rank, const std::vector<ExportNode>& nodes, int world) {
  world_ = world;
  const std::string file = fs::path(export_prefix(temp_dir_)).filename().string() + "." + std::to_string(rank) + ".et";
  const std::string path = (fs::path(temp_dir_) / file).string();
  const std::string final_path = (fs::path(dir_) / file).string();  // what messages name
  const std::string bytes = chakra_trace_bytes(nodes, rank, world);
  try {
    write_file_atomically(path, bytes);
  } catch (const OutputError& e) {
    throw OutputError(final_path, e.reason());
  }
  written_.push_back({rank, file, bytes.size(), crc32_of(bytes)});
}

void ExportFolder::add_comm_groups(const std::vector<CommGroup>& groups) {
  const std::string bytes = comm_group_json(groups);
  try {
    write_file_atomically((fs::path(temp_dir_) / k_comm_group_file).string(), bytes);
  } catch (const OutputError& e) {
    throw OutputError((fs::path(dir_) / k_comm_group_file).string(), e.reason());
  }
  comm_groups_ = Written{0, k_comm_group_file, bytes.size(), crc32_of(bytes)};
}

void ExportFolder::commit() {
  nlohmann::ordered_json m;
  m["format"] = k_format;
  m["version"] = k_version;
  m["prefix"] = fs::path(export_prefix(dir_)).filename().string();
  m["world_size"] = world_;
  m["ranks"] = nlohmann::ordered_json::array();
  for (const Written& w : written_)
    m["ranks"].push_back({{"rank", w.rank}, {"file", w.file}, {"bytes", w.bytes}, {"crc32", w.crc32}});
  if (comm_groups_)
    m["comm_groups"] = {{"file", comm_groups_->file}, {"bytes", comm_groups_->bytes}, {"crc32", comm_groups_->crc32}};
  write_file_atomically((fs::path(temp_dir_) / k_export_manifest).string(), m.dump(1) + "\n");

  std::error_code ec;
  if (!fs::exists(target_, ec)) {
    fs::rename(temp_dir_, target_, ec);
    if (ec) throw OutputError(dir_, "cannot rename " + temp_dir_ + " into place: " + ec.message());
    committed_ = true;
    return;
  }
  // An earlier export (or an empty folder) goes aside first: DIR is the old set or the new
  // one, never a mix; for a moment it is absent.
  const std::string aside = temporary_name(target_ + ".replaced");
  fs::rename(target_, aside, ec);
  if (ec) throw OutputError(dir_, "cannot move the earlier export aside to " + aside + ": " + ec.message());
  // DIR was empty or an earlier export's when the run began (check()); whatever appeared in it
  // since (a user's file, another command's output) is not ours to replace: DIR goes back as
  // it was and the new set is not written. Before, it stayed in the hidden folder aside.
  if (const auto foreign = foreign_entry(aside)) {
    std::error_code back;
    fs::rename(aside, target_, back);
    throw OutputError(dir_, "it now holds '" + *foreign + "', which no export of trainsim wrote: left as it was, " +
                                "the traces not written (give a new or empty folder)");
  }
  fs::rename(temp_dir_, target_, ec);
  if (ec) {
    std::error_code back;
    fs::rename(aside, target_, back);
    throw OutputError(dir_, "cannot rename " + temp_dir_ + " into place: " + ec.message());
  }
  committed_ = true;
  remove_export(aside);
}

std::optional<ExportManifest> read_export_manifest(const std::string& prefix) {
  const std::string folder = folder_of(prefix);
  const std::optional<nlohmann::json> m = read_manifest(folder);
  if (!m || (*m)["prefix"].get<std::string>() != fs::path(prefix).filename().string()) return std::nullopt;
  ExportManifest out;
  out.path = (fs::path(folder) / k_export_manifest).string();
  std::vector<std::pair<int, ExportManifest::File>> by_rank;
  for (const nlohmann::json& r : (*m)["ranks"])
    by_rank.push_back({r["rank"].get<int>(), {r["bytes"].get<std::uint64_t>(), r["crc32"].get<std::uint32_t>()}});
  std::stable_sort(by_rank.begin(), by_rank.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, file] : by_rank) {
    const int expected = static_cast<int>(out.ranks.size());
    if (rank != expected)
      throw InputError(out.path, "ranks", std::to_string(rank),
                       "the export lacks rank " + std::to_string(expected) +
                           " (written with --ranks): a replay needs ranks 0 to N-1");
    out.ranks.push_back(file);
  }
  if (m->contains("comm_groups")) {
    const nlohmann::json& g = (*m)["comm_groups"];
    out.comm_groups = {(fs::path(folder) / g["file"].get<std::string>()).string(),
                       {g["bytes"].get<std::uint64_t>(), g["crc32"].get<std::uint32_t>()}};
  }
  return out;
}

namespace {

void check_listed(const ExportManifest& m, const ExportManifest::File& want, const std::string& path,
                  std::string_view bytes) {
  const std::uint32_t crc = crc32_of(bytes);
  if (bytes.size() != want.bytes || crc != want.crc32)
    throw InputError(path, "", "",
                     "is not the file the export wrote (" + std::to_string(bytes.size()) + " bytes, CRC-32 " +
                         std::to_string(crc) + "; " + m.path + " says " + std::to_string(want.bytes) +
                         " bytes, CRC-32 " + std::to_string(want.crc32) + ")");
}

}  // namespace

void check_exported_file(const ExportManifest& m, int rank, const std::string& path, std::string_view bytes) {
  check_listed(m, m.ranks.at(static_cast<std::size_t>(rank)), path, bytes);
}

void check_exported_comm_groups(const ExportManifest& m) {
  if (!m.comm_groups) return;
  const auto& [path, want] = *m.comm_groups;
  std::error_code ec;
  // A size other than the listed one is refused before the file is read.
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec)
    throw InputError(path, "", "", "missing or unreadable, though " + m.path + " lists it: the export is incomplete");
  if (size != want.bytes)
    throw InputError(path, "", "",
                     "is not the file the export wrote (" + std::to_string(size) + " bytes; " + m.path + " says " +
                         std::to_string(want.bytes) + " bytes)");
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check_listed(m, want, path, bytes);
}

}  // namespace trainsim::workload
