#pragma once
// Collectives that several stage actors take part in: the gradient (dp x cp) groups' (every
// simulated replica's stage) and, under --full, the EP, expert-TP and CP groups' (each
// member replica's). Each starts once, when the last participant asks for it: NCCL's
// collectives start when every rank has called them, so a data-parallel reduction cannot
// begin before its slowest member's gradients are ready, nor a layer's all-to-all before its
// slowest member's tokens. With one participant simulated it starts at once; with several
// (--full, or a class's representative each when GPUs differ: replica_classes.hpp) the early
// ones go on computing and wait for it when they need it.

#include <simgrid/s4u/Mutex.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <functional>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/engine/comm_activity.hpp"

namespace trainsim {

class ReplicaRendezvous {
 public:
  /// The `index`-th collective of step `step` on group `group` (a gradient group: its stage;
  /// another: its lowest rank) of kind `kind` (CommGroup's number; -1 for gradient groups).
  /// Every participant asks for the same ones in the same order.
  struct Key {
    int kind = -1;
    int group = 0;
    int step = 0;
    int index = 0;
    auto tie() const { return std::tie(kind, group, step, index); }
    bool operator<(const Key& o) const { return tie() < o.tie(); }
    bool operator==(const Key& o) const { return tie() == o.tie(); }
  };
  /// Key's hash: the stage actors look their collectives up at every compute and collective
  /// (a --full step on 1,024 GPUs asks some 300,000 times), so a hash table, not a tree; nothing iterates it.
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };

  ReplicaRendezvous();

  /// Counts the caller (replica `who`) in at `key`, of `participants`; the last one runs
  /// `start` (which starts the collective now) and wakes the others. Returns whether this
  /// call started it.
  bool arrive(const Key& key, int participants, const std::function<engine::CommActivity()>& start, int who = -1);
  /// The replica whose arrival started `key`'s collective (-1: unknown or not started).
  int starter(const Key& key) const;
  /// The collective of `key` if it started, else null.
  const engine::CommActivity* started(const Key& key) const;
  /// Blocks the calling actor until `key`'s collective starts or `timeout_s` simulated
  /// seconds pass (negative: no limit). Returns it, or null if it has not started.
  const engine::CommActivity* wait_started(const Key& key, double timeout_s = -1);
  /// The calling replica is done with `key`; the last one done forgets it.
  void leave(const Key& key);

 private:
  struct Entry {
    int participants = 0;
    int arrived = 0;
    int left = 0;
    int starter = -1;
    std::optional<engine::CommActivity> activity;
    /// The members waiting for the start (wait_started), released by the last arrival.
    std::vector<simgrid::s4u::SemaphorePtr> waiting;
  };

  simgrid::s4u::MutexPtr mutex_;
  std::unordered_map<Key, Entry, KeyHash> entries_;
};

}  // namespace trainsim
