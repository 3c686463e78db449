#include "sim/engine/timer_wait.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <simgrid/simix.hpp>

#include <memory>

namespace trainsim::engine {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::timer::Timer;

void timer_sleep(double seconds) {
  if (!(seconds > 0)) return;
  acquire_for(sg4::Semaphore::create(0), seconds);
}

bool acquire_for(const sg4::SemaphorePtr& wake, double timeout_s) {
  if (timeout_s < 0) {
    wake->acquire();
    return true;
  }
  const auto fired = std::make_shared<bool>(false);
  const double date = sg4::Engine::get_clock() + timeout_s;
  // The timer heap is the engine's: set and cancel timers from the maestro, as simcalls.
  Timer* timer = simgrid::kernel::actor::simcall_answered([&] {
    return Timer::set(date, [wake, fired] {
      *fired = true;
      wake->release();
    });
  });
  wake->acquire();
  if (*fired) return false;
  simgrid::kernel::actor::simcall_answered([timer] { timer->remove(); });
  return true;
}

}  // namespace trainsim::engine
