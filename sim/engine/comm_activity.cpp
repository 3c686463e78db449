#include "sim/engine/comm_activity.hpp"

#include <simgrid/s4u/Semaphore.hpp>

#include "sim/engine/timer_wait.hpp"

namespace trainsim::engine {

CommActivity::CommActivity(std::shared_ptr<const CommTiming> timing) : timing_(std::move(timing)) {}
CommActivity::~CommActivity() = default;
CommActivity::CommActivity(const CommActivity&) = default;
CommActivity& CommActivity::operator=(const CommActivity&) = default;

void CommTiming::finish(double end) {
  end_s = end;
  for (const simgrid::s4u::SemaphorePtr& w : waiters) w->release();
  waiters.clear();
}

void CommActivity::wait() const {
  wait_for(-1);
}

void CommActivity::wait_for(double timeout_s) const {
  if (done()) return;
  const simgrid::s4u::SemaphorePtr wake = simgrid::s4u::Semaphore::create(0);
  timing_->waiters.push_back(wake);
  acquire_for(wake, timeout_s);
}

}  // namespace trainsim::engine
