#include "sim/engine/simulation.hpp"

#include <signal.h>
#include <xbt/log.h>
#include <simgrid/s4u/Engine.hpp>
#include <string>
#include <vector>
#include <xbt/config.hpp>

#include "sim/core/address_sanitizer.hpp"
#include "sim/core/error.hpp"
#include "sim/core/simulation_heap.hpp"


// SimGrid's engine category: it reports a deadlock itself, at CRITICAL, with "This usually
// happens when the user code is not perfectly clean" (simgrid src/kernel/EngineImpl.cpp @ v3.32
// e8d2ff8d, EngineImpl::run). A replay that deadlocks is refused by its caller with one line of
// its own naming the ranks and what each waits for (workload/replay_simulation.cpp).
XBT_LOG_EXTERNAL_CATEGORY(ker_engine);

namespace trainsim::engine {

Simulation::Simulation() {
  const char* once = "SimGrid allows one simulation per process; this process already created one";
  if (simgrid::s4u::Engine::has_instance()) throw Error(once);
  end_huge_page_heap();  // each actor's stack would hold a huge page (sim/core/simulation_heap.hpp)
  std::vector<std::string> args{"trainsim", "--log=root.thresh:warning", "--log=xbt_cfg.thresh:warning"};
  // Under AddressSanitizer (the `asan` preset): actors as threads. SimGrid's default contexts
  // switch stacks behind ASan's back, which then warns ("ignoring requested
  // __asan_handle_no_return", false positives may follow) whenever an actor is killed.
  if (k_address_sanitizer) args.emplace_back("--cfg=contexts/factory:thread");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  // SimGrid sets its own SIGINT handler, which calls exit(1) (src/kernel/EngineImpl.cpp @ v3.32,
  // install_signal_handlers and inthandler): over an ignored SIGINT too (nohup, a background
  // job), with no message (its log is below our threshold), without the clean-up a stop signal
  // gets (sim/core/stop_signals.hpp), and exit() from a handler can deadlock: Ctrl-C during a
  // malloc left `trainsim run` waiting on the allocator's lock forever. SIGINT keeps the action
  // it had: a shell's default (the process ends by the signal, as SIGTERM's does) or ignored.
  struct sigaction sigint_before {};
  ::sigaction(SIGINT, nullptr, &sigint_before);
  engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
  ::sigaction(SIGINT, &sigint_before, nullptr);
  // A destroyed engine leaves its configuration behind; changing the model would abort.
  if (!simgrid::config::is_default("host/model")) {
    engine_.reset();
    throw Error(once);
  }
  // Above CRITICAL: that category says nothing. --log takes no level above critical
  // (src/xbt/log.cpp @ v3.32, _xbt_log_parse_setting), hence the threshold set directly, once
  // the category is initialised (XBT_LOG_ISENABLED does that), else it would inherit root's.
  (void)XBT_LOG_ISENABLED(ker_engine, xbt_log_priority_critical);
  xbt_log_threshold_set(&_XBT_LOGV(ker_engine), xbt_log_priority_infinite);
  engine_->set_config("host/model:ptask_L07");
  engine_->set_config("network/crosstraffic:0");
  engine_->set_config("network/TCP-gamma:1e12");
}

Simulation::~Simulation() = default;

void Simulation::run() {
  engine_->run();
}

double Simulation::clock_s() const {
  return simgrid::s4u::Engine::get_clock();
}

}  // namespace trainsim::engine
