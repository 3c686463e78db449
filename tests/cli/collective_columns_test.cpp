// `trainsim collective`'s table read as nccl-tests' (NVIDIA/nccl-tests doc/PERFORMANCE.md): the
// size column is the whole buffer, the count column the count the call takes (each rank's part
// for all-gather, reduce-scatter and all-to-all: *GetCollByteCount's paramcount = count /
// nranks), algbw the size over the time and busbw algbw times the op's factor.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

struct TableRow {
  double size = 0, count = 0, time_us = 0, algbw = 0, busbw = 0;
};

TableRow only_row(const std::string& op, int gpus) {
  const auto r = testing::run_trainsim(
      {"collective", "--op", op, "--gpus", std::to_string(gpus), "--cluster", "dgx-h100", "-b", "16M", "-e", "16M"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  TableRow row;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cells(line);
    std::string type, algo, proto, chan;
    cells >> row.size >> row.count >> type >> algo >> proto >> chan >> row.time_us >> row.algbw >> row.busbw;
  }
  return row;
}

TEST(CollectiveColumns, CountIsWhatTheCallTakesAsNcclTestsPrintsIt) {
  // The all-gather and reduce-scatter counts were size / 4, nccl-tests prints size / 4 / ranks
  // (tests/data/nccl-tests/h200-all_gather.log: 17179869184 bytes, 536870912 on 8 ranks).
  const int gpus = 8;
  for (const std::string op : {"allgather", "reducescatter", "alltoall"}) {
    const TableRow row = only_row(op, gpus);
    EXPECT_EQ(row.size, 16.0 * 1024 * 1024) << op;
    EXPECT_EQ(row.count, row.size / 4 / gpus) << op;
    EXPECT_NEAR(row.busbw, row.algbw * (gpus - 1) / gpus, 0.01) << op;
  }
  for (const std::string op : {"allreduce", "broadcast", "sendrecv"}) {
    const TableRow row = only_row(op, gpus);
    EXPECT_EQ(row.count, row.size / 4) << op;
    EXPECT_NEAR(row.algbw, row.size / (row.time_us * 1e-6) / 1e9, 0.01 + 1e-3 * row.algbw) << op;
  }
}

}  // namespace
}  // namespace trainsim
