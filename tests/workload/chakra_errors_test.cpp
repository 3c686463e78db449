// One case per rule the reader and the cross-rank checks hold a trace to: each refused with
// an InputError naming the file and the node.

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/workload/chakra_reader.hpp"
#include "sim/workload/workload.hpp"
#include "workload/trace_fixture.hpp"

namespace trainsim::workload {
namespace {

using namespace trainsim::workload::test;

std::string error_of(const std::string& bytes) {
  try {
    parse_rank_trace(bytes, "bad.0.et", 0);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string workload_error(const std::vector<std::vector<pb::Node>>& ranks) {
  Workload w;
  w.prefix = "w";
  for (size_t r = 0; r < ranks.size(); ++r)
    w.ranks.push_back(parse_rank_trace(encode_trace(ranks[r]), "w." + std::to_string(r) + ".et", static_cast<int>(r)));
  try {
    check_workload(w);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ChakraErrors, TruncatedMessage) {
  std::string bytes = encode_trace({make_node(1, pb::COMP_NODE, {}, 3), make_node(2, pb::COMP_NODE, {}, 4)});
  bytes.pop_back();
  EXPECT_EQ(error_of(bytes),
            "bad.0.et: after node 1: truncated message: the next record needs 13 bytes, the file has 12 left");
}

TEST(ChakraErrors, TruncatedLengthPrefix) {
  std::string bytes = encode_trace({make_node(1, pb::COMP_NODE, {}, 3)});
  bytes.push_back(static_cast<char>(0x80));
  EXPECT_EQ(error_of(bytes), "bad.0.et: after node 1: truncated length prefix of the next record");
}

TEST(ChakraErrors, EmptyFile) {
  EXPECT_EQ(error_of(""), "bad.0.et: empty: a Chakra trace starts with a GlobalMetadata record");
}

TEST(ChakraErrors, UnknownNodeType) {
  pb::Node n = make_node(7, pb::COMP_NODE);
  n.set_type(static_cast<pb::NodeType>(42));
  EXPECT_EQ(error_of(encode_trace({n})),
            "bad.0.et: node 7 = '42': unknown node type (the schema's are 1 METADATA_NODE to 7 COMM_COLL_NODE; 8 to 10 "
            "are skipped)");
}

TEST(ChakraErrors, DuplicateId) {
  EXPECT_EQ(error_of(encode_trace({make_node(3, pb::COMP_NODE), make_node(3, pb::COMP_NODE)})),
            "bad.0.et: node 3: a node id given twice");
}

TEST(ChakraErrors, DependencyCycle) {
  // 1 -> 2 -> 3 -> 1 through data_deps, and 4 waits on the cycle without being on it.
  const std::string bytes = encode_trace({make_node(4, pb::COMP_NODE, {3}, 1), make_node(1, pb::COMP_NODE, {3}, 1),
                                          make_node(2, pb::COMP_NODE, {1}, 1), make_node(3, pb::COMP_NODE, {2}, 1)});
  const std::string e = error_of(bytes);
  EXPECT_NE(e.find("a dependency cycle"), std::string::npos) << e;
  EXPECT_EQ(e.find("node 4"), std::string::npos) << e;
}

TEST(ChakraErrors, CtrlDepAgainstDataOrderIsDroppedNotRefused) {
  pb::Node a = make_node(1, pb::COMP_NODE, {}, 1);
  a.add_ctrl_deps(2);  // 2 waits for 1 through data: this ctrl_dep would close a cycle
  const RankTrace t = parse_rank_trace(encode_trace({a, make_node(2, pb::COMP_NODE, {1}, 1)}), "t.0.et", 0);
  EXPECT_EQ(t.tolerated.reversed_ctrl_deps, 1u);
  EXPECT_TRUE(t.nodes[0].deps.empty());
}

TEST(ChakraErrors, SendWithoutPeer) {
  pb::Node n = make_node(9, pb::COMM_SEND_NODE);
  add_int64(n, "comm_size", 64);
  EXPECT_EQ(error_of(encode_trace({n})), "bad.0.et: node 9: a send without a peer (no comm_dst attribute)");
}

TEST(ChakraErrors, ReceiveWithoutPeer) {
  EXPECT_EQ(error_of(encode_trace({make_node(9, pb::COMM_RECV_NODE)})),
            "bad.0.et: node 9: a receive without a peer (no comm_src attribute)");
}

TEST(ChakraErrors, SendWithoutSize) {
  pb::Node n = make_node(9, pb::COMM_SEND_NODE);
  add_int32(n, "comm_dst", 1);
  EXPECT_EQ(error_of(encode_trace({n})), "bad.0.et: node 9: a send without comm_size");
}

TEST(ChakraErrors, GpuCollectiveWithoutType) {
  pb::Node n = make_node(2, pb::COMM_COLL_NODE);
  add_bool(n, "is_cpu_op", false);
  EXPECT_EQ(error_of(encode_trace({n})),
            "bad.0.et: node 2: a GPU collective (COMM_COLL_NODE, is_cpu_op false) without comm_type");
}

TEST(ChakraErrors, UnknownCollectiveType) {
  EXPECT_EQ(
      error_of(encode_trace({make_collective(2, 12, 8)})),
      "bad.0.et: node 2 = 'comm_type = 12': unknown collective type (the schema's are 0 ALL_REDUCE to 9 BARRIER)");
}

TEST(ChakraErrors, NegativeWork) {
  pb::Node n = make_node(2, pb::COMP_NODE, {}, 10);
  add_int64(n, "num_ops", -5);
  EXPECT_EQ(error_of(encode_trace({n})), "bad.0.et: node 2 = 'num_ops = -5': must be >= 0");
}

TEST(ChakraErrors, NonIntegerAttribute) {
  pb::Node n = make_node(2, pb::COMP_NODE);
  auto* a = n.add_attr();
  a->set_name("is_cpu_op");
  a->set_string_val("no");
  EXPECT_EQ(error_of(encode_trace({n})), "bad.0.et: node 2 = 'is_cpu_op': attribute must hold an integer or a bool");
}

TEST(ChakraErrors, SendWithoutItsReceive) {
  EXPECT_EQ(
      workload_error({{make_send(1, 1, 64)}, {make_node(1, pb::COMP_NODE, {}, 1)}}),
      "w.0.et: node 1: a send without its receive in w.1.et (matched in order per source, destination and tag 0)");
}

TEST(ChakraErrors, ReceiveWithoutItsSend) {
  EXPECT_EQ(
      workload_error({{make_node(1, pb::COMP_NODE, {}, 1)}, {make_recv(4, 0, 64)}}),
      "w.1.et: node 4: a receive without its send in w.0.et (matched in order per source, destination and tag 0)");
}

TEST(ChakraErrors, SendAndReceiveOfDifferentSizes) {
  EXPECT_EQ(workload_error({{make_node(1, pb::COMP_NODE, {}, 1), make_send(2, 1, 1024, {1})}, {make_recv(7, 0, 4096)}}),
            "w.0.et: node 2 = 'comm_size = 1024': the send's size differs from its receive's, w.1.et node 7 "
            "comm_size = 4096 (matched in order per source, destination and tag 0)");
  // A receive without comm_size (some producers leave it out) takes the send's.
  pb::Node unsized = make_node(7, pb::COMM_RECV_NODE);
  add_int32(unsized, "comm_src", 0);
  EXPECT_EQ(workload_error({{make_send(2, 1, 1024)}, {unsized}}), "(accepted)");
}

TEST(ChakraErrors, NodeNameNotUtf8) {
  pb::Node n = make_node(3, pb::COMP_NODE, {}, 1);
  n.set_name("ok\xc3");  // a two-byte sequence cut short
  EXPECT_EQ(error_of(encode_trace({n})), "bad.0.et: node 3: the name is not UTF-8 text (byte 3 of 3)");
}

TEST(ChakraErrors, PeerOutsideTheWorkload) {
  EXPECT_EQ(workload_error({{make_send(1, 5, 64)}, {}}),
            "w.0.et: node 1 = 'comm_dst = 5': the peer must be another rank of the workload (0 to 1)");
}

TEST(ChakraErrors, MembersRunDifferentCollectives) {
  const std::string e = workload_error({{make_collective(1, 0, 64)}, {make_collective(1, 2, 64)}});
  EXPECT_EQ(e,
            "w.1.et: node 1: collective 1 of process group '' is not the one w.0.et runs there (members run the same "
            "collectives in the same file order)");
}

TEST(ChakraErrors, MembersRunDifferentCounts) {
  EXPECT_EQ(workload_error({{make_collective(1, 0, 64), make_collective(2, 0, 64)}, {make_collective(1, 0, 64)}}),
            "w.1.et: runs 1 collectives of process group '', w.0.et runs 2");
}

}  // namespace
}  // namespace trainsim::workload
