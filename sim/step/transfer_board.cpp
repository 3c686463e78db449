#include "sim/step/transfer_board.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <mutex>
#include <utility>

namespace trainsim {

namespace sg4 = simgrid::s4u;

TransferBoard::TransferBoard() : mutex_(sg4::Mutex::create()), posted_(sg4::ConditionVariable::create()) {}

void TransferBoard::post(const TaskKey& key, engine::CommActivity transfer) {
  std::unique_lock lock(*mutex_);
  entries_.emplace(key, Entry{sg4::Engine::get_clock(), std::move(transfer)});
  posted_->notify_all();
}

bool TransferBoard::ready(const TaskKey& key) const {
  const auto it = entries_.find(key);
  return it != entries_.end() && it->second.transfer.done();
}

TransferBoard::Entry TransferBoard::take(const TaskKey& key) {
  std::unique_lock lock(*mutex_);
  auto it = entries_.find(key);
  while (it == entries_.end()) {
    posted_->wait(lock);
    it = entries_.find(key);
  }
  Entry entry = std::move(it->second);
  entries_.erase(it);
  return entry;
}

}  // namespace trainsim
