#pragma once
// An nccl-tests log (NVIDIA/nccl-tests: all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf, sendrecv_perf), as those programs print it (src/common.cu): a header of `#`
// lines, among them `# Collective test starting: all_reduce_perf` (nccl-tests 2.14 and later;
// older logs are named by their file name) and one `#  Rank  N Group G Pid P on HOST device D
// [BUS] NAME` line per rank, then one row per size:
//
//   size count type redop root | time algbw busbw #wrong (out-of-place) | time algbw busbw #wrong (in-place)
//
// times in microseconds, bandwidths in GB/s (1e9 B/s), busbw = algbw x the collective's bus
// factor (nccl-tests doc/PERFORMANCE.md, public.md D1). Lines that are neither (mpirun's and
// NCCL's own messages) are skipped; a row that starts as one and breaks a rule is an error.

#include <string>
#include <vector>

#include "topologies/fabric_calibration.hpp"

namespace trainsim::profile {

struct NcclTestsRow {
  double bytes = 0;        ///< nccl-tests' size column
  double time_s = 0;       ///< out-of-place time
  double busbw_GBps = 0;   ///< out-of-place busbw as printed
  int line = 0;            ///< 1-based, in the log
};

struct NcclTestsLog {
  std::string file;
  CalibratedCollective collective = CalibratedCollective::all_reduce;
  std::string test;                ///< "all_reduce_perf"
  int ranks = 0;                   ///< `# Rank` lines
  std::vector<std::string> hosts;  ///< distinct, in order of first rank
  std::vector<int> ranks_per_host;  ///< beside `hosts`
  std::string device;              ///< rank 0's GPU name ("NVIDIA H100 80GB HBM3")
  std::vector<NcclTestsRow> rows;
  /// Where its ranks sit (place_in_domains): NVLink domains spanned and GPUs in each.
  int domains = 1;
  int ranks_per_domain = 0;
};

/// Reads `text`, the log at `file`. Throws InputError naming the file, "line N" and the rule:
/// no collective named (header or file name), a test calibrate does not fit (broadcast_perf,
/// reduce_perf ...), two tests in one file, no rank lines, a row whose fields are not numbers,
/// sizes not increasing, a time <= 0, a busbw that is not the collective's bus factor times
/// size / time on the log's ranks (the log is of another collective or group), no rows.
NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file);

/// parse_nccl_tests_log of the file at `path` (read whole, capped at 16 MiB).
NcclTestsLog read_nccl_tests_log(const std::string& path);

/// Places the log's hosts in NVLink domains of `nodes_per_domain` nodes of `gpus_per_node`
/// GPUs (a cluster preset's), in the order of their first rank: the order of the job's host
/// list, by which mpirun and srun number ranks. Sets `domains` and `ranks_per_domain`. Throws
/// InputError naming the file and its '# Rank' lines when a host holds more ranks than a node
/// has GPUs, or when the domains hold unequal numbers of ranks (calibrate fits even groups).
void place_in_domains(NcclTestsLog& log, int nodes_per_domain, int gpus_per_node);

/// nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md), as `trainsim collective` prints it
/// (engine::bus_bandwidth_factor): 2(n-1)/n for an all-reduce, (n-1)/n for all-gather,
/// reduce-scatter and all-to-all, 1 for a send/receive.
double nccl_tests_bus_factor(CalibratedCollective c, int ranks);

}  // namespace trainsim::profile
