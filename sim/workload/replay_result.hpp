#pragma once
// What a replay measured: its time, each rank's breakdown, and the communications it ran.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace trainsim::workload {

/// One rank's time, in seconds. compute + exposed_comm + idle = the replay time.
struct RankReplay {
  double compute_s = 0;       ///< GPU compute nodes, one after another (one stream)
  double exposed_comm_s = 0;  ///< communication in flight while compute is idle
  double idle_s = 0;          ///< neither: waiting for peers, or done before the slowest rank
  double finish_s = 0;        ///< when its last node completed
  /// Per kind (all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, p2p): the
  /// summed durations of the communications it took part in, overlapped or not.
  std::map<std::string, double> comm_s;
};

/// One communication as it ran on the fabric.
struct CommRecord {
  std::string kind;  ///< an engine op name (op_name), or "p2p"
  double bytes = 0;  ///< comm_size (nccl-tests' size for collectives)
  int ranks = 0;
  double start_s = 0;
  double time_s = 0;
  double busbw_GBps = 0;  ///< bytes / time x the bus factor (engine/collective.hpp), 0 for 0 time
};

/// One node as one rank played it, for the timeline (`trainsim replay --chrome-trace`).
struct ReplayEvent {
  int rank = 0;
  std::string stream;  ///< compute, comm (collectives) or pp_comm (a send's transfer, on the sender)
  std::string name;    ///< the node's name, else its communication's kind
  double start_s = 0;
  double end_s = 0;
  double bytes = 0;  ///< comm_size of a communication
};

struct ReplayResult {
  double replay_time_s = 0;  ///< when the last rank's last node completed
  std::vector<RankReplay> ranks;
  std::vector<CommRecord> comms;  ///< in start order
  std::vector<ReplayEvent> events;  ///< the compute and communication nodes each rank played, as they ended
  std::size_t events_dropped = 0;   ///< beyond the cap replay_workload was given
};

}  // namespace trainsim::workload
