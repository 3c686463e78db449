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

/// The largest trace file read, decompressed: 4 GiB (the real ResNet-50 trace is 2.9 MB for
/// 3,664 nodes; 4 GiB holds some 5 M such nodes).
inline constexpr std::size_t k_max_trace_bytes = std::size_t{4} << 30;
/// The most nodes in one file: 16 M.
inline constexpr std::size_t k_max_trace_nodes = std::size_t{1} << 24;

/// Reads one rank's file. Throws InputError (file, node id, rule) for a file that cannot be
/// read, a truncated or unparsable record, a missing GlobalMetadata, an unknown node type, a
/// duplicate node id, a GPU collective without comm_type, a send without comm_dst or comm_size,
/// a receive without comm_src, or a cycle of data_deps (ctrl_deps against their order are
/// dropped and counted).
RankTrace read_rank_trace(const std::string& path, int rank);

/// Parses one rank's trace from its bytes (gzip or not); `path` names it in errors.
RankTrace parse_rank_trace(const std::string& bytes, const std::string& path, int rank);

}  // namespace trainsim::workload
