#include "sim/step/transfer_board.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <mutex>
#include <utility>

namespace trainsim {

namespace sg4 = simgrid::s4u;

TransferBoard::Slot& TransferBoard::slot(const TaskKey& key) {
  Slot& s = slots_[key];
  if (!s.posted) s.posted = sg4::Semaphore::create(0);
  return s;
}

void TransferBoard::post(const TaskKey& key, engine::CommActivity transfer) {
  std::unique_lock lock(*mutex_);
  Slot& s = slot(key);
  s.entry.emplace(Entry{sg4::Engine::get_clock(), std::move(transfer)});
  s.posted->release();
}

bool TransferBoard::ready(const TaskKey& key) const {
  const auto it = slots_.find(key);
  return it != slots_.end() && it->second.entry && it->second.entry->transfer.done();
}

TransferBoard::Entry TransferBoard::take(const TaskKey& key) {
  std::unique_lock lock(*mutex_);
  Slot& s = slot(key);
  if (!s.entry) {
    // The poster takes the mutex, posts, releases the semaphore and lets the mutex go, as it
    // notified the condition before; the receiver takes the mutex back once woken.
    lock.unlock();
    s.posted->acquire();
    lock.lock();
  }
  Entry entry = std::move(*s.entry);
  slots_.erase(key);
  return entry;
}

}  // namespace trainsim
