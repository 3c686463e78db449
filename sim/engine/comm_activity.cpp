#include "sim/engine/comm_activity.hpp"

#include <simgrid/s4u/Actor.hpp>

namespace trainsim::engine {

CommActivity::CommActivity(simgrid::s4u::ActorPtr actor, std::shared_ptr<const CommTiming> timing)
    : actor_(std::move(actor)), timing_(std::move(timing)) {}
CommActivity::~CommActivity() = default;
CommActivity::CommActivity(const CommActivity&) = default;
CommActivity& CommActivity::operator=(const CommActivity&) = default;

void CommActivity::wait() const {
  if (!done()) actor_->join();
}

void CommActivity::wait_for(double timeout_s) const {
  if (!done()) actor_->join(timeout_s);
}

}  // namespace trainsim::engine
