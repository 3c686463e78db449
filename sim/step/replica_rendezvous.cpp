#include "sim/step/replica_rendezvous.hpp"

#include <cstdint>
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

size_t ReplicaRendezvous::KeyHash::operator()(const Key& k) const {
  // The four fields mixed by 64-bit multiplicative steps (the golden ratio's constant, odd),
  // each field multiplied in before the next is mixed in (kind 0, group 1 and kind 1, group 0
  // hash apart: ReplicaRendezvousKey.HashesSpreadTheKeysAStepAsks).
  uint64_t h = static_cast<uint64_t>(static_cast<uint32_t>(k.kind)) * 0x9E3779B97F4A7C15ull;
  for (const int v : {k.group, k.step, k.index}) h = (h ^ static_cast<uint32_t>(v)) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h ^ (h >> 29));
}

const engine::CommActivity* ReplicaRendezvous::started(const Key& key) const {
  const auto it = entries_.find(key);
  return it != entries_.end() && it->second.activity ? &*it->second.activity : nullptr;
}

const engine::CommActivity* ReplicaRendezvous::wait_started(const Key& key, double timeout_s) {
  std::unique_lock lock(*mutex_);
  Entry& e = entries_.at(key);  // the caller arrived: the entry exists (a node of the table: it stays put)
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
