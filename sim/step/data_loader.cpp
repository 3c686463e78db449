#include "sim/step/data_loader.hpp"

#include <algorithm>

namespace trainsim {

DataLoader::DataLoader(double load_s, int prefetch) : load_s_(load_s), prefetch_(prefetch) {}

double DataLoader::ready_time(int index) const {
  if (load_s_ <= 0 || index < prefetch_) return 0.0;
  // Micro-batch i is prepared in the slot micro-batch i - prefetch frees, after the loader
  // finished micro-batch i - 1: ready = max(consumed[i - prefetch], ready[i - 1]) + load.
  const auto i = static_cast<size_t>(index);
  const double slot_free = consumed_[i - static_cast<size_t>(prefetch_)];
  const double previous = i > 0 ? ready_[i - 1] : 0.0;
  return std::max(slot_free, previous) + load_s_;
}

void DataLoader::consumed(int index, double time) {
  const auto i = static_cast<size_t>(index);
  if (ready_.size() <= i) ready_.resize(i + 1, 0.0);
  if (consumed_.size() <= i) consumed_.resize(i + 1, 0.0);
  ready_[i] = ready_time(index);
  consumed_[i] = time;
}

}  // namespace trainsim
