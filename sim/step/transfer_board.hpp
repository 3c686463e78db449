#pragma once
// Pipeline transfers between stage actors (stage_actor.hpp): the sender posts the transfer it
// started; the receiver waits for the post, then for the transfer.

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <map>
#include <tuple>

#include "sim/engine/comm_activity.hpp"
#include "sim/schedule/pipeline_task.hpp"

namespace trainsim {

/// A pass's output, identified across the whole simulation.
struct TaskKey {
  int replica = 0;
  int step = 0;
  int microbatch = 0;
  int global_chunk = 0;
  TaskPass pass = TaskPass::forward;
  auto tie() const { return std::tie(replica, step, microbatch, global_chunk, pass); }
  bool operator<(const TaskKey& o) const { return tie() < o.tie(); }
};

class TransferBoard {
 public:
  struct Entry {
    double posted_s = 0;  ///< the engine's clock when the sender posted it
    engine::CommActivity transfer;
  };

  TransferBoard();

  /// Posts the transfer of `key`'s output, started by its sender, and wakes the receivers.
  void post(const TaskKey& key, engine::CommActivity transfer);
  /// Whether `key` is posted and its transfer has completed.
  bool ready(const TaskKey& key) const;
  /// Waits for `key` to be posted and takes it off the board (each transfer has one receiver).
  Entry take(const TaskKey& key);

 private:
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr posted_;
  std::map<TaskKey, Entry> entries_;
};

}  // namespace trainsim
