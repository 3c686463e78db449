#include "sim/workload/chakra_reader.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "chakra_et.pb.h"
#include "sim/core/bounded_read.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/utf8_text.hpp"
#include "sim/workload/attribute_value.hpp"

namespace trainsim::workload {

namespace {

namespace pb = trainsim::chakra;

// The last node type of the storage proposal (CHECKPOINT_NODE, mlcommons/chakra
// schema/protobuf/et_def.proto @ 6dc63e14), read as a skipped node.
constexpr int k_last_proposed_node_type = 10;

std::string node_key(std::uint64_t id) {
  return "node " + std::to_string(id);
}

// One record: its bytes, or nullopt at the end of the file.
struct Record {
  std::string_view bytes;
  bool at_end = false;
};

class RecordStream {
 public:
  RecordStream(std::string_view data, std::string path) : data_(data), path_(std::move(path)) {}
  // `after` names the record before this one, for the message of a truncated one.
  Record next(const std::string& after) {
    if (pos_ == data_.size()) return {{}, true};
    std::uint64_t length = 0;
    int shift = 0;
    for (;;) {
      if (pos_ == data_.size()) throw InputError(path_, after, "", "truncated length prefix of the next record");
      const auto b = static_cast<unsigned char>(data_[pos_++]);
      length |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
      shift += 7;
      if (shift >= 35) throw InputError(path_, after, "", "the next record's length prefix is not a 32-bit varint");
    }
    if (length > data_.size() - pos_)
      throw InputError(path_, after, "",
                       "truncated message: the next record needs " + std::to_string(length) + " bytes, the file has " +
                           std::to_string(data_.size() - pos_) + " left");
    const std::string_view bytes = data_.substr(pos_, length);
    pos_ += length;
    return {bytes, false};
  }

