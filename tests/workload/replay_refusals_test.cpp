// trainsim replay refusing a workload through the real executable: whatever the reason, stderr
// is one line of trainsim's (no SimGrid or protobuf text beside it) and the exit code is 2.
// Traces written here (trace_fixture.hpp); the gzip bomb under a 4 GB address-space limit.

#include <gtest/gtest.h>

#include <algorithm>

#include "support/address_sanitizer.hpp"
#include "support/gzip_bomb.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"
#include "workload/trace_fixture.hpp"

namespace trainsim::workload {
namespace {

using namespace trainsim::workload::test;

// Refused: exit 2, nothing on stdout, stderr one line of trainsim's holding each of `words`.
void expect_one_line(const testing::RunResult& r, const std::vector<std::string>& words) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("trainsim", 0), 0u) << r.err;
  for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << w << " in " << r.err;
}

std::string prefix_in(const std::string& folder) {
  return (testing::fresh_test_dir(folder) / "w").string();
}

pb::Node in_group(pb::Node n, const std::string& group) {
  pb::Attribute* a = n.add_attr();
  a->set_name("pg_name");
  a->set_string_val(group);
  return n;
}

TEST(ChakraRefusals, DeadlockOnReceivesNamesEachRankAndItsReceive) {
  const std::string prefix = prefix_in("chakra-deadlock");
  // Each rank receives before it sends, from the other: neither send is ever reached.
  write_bytes(prefix + ".0.et", encode_trace({make_recv(1, 1, 64), make_send(2, 1, 64, {1})}));
  write_bytes(prefix + ".1.et", encode_trace({make_recv(1, 0, 64), make_send(2, 0, 64, {1})}));
  expect_one_line(testing::run_trainsim({"replay", prefix}),
                  {prefix + ": the replay deadlocks: rank 0 waits at node 1 for a receive from rank 1 with tag 0, "
                            "which rank 1 has not sent; rank 1 waits at node 1 for a receive from rank 0 with tag 0"});
}

TEST(ChakraRefusals, DeadlockOnCollectivesNamesTheGroupAndWhoIsMissing) {
  const std::string prefix = prefix_in("chakra-deadlock-groups");
  // Both ranks are in groups a and b, and run their collectives in opposite orders.
  const auto a = [](std::uint64_t id, std::vector<std::uint64_t> deps = {}) {
    return in_group(make_collective(id, 0, 1 << 20, std::move(deps)), "a");
  };
  const auto b = [](std::uint64_t id, std::vector<std::uint64_t> deps = {}) {
    return in_group(make_collective(id, 0, 1 << 20, std::move(deps)), "b");
  };
  write_bytes(prefix + ".0.et", encode_trace({a(1), b(2, {1})}));
  write_bytes(prefix + ".1.et", encode_trace({b(1), a(2, {1})}));
  expect_one_line(testing::run_trainsim({"replay", prefix}),
                  {"rank 0 waits at node 1 for collective 1 of process group 'a', not reached by rank 1",
                   "rank 1 waits at node 1 for collective 1 of process group 'b', not reached by rank 0"});
}

TEST(ChakraRefusals, NodeNameNotUtf8) {
  const std::string prefix = prefix_in("chakra-utf8");
  pb::Node n = make_node(5, pb::COMP_NODE, {}, 3);
  n.set_name("gemm\xff\xfe");
  write_bytes(prefix + ".0.et", encode_trace({n}));
  expect_one_line(testing::run_trainsim({"replay", prefix}),
                  {prefix + ".0.et: node 5: the name is not UTF-8 text (byte 5 of 6)"});
}

TEST(ChakraRefusals, SendAndReceiveSizesDiffer) {
  const std::string prefix = prefix_in("chakra-sizes");
  write_bytes(prefix + ".0.et", encode_trace({make_send(3, 1, 1024)}));
  write_bytes(prefix + ".1.et", encode_trace({make_recv(8, 0, std::int64_t{1} << 40)}));
  expect_one_line(testing::run_trainsim({"replay", prefix}),
                  {prefix + ".0.et: node 3 = 'comm_size = 1024': the send's size differs from its receive's, " +
                   prefix + ".1.et node 8 comm_size = 1099511627776"});
}

TEST(ChakraRefusals, GzipBombRefusedAtTheCapUnderAMemoryLimit) {
#ifdef TRAINSIM_UNDER_ASAN
  GTEST_SKIP() << "ulimit -v cannot hold an AddressSanitizer build";
#endif
  const std::string prefix = prefix_in("chakra-bomb");
  // About 6 MB inflating to 6 GiB, the case (more than the limit below allows).
  testing::write_gzip_bomb(prefix + ".0.et", std::size_t{6} << 30);
  const auto r = testing::run_trainsim_limited({"replay", prefix}, 4'000'000, 20);
  ASSERT_NE(r.exit_code, 124) << "timed out";
  expect_one_line(r, {prefix + ".0.et: the trace file inflates to more than 512 MiB, the most trainsim reads"});
}

}  // namespace
}  // namespace trainsim::workload
