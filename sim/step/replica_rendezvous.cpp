#include "sim/step/replica_rendezvous.hpp"

#include <mutex>

#include "sim/engine/timer_wait.hpp"

namespace trainsim {

namespace sg4 = simgrid::s4u;

ReplicaRendezvous::ReplicaRendezvous() : mutex_(sg4::Mutex::create()) {}

bool ReplicaRendezvous::arrive(const Key& key, int participants, const std::function<engine::CommActivity()>& start,
                               int who) {
  if (participants <= 1) {  // alone: no entry to share, the common case with symmetry reduced
    Entry& e = entries_[key];
    e.participants = 1;
    e.arrived = 1;
    e.starter = who;
    e.activity = start();
    return true;
  }
  std::unique_lock lock(*mutex_);
  Entry& e = entries_[key];
  e.participants = participants;
  if (++e.arrived < participants) return false;
  e.starter = who;
  e.activity = start();
  for (const sg4::SemaphorePtr& w : e.waiting) w->release();
  e.waiting.clear();
  return true;
}

int ReplicaRendezvous::starter(const Key& key) const {
  const auto it = entries_.find(key);
  return it != entries_.end() && it->second.activity ? it->second.starter : -1;
}

const engine::CommActivity* ReplicaRendezvous::started(const Key& key) const {
  const auto it = entries_.find(key);
  return it != entries_.end() && it->second.activity ? &*it->second.activity : nullptr;
}

const engine::CommActivity* ReplicaRendezvous::wait_started(const Key& key, double timeout_s) {
  std::unique_lock lock(*mutex_);
  Entry& e = entries_.at(key);  // the caller arrived: the entry exists (std::map: it stays put)
  if (!e.activity) {
    // Woken by the start or the timeout, on a semaphore (engine/timer_wait.hpp).
    const sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
    e.waiting.push_back(wake);
    lock.unlock();
    engine::acquire_for(wake, timeout_s);
  }
  return e.activity ? &*e.activity : nullptr;
}

void ReplicaRendezvous::leave(const Key& key) {
  const auto it = entries_.find(key);
  if (it != entries_.end() && ++it->second.left >= it->second.participants) entries_.erase(it);
}

}  // namespace trainsim
