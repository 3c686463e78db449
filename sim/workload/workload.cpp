#include "sim/workload/workload.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "sim/core/error.hpp"
#include "sim/workload/chakra_reader.hpp"
#include "sim/workload/export_folder.hpp"

namespace trainsim::workload {

namespace {

std::string rank_path(const std::string& prefix, int rank) {
  return prefix + "." + std::to_string(rank) + ".et";
}

std::string node_key(const ChakraNode& n) {
  return "node " + std::to_string(n.id);
}

// A comm_size as it was written: a whole number of bytes.
std::string bytes_text(double bytes) {
  return std::to_string(static_cast<std::int64_t>(bytes));
}

void check_peers(const Workload& w) {
  const auto ranks = static_cast<std::int64_t>(w.ranks.size());
  // (source, destination, tag) -> the sends, and the receives, in file order.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<const ChakraNode*>> sends;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<const ChakraNode*>> recvs;
  std::map<const ChakraNode*, const RankTrace*> file_of;
  for (const RankTrace& t : w.ranks)
    for (const ChakraNode& n : t.nodes) {
      if (n.kind != NodeKind::send && n.kind != NodeKind::recv) continue;
      const bool is_send = n.kind == NodeKind::send;
      const std::int64_t peer = is_send ? *n.comm_dst : *n.comm_src;
      if (peer < 0 || peer >= ranks || peer == t.rank)
        throw InputError(t.path, node_key(n), (is_send ? "comm_dst = " : "comm_src = ") + std::to_string(peer),
                         "the peer must be another rank of the workload (0 to " + std::to_string(ranks - 1) + ")");
      file_of[&n] = &t;
      if (is_send)
        sends[{t.rank, peer, n.comm_tag}].push_back(&n);
      else
        recvs[{peer, t.rank, n.comm_tag}].push_back(&n);
    }
  auto refuse = [&](const ChakraNode* n, bool is_send, std::int64_t peer) {
    throw InputError(file_of[n]->path, node_key(*n), "",
                     std::string(is_send ? "a send without its receive in " : "a receive without its send in ") +
                         w.ranks[static_cast<size_t>(peer)].path +
                         " (matched in order per source, destination and tag " + std::to_string(n->comm_tag) + ")");
  };
  for (const auto& [key, list] : sends) {
    const auto it = recvs.find(key);
    const size_t matched = it == recvs.end() ? 0 : it->second.size();
    for (size_t k = 0; k < std::min(list.size(), matched); ++k) {
      // Both ends state the size where both have comm_size (a receive may lack it: some
      // producers leave it out, and the send's size is the transfer's then).
      const ChakraNode& send = *list[k];
      const ChakraNode& recv = *it->second[k];
      if (send.comm_size_given && recv.comm_size_given && send.comm_bytes != recv.comm_bytes)
        throw InputError(file_of[&send]->path, node_key(send), "comm_size = " + bytes_text(send.comm_bytes),
                         "the send's size differs from its receive's, " + file_of[&recv]->path + " " + node_key(recv) +
                             " comm_size = " + bytes_text(recv.comm_bytes) +
                             " (matched in order per source, destination and tag " + std::to_string(send.comm_tag) +
                             ")");
    }
    if (list.size() > matched) refuse(list[matched], true, std::get<1>(key));
  }
  for (const auto& [key, list] : recvs) {
    const auto it = sends.find(key);
    const size_t matched = it == sends.end() ? 0 : it->second.size();
    if (list.size() > matched) refuse(list[matched], false, std::get<0>(key));
  }
}

void check_groups(const Workload& w) {
  std::set<std::string> groups;
  for (const RankTrace& t : w.ranks)
    for (const ChakraNode& n : t.nodes) {
      if (n.kind != NodeKind::collective) continue;
      groups.insert(n.pg_name);
      for (const bool d : n.involved_dim)
        if (!d)
          throw InputError(t.path, node_key(n), "involved_dim",
                           "a collective over only some network dimensions (ASTRA-sim's topology dimensions have no "
                           "trainsim counterpart: give it a pg_name)");
    }
  for (const std::string& g : groups) {
    const std::vector<int> members = w.group_ranks(g);
    std::vector<const ChakraNode*> first;
    const RankTrace& lead = w.ranks[static_cast<size_t>(members.front())];
    for (const ChakraNode& n : lead.nodes)
      if (n.kind == NodeKind::collective && n.pg_name == g) first.push_back(&n);
    for (const int r : members) {
      const RankTrace& t = w.ranks[static_cast<size_t>(r)];
      size_t k = 0;
      for (const ChakraNode& n : t.nodes) {
        if (n.kind != NodeKind::collective || n.pg_name != g) continue;
        if (k == first.size() || *first[k]->comm_type != *n.comm_type)
          throw InputError(t.path, node_key(n), "",
                           "collective " + std::to_string(k + 1) + " of process group '" + g + "' is not the one " +
                               lead.path + " runs there (members run the same collectives in the same file order)");
        ++k;
      }
      if (k != first.size())
        throw InputError(t.path, "", "",
                         "runs " + std::to_string(k) + " collectives of process group '" + g + "', " + lead.path +
                             " runs " + std::to_string(first.size()));
    }
  }
}

}  // namespace

std::vector<int> Workload::group_ranks(const std::string& pg_name) const {
  std::vector<int> out;
  for (const RankTrace& t : ranks) {
    bool member = pg_name.empty();
    for (size_t i = 0; !member && i < t.nodes.size(); ++i)
      member = t.nodes[i].kind == NodeKind::collective && t.nodes[i].pg_name == pg_name;
    if (member) out.push_back(t.rank);
  }
  return out;
}

TraceFaults Workload::tolerated() const {
  TraceFaults f;
  for (const RankTrace& t : ranks) f += t.tolerated;
  return f;
}

Workload read_workload(const std::string& prefix) {
  Workload w;
  w.prefix = prefix;
  if (!std::filesystem::exists(rank_path(prefix, 0)))
    throw InputError(rank_path(prefix, 0), "", "",
                     "no such file: a workload PREFIX names the files PREFIX.0.et, PREFIX.1.et, ... (one per rank)");
  // A trainsim export is checked against its manifest (export_folder.hpp), each file as it is
  // read: a set cut short or changed since is refused, never replayed as a smaller job.
  const std::optional<ExportManifest> exported = read_export_manifest(prefix);
  const int listed = exported ? static_cast<int>(exported->ranks.size()) : -1;
  if (exported) check_exported_comm_groups(*exported);
  for (int r = 0; std::filesystem::exists(rank_path(prefix, r)); ++r) {
    const std::string path = rank_path(prefix, r);
    if (r == k_max_workload_ranks)
      throw InputError(path, "", "", "more than 4,096 ranks, the most a workload may have");
    if (r == listed)
      throw InputError(path, "", "",
                       "not part of the export (its manifest lists ranks 0 to " + std::to_string(listed - 1) + ")");
    const std::string bytes = read_rank_trace_bytes(path);
    if (exported) check_exported_file(*exported, r, path, bytes);
    w.ranks.push_back(parse_rank_trace(bytes, path, r));
  }
  if (exported && static_cast<int>(w.ranks.size()) < listed)
    throw InputError(rank_path(prefix, static_cast<int>(w.ranks.size())), "", "",
                     "missing or unreadable, though " + exported->path + " lists it: the export is incomplete");
  check_workload(w);
  return w;
}

void check_workload(const Workload& w) {
  check_peers(w);
  check_groups(w);
}

}  // namespace trainsim::workload
