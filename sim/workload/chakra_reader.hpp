#pragma once
// Reads Chakra execution traces: since schema v0.0.4 a stream of protobuf messages, each
// preceded by its length as a varint, a GlobalMetadata first and then Nodes
// (mlcommons/chakra src/third_party/utils/protolib.py @ 430cc00a0bd267b69736ad83591b204d356a467a:
// encodeMessage/decodeMessage), optionally gzip-compressed; one file per rank, named
// <prefix>.<rank>.et.

#include <cstddef>
#include <string>

#include "sim/workload/rank_trace.hpp"

namespace trainsim::workload {

/// The largest trace file read, as a file and decompressed: 512 MiB, and the most nodes in one
/// file: 2,097,152 (2^21). The real ResNet-50 trace is 2.9 MB for 3,664 nodes. Why not more:
/// `replay` must stay inside a 4 GB address space (`ulimit -v 4000000`), where the process
/// starts with some 1.2 GB reserved (its 1 GiB simulation stack, core/large_stack_call.hpp, and
/// the libraries), and a node costs some 500 bytes from reading to replay besides its name.
/// Measured (this build, 2 cores): 2,000,000 chained compute nodes replay in 1.04 GB of RSS;
/// 2^21 nodes with 200-byte names (a 457 MB file) in 1.94 GB, under that limit; 2^24, the
/// earlier cap, would take some 8 GB. A gzip bomb stops at 512 MiB inflated, 1.1 GB of RSS.
inline constexpr std::size_t k_max_trace_bytes = std::size_t{512} << 20;
inline constexpr std::size_t k_max_trace_nodes = std::size_t{1} << 21;

/// Reads one rank's file. Throws InputError (file, node id, rule) for a file that cannot be
/// read, a truncated or unparsable record, a missing GlobalMetadata, an unknown node type, a
/// duplicate node id, a GPU collective without comm_type, a send without comm_dst or comm_size,
/// a receive without comm_src, or a cycle of data_deps (ctrl_deps against their order are
/// dropped and counted).
RankTrace read_rank_trace(const std::string& path, int rank);

/// The bytes of one rank's file as it is stored (gzip or not), at most k_max_trace_bytes.
/// Throws InputError for a file that cannot be opened or passes the cap.
std::string read_rank_trace_bytes(const std::string& path);

/// Parses one rank's trace from its bytes (gzip or not); `path` names it in errors.
RankTrace parse_rank_trace(const std::string& bytes, const std::string& path, int rank);

}  // namespace trainsim::workload
