#pragma once
// One node of a Chakra execution trace as trainsim replays it: what it does, how long it took
// when it was recorded, what it waits for, and the communication it describes.
//
// The attribute names are those Chakra's converters and ASTRA-sim's generators write
// (mlcommons/chakra schema/protobuf/et_def.proto @ 21585d8f, and its src/converter):
// is_cpu_op, comm_type, comm_size, comm_src, comm_dst, comm_tag, pg_name, involved_dim; and
// pg_desc, trainsim's readable name of a numbered group (comm_groups.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainsim::workload {

/// How the replay treats a node.
enum class NodeKind {
  compute,     ///< a GPU kernel (COMP_NODE, is_cpu_op false): its recorded duration
  collective,  ///< a GPU collective (COMM_COLL_NODE, is_cpu_op false): on the simulated fabric
  send,        ///< COMM_SEND_NODE: a point-to-point transfer to comm_dst
  recv,        ///< COMM_RECV_NODE: completes when the matching send has arrived
  skipped,     ///< CPU-side ops, metadata, memory and other nodes: ordering only, no time
};

/// The schema's CollectiveCommType numbers (the comm_type attribute).
enum class CommType : int {
  all_reduce = 0,
  reduce = 1,
  all_gather = 2,
  gather = 3,
  scatter = 4,
  broadcast = 5,
  all_to_all = 6,
  reduce_scatter = 7,
  reduce_scatter_block = 8,
  barrier = 9,
};

struct ChakraNode {
  std::uint64_t id = 0;
  std::string name;
  int type = 0;  ///< the schema's NodeType number
  NodeKind kind = NodeKind::skipped;
  bool is_cpu_op = false;
  /// Recorded duration, in seconds (duration_micros / 1e6).
  double duration_s = 0;
  /// A compute node's work, where the producer recorded it: num_ops (FLOPs) and tensor_size
  /// (bytes of its tensors); 0 when absent.
  double num_ops = 0;
  double tensor_bytes = 0;
  /// The nodes it waits for (data_deps, then ctrl_deps), as indices into RankTrace::nodes;
  /// dependencies on ids not in the file are dropped (and counted: TraceFaults).
  std::vector<std::uint32_t> deps;
  std::optional<CommType> comm_type;
  /// comm_size, in bytes; for a collective, the size nccl-tests reports (engine/collective.hpp).
  double comm_bytes = 0;
  bool comm_size_given = false;  ///< the node has a comm_size attribute (a receive may lack one)
  std::optional<std::int64_t> comm_src;
  std::optional<std::int64_t> comm_dst;
  std::int64_t comm_tag = 0;
  /// The process group a collective runs in; empty: every rank of the trace.
  std::string pg_name;
  /// A readable name of that group, where the producer gave one (pg_desc); empty otherwise.
  std::string pg_desc;
  /// ASTRA-sim's per-network-dimension flags; empty when absent.
  std::vector<bool> involved_dim;
};

}  // namespace trainsim::workload
