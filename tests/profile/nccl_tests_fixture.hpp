#pragma once
// nccl-tests logs the tests write themselves, laid out as NVIDIA/nccl-tests prints them
// (src/common.cu: the version and test lines, one `#  Rank` line per rank, the column header,
// one row per size with out-of-place and in-place figures), from times the test chooses: from
// trainsim's own model with known parameters (topologies/fabric_calibration.hpp), or from what
// `trainsim collective` simulated.

#include <string>
#include <vector>

#include "topologies/fabric_calibration.hpp"

namespace trainsim::testing {

struct NcclTestsLogSpec {
  std::string test = "all_reduce_perf";
  bool test_line = true;  ///< false: no `# Collective test starting` line (nccl-tests before 2.14)
  int ranks = 8;
  int ranks_per_host = 8;
  std::string device = "NVIDIA H100 80GB HBM3";
  std::vector<double> bytes;
  std::vector<double> time_us;  ///< one per size
};

/// The log's text; busbw is size / time x the collective's bus factor, to two decimals.
std::string nccl_tests_log_text(const NcclTestsLogSpec& spec);

/// Sizes from `min_bytes` to `max_bytes`, doubling (nccl-tests -f 2).
std::vector<double> doubling_sizes(double min_bytes, double max_bytes);

/// Times of `fitted` on spec's ranks at spec's sizes, microseconds (trainsim's model).
std::vector<double> model_times_us(const FittedCollective& fitted, CalibratedCollective c, int ranks,
                                   const std::vector<double>& bytes);

}  // namespace trainsim::testing
