#pragma once
// Chakra traces the tests write themselves, through the classes protoc generates from
// sim/workload/chakra_et.proto: good ones, and each kind of bad one.

#include <cstdint>
#include <string>
#include <vector>

#include "chakra_et.pb.h"

namespace trainsim::workload::test {

namespace pb = trainsim::chakra;

/// A GlobalMetadata record (version "0.0.4") then `nodes`, each preceded by its varint length.
std::string encode_trace(const std::vector<pb::Node>& nodes);

/// A node of `type` with `id`, `data_deps` and a duration in microseconds.
pb::Node make_node(std::uint64_t id, pb::NodeType type, std::vector<std::uint64_t> data_deps = {},
                   std::uint64_t duration_us = 0);

/// Attribute setters, in the encodings the producers use.
void add_int64(pb::Node& n, const std::string& name, std::int64_t v);
void add_int32(pb::Node& n, const std::string& name, std::int32_t v);
void add_uint64(pb::Node& n, const std::string& name, std::uint64_t v);
void add_bool(pb::Node& n, const std::string& name, bool v);

/// A GPU collective of `type` and `bytes` (comm_type and comm_size as int64, is_cpu_op bool).
pb::Node make_collective(std::uint64_t id, int comm_type, std::int64_t bytes, std::vector<std::uint64_t> deps = {});
/// A send to `dst` / a receive from `src` of `bytes` (int32 peers and tag, as the custom ring).
pb::Node make_send(std::uint64_t id, int dst, std::int64_t bytes, std::vector<std::uint64_t> deps = {});
pb::Node make_recv(std::uint64_t id, int src, std::int64_t bytes, std::vector<std::uint64_t> deps = {});

/// Writes `bytes` to `path`.
void write_bytes(const std::string& path, const std::string& bytes);

}  // namespace trainsim::workload::test