 private:
  std::string_view data_;
  std::string path_;
  size_t pos_ = 0;
};

// A name trainsim keeps is printed (messages, --json, traces): it must be UTF-8 text. The
// proto's `bytes` fields take any bytes (chakra_et.proto), so the check is here.
void require_utf8(const std::string& text, const std::string& path, const std::string& key, const std::string& what) {
  const std::size_t at = first_invalid_utf8(text);
  if (at != std::string_view::npos)
    throw InputError(path, key, "",
                     "the " + what + " is not UTF-8 text (byte " + std::to_string(at + 1) + " of " +
                         std::to_string(text.size()) + ")");
}

bool parse(google::protobuf::MessageLite& m, std::string_view bytes) {
  return m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

std::optional<CommType> comm_type_of(std::int64_t v) {
  if (v < 0 || v > static_cast<int>(CommType::barrier)) return std::nullopt;
  return static_cast<CommType>(v);
}

// Fills `n` from the record's fields; returns its raw dependencies (ids).
ChakraNode convert(const pb::Node& m, const std::string& path, std::vector<std::uint64_t>& data_ids,
                   std::vector<std::uint64_t>& ctrl_ids) {
  ChakraNode n;
  n.id = m.id();
  n.name = m.name();
  n.type = static_cast<int>(m.type());
  const std::string key = node_key(n.id);
  require_utf8(n.name, path, key, "name");
  // Chakra's schema has 1 to 7 (chakra_et.proto); 8 to 10 are the storage, batch and checkpoint
  // nodes of a proposal traces may already hold, skipped like other nodes the replay ignores.
  if (n.type <= pb::INVALID_NODE || n.type > k_last_proposed_node_type)
    throw InputError(path, key, std::to_string(n.type),
                     "unknown node type (the schema's are 1 METADATA_NODE to 7 COMM_COLL_NODE; 8 to 10 are "
                     "skipped)");
  n.duration_s = static_cast<double>(m.duration_micros()) / 1e6;
  for (const pb::Attribute& a : m.attr()) {
    const std::string& name = a.name();
    auto integer = [&]() {
      const auto v = attribute_int(a);
      if (!v) throw InputError(path, key, name, "attribute must hold an integer or a bool");
      return *v;
    };
    if (name == "is_cpu_op") {
      n.is_cpu_op = integer() != 0;
    } else if (name == "comm_type") {
      const std::int64_t v = integer();
      n.comm_type = comm_type_of(v);
      if (!n.comm_type)
        throw InputError(path, key, "comm_type = " + std::to_string(v),
                         "unknown collective type (the schema's are 0 ALL_REDUCE to 9 BARRIER)");
    } else if (name == "comm_size") {
      const std::int64_t v = integer();
      if (v < 0) throw InputError(path, key, "comm_size = " + std::to_string(v), "must be >= 0 bytes");
      n.comm_bytes = static_cast<double>(v);
      n.comm_size_given = true;
    } else if (name == "num_ops" || name == "tensor_size") {
      const std::int64_t v = integer();
      if (v < 0) throw InputError(path, key, name + " = " + std::to_string(v), "must be >= 0");
      (name == "num_ops" ? n.num_ops : n.tensor_bytes) = static_cast<double>(v);
    } else if (name == "comm_src") {
      n.comm_src = integer();
    } else if (name == "comm_dst") {
      n.comm_dst = integer();
    } else if (name == "comm_tag") {
      n.comm_tag = integer();
    } else if (name == "pg_name" || name == "pg_desc") {
      std::string& text = name == "pg_name" ? n.pg_name : n.pg_desc;
      text = attribute_text(a);
      require_utf8(text, path, key, name);
    } else if (name == "involved_dim") {
      const auto f = attribute_flags(a);
      if (!f) throw InputError(path, key, name, "attribute must hold a list of bools");
      n.involved_dim = *f;
    }
  }
  switch (m.type()) {
    case pb::COMP_NODE:
      n.kind = n.is_cpu_op ? NodeKind::skipped : NodeKind::compute;
      break;
    case pb::COMM_COLL_NODE:
      n.kind = n.is_cpu_op ? NodeKind::skipped : NodeKind::collective;
      if (!n.is_cpu_op && !n.comm_type)
        throw InputError(path, key, "", "a GPU collective (COMM_COLL_NODE, is_cpu_op false) without comm_type");
      break;
    case pb::COMM_SEND_NODE:
      n.kind = NodeKind::send;
      if (!n.comm_dst) throw InputError(path, key, "", "a send without a peer (no comm_dst attribute)");
      if (!n.comm_size_given) throw InputError(path, key, "", "a send without comm_size");
      break;
    case pb::COMM_RECV_NODE:
      n.kind = NodeKind::recv;
      if (!n.comm_src) throw InputError(path, key, "", "a receive without a peer (no comm_src attribute)");
      break;
    default:
      n.kind = NodeKind::skipped;
      break;
  }
  data_ids.assign(m.data_deps().begin(), m.data_deps().end());
  ctrl_ids.assign(m.ctrl_deps().begin(), m.ctrl_deps().end());
  return n;
}

// The position of each node in a topological order of `deps` (Kahn's algorithm, the ready node
// first in the file first: deterministic). On a cycle, walks back from a node left over until a
// node repeats, which lies on the cycle, and names it.
std::vector<std::uint32_t> topological_positions(const RankTrace& t,
                                                 const std::vector<std::vector<std::uint32_t>>& deps) {
  const size_t n = t.nodes.size();
  std::vector<std::uint32_t> waiting(n, 0);
  std::vector<std::vector<std::uint32_t>> dependents(n);
  for (size_t i = 0; i < n; ++i)
    for (const std::uint32_t d : deps[i]) {
      ++waiting[i];
      dependents[d].push_back(static_cast<std::uint32_t>(i));
    }
  std::set<std::uint32_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.insert(static_cast<std::uint32_t>(i));
  std::vector<std::uint32_t> position(n, 0);
  std::uint32_t done = 0;
  while (!ready.empty()) {
    const std::uint32_t i = *ready.begin();
    ready.erase(ready.begin());
    position[i] = done++;
    for (const std::uint32_t j : dependents[i])
      if (--waiting[j] == 0) ready.insert(j);
  }
  if (done == n) return position;
  size_t at = 0;
  while (waiting[at] == 0) ++at;
  std::vector<bool> seen(n, false);
  while (!seen[at]) {
    seen[at] = true;
    for (const std::uint32_t d : deps[at])
      if (waiting[d] != 0) {
        at = d;
        break;
      }
  }
  throw InputError(t.path, node_key(t.nodes[at].id), "",
                   "a dependency cycle (the node waits, through data_deps, for itself)");
}

}  // namespace

std::string read_rank_trace_bytes(const std::string& path) {
  return read_input_file(path, {"the trace file", "cannot open the trace file", k_max_trace_bytes});
}

RankTrace read_rank_trace(const std::string& path, int rank) {
  return parse_rank_trace(read_rank_trace_bytes(path), path, rank);
}

RankTrace parse_rank_trace(const std::string& bytes, const std::string& path, int rank) {
  // A record protobuf cannot parse is refused with trainsim's one line (below); protobuf's own
  // line on stderr is silenced while this lives (LogSilencer, not SetLogHandler, which its
  // header keeps to a program's start: google/protobuf/stubs/logging.h of protobuf 3.21).
  const google::protobuf::LogSilencer quiet;
  // Gzip is recognised by its magic bytes, not by the file name; inflated in memory, capped.
  const bool gzip = starts_as_gzip(bytes);
  const std::string data = gzip ? gunzip_capped(bytes, k_max_trace_bytes, path, "the trace file") : std::string();
  const std::string_view view = gzip ? std::string_view(data) : std::string_view(bytes);
  RankTrace t;
  t.path = path;
  t.rank = rank;
  RecordStream records(view, path);
  const Record first = records.next("GlobalMetadata");
  if (first.at_end) throw InputError(path, "", "", "empty: a Chakra trace starts with a GlobalMetadata record");
  pb::GlobalMetadata meta;
  // A Node parses as a GlobalMetadata of unknown fields only: refuse a first record without any.
  if (!parse(meta, first.bytes) || (meta.version().empty() && meta.attr_size() == 0 && !first.bytes.empty()))
    throw InputError(path, "GlobalMetadata", "", "the first record is not a GlobalMetadata message");
  t.version = meta.version();
  for (const pb::Attribute& a : meta.attr()) t.metadata[a.name()] = attribute_text(a);

  std::vector<std::vector<std::uint64_t>> data_ids;
  std::vector<std::vector<std::uint64_t>> ctrl_ids;
  std::unordered_map<std::uint64_t, std::uint32_t> index_of;
  std::string after = "GlobalMetadata";
  pb::Node m;
  for (;;) {
    const Record r = records.next("after " + after);
    if (r.at_end) break;
    if (t.nodes.size() == k_max_trace_nodes)
      throw InputError(path, "", "", "more than 2,097,152 nodes, the most a trace may have");
    m.Clear();
    if (!parse(m, r.bytes)) throw InputError(path, "after " + after, "", "a record that is not a Chakra Node message");
    data_ids.emplace_back();
    ctrl_ids.emplace_back();
    ChakraNode n = convert(m, path, data_ids.back(), ctrl_ids.back());
    if (!index_of.emplace(n.id, static_cast<std::uint32_t>(t.nodes.size())).second)
      throw InputError(path, node_key(n.id), "", "a node id given twice");
    after = node_key(n.id);
    t.nodes.push_back(std::move(n));
  }
  const size_t count = t.nodes.size();
  auto resolve = [&](const std::vector<std::uint64_t>& ids) {
    std::vector<std::uint32_t> out;
    for (const std::uint64_t id : ids) {
      const auto it = index_of.find(id);
      if (it == index_of.end())
        ++t.tolerated.missing_deps;
      else
        out.push_back(it->second);
    }
    return out;
  };
  std::vector<std::vector<std::uint32_t>> data_deps(count);
  for (size_t i = 0; i < count; ++i) data_deps[i] = resolve(data_ids[i]);
  // data_deps must be a DAG. A ctrl_dep is kept where it agrees with the data order: Chakra's
  // PyTorch converter names a node's enclosing CPU op there, which can close a cycle with the
  // data dependencies (the ResNet-50 sample: 554 ctrl_deps point forward), and Chakra's own
  // feeder follows data_deps only (mlcommons/chakra src/feeder/et_feeder.cpp @
  // 99d7189e67730e209283c045d39c39844eb6bcac, freeChildrenNodes).
  const std::vector<std::uint32_t> position = topological_positions(t, data_deps);
  for (size_t i = 0; i < count; ++i) {
    ChakraNode& n = t.nodes[i];
    n.deps = std::move(data_deps[i]);
    for (const std::uint32_t d : resolve(ctrl_ids[i])) {
      if (position[d] < position[i])
        n.deps.push_back(d);
      else
        ++t.tolerated.reversed_ctrl_deps;
    }
    if (n.kind == NodeKind::skipped) {
      if (n.type == pb::COMM_COLL_NODE)
        ++t.tolerated.cpu_collectives;
      else if (n.is_cpu_op)
        ++t.tolerated.cpu_ops;
      else
        ++t.tolerated.other_nodes;
    } else if (n.kind == NodeKind::compute && n.duration_s == 0) {
      ++t.tolerated.zero_durations;
    }
  }
  return t;
}

}  // namespace trainsim::workload
