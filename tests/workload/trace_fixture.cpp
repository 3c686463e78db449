#include "workload/trace_fixture.hpp"

#include <fstream>
#include <stdexcept>

namespace trainsim::workload::test {

namespace {
void append_record(std::string& out, const std::string& bytes) {
  std::uint64_t v = bytes.size();
  do {
    unsigned char b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    out.push_back(static_cast<char>(b));
  } while (v);
  out += bytes;
}
}  // namespace

std::string encode_trace(const std::vector<pb::Node>& nodes) {
  pb::GlobalMetadata meta;
  meta.set_version("0.0.4");
  std::string out;
  append_record(out, meta.SerializeAsString());
  for (const pb::Node& n : nodes) append_record(out, n.SerializeAsString());
  return out;
}

pb::Node make_node(std::uint64_t id, pb::NodeType type, std::vector<std::uint64_t> data_deps,
                   std::uint64_t duration_us) {
  pb::Node n;
  n.set_id(id);
  n.set_name("node" + std::to_string(id));
  n.set_type(type);
  for (const auto d : data_deps) n.add_data_deps(d);
  n.set_duration_micros(duration_us);
  return n;
}

void add_int64(pb::Node& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}
void add_int32(pb::Node& n, const std::string& name, std::int32_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int32_val(v);
}
void add_uint64(pb::Node& n, const std::string& name, std::uint64_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_uint64_val(v);
}
void add_bool(pb::Node& n, const std::string& name, bool v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_bool_val(v);
}

pb::Node make_collective(std::uint64_t id, int comm_type, std::int64_t bytes, std::vector<std::uint64_t> deps) {
  pb::Node n = make_node(id, pb::COMM_COLL_NODE, std::move(deps));
  add_bool(n, "is_cpu_op", false);
  add_int64(n, "comm_type", comm_type);
  add_int64(n, "comm_size", bytes);
  return n;
}

pb::Node make_send(std::uint64_t id, int dst, std::int64_t bytes, std::vector<std::uint64_t> deps) {
  pb::Node n = make_node(id, pb::COMM_SEND_NODE, std::move(deps));
  add_int64(n, "comm_size", bytes);
  add_int32(n, "comm_dst", dst);
  add_int32(n, "comm_tag", 0);
  return n;
}

pb::Node make_recv(std::uint64_t id, int src, std::int64_t bytes, std::vector<std::uint64_t> deps) {
  pb::Node n = make_node(id, pb::COMM_RECV_NODE, std::move(deps));
  add_int64(n, "comm_size", bytes);
  add_int32(n, "comm_src", src);
  add_int32(n, "comm_tag", 0);
  return n;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace trainsim::workload::test
