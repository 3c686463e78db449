#pragma once
// Pipeline transfers between stage actors (stage_actor.hpp): the sender posts the transfer it
// started; the receiver waits for the post, then for the transfer.

#include <simgrid/s4u/Mutex.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <tuple>
#include <unordered_map>

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
  bool operator==(const TaskKey& o) const { return tie() == o.tie(); }
};

/// A hash of a TaskKey's fields, for the board's table (never iterated: no order reaches a
/// result).
struct TaskKeyHash {
  std::size_t operator()(const TaskKey& k) const {
    std::size_t h = std::hash<int>{}(k.replica);
    for (const int v : {k.step, k.microbatch, k.global_chunk, static_cast<int>(k.pass)})
      h = h * 1000003u ^ std::hash<int>{}(v);
    return h;
  }
};

class TransferBoard {
 public:
  struct Entry {
    double posted_s = 0;  ///< the engine's clock when the sender posted it
    engine::CommActivity transfer;
  };

  /// Posts the transfer of `key`'s output, started by its sender, and wakes the receivers.
  void post(const TaskKey& key, engine::CommActivity transfer);
  /// Whether `key` is posted and its transfer has completed.
  bool ready(const TaskKey& key) const;
  /// Waits for `key` to be posted and takes it off the board (each transfer has one receiver).
  Entry take(const TaskKey& key);

 private:
  // A pass's output, posted or not yet, and its receiver's wake-up: one per key, so that a
  // post wakes its receiver alone (thousands of actors wait at once under --full or with
  // slow GPUs' classes, and waking all on every post cost each post their number). A
  // semaphore, not a condition variable: SimGrid 3.32 makes every condition wait an action of
  // the host's CPU in the linear system, a sleep without end (src/kernel/activity/
  // ConditionVariableImpl.cpp, ConditionVariableImpl::wait, and Synchro.cpp, SynchroImpl::start),
  // which every event then updates (timer_wait.hpp); acquiring a semaphore without a timeout
  // adds none (SemaphoreImpl.cpp, SemAcquisitionImpl::wait_for).
  struct Slot {
    std::optional<Entry> entry;
    simgrid::s4u::SemaphorePtr posted;
  };
  Slot& slot(const TaskKey& key);

  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  // A hash table: the ordered map's lookups were 1.7 % of the 405B step at 16,384 GPUs (perf,
  // 2026-12-07), its nodes a walk of cache misses; a slot's address stays put as others come
  // and go (a node per element), which take() relies on while it waits.
  std::unordered_map<TaskKey, Slot, TaskKeyHash> slots_;
};

}  // namespace trainsim
