#include "sim/core/large_stack_call.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/simulation_heap.hpp"

namespace trainsim {

namespace {

struct Call {
  const std::function<void()>* fn = nullptr;
  std::exception_ptr error;
  sigset_t mask{};  ///< the caller's signal mask, the new thread's
};

void* run(void* arg) {
  auto* call = static_cast<Call*>(arg);
  pthread_sigmask(SIG_SETMASK, &call->mask, nullptr);
  try {
    (*call->fn)();
  } catch (...) {
    call->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

void large_stack_call(const std::function<void()>& fn, std::size_t stack_bytes) {
  prepare_simulation_heap();
  if (rlimit as{}; getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    stack_bytes = std::min<std::size_t>(stack_bytes, as.rlim_cur / 4);
  pthread_attr_t attr;
  if (int e = pthread_attr_init(&attr); e != 0) throw Error(std::string("pthread_attr_init: ") + std::strerror(e));
  Call call{&fn, nullptr, {}};
  // This thread only waits: it takes no signal, so a signal sent to the process reaches the
  // thread that runs `fn`, with the caller's mask (the new thread starts with all blocked,
  // then restores it). There `fn` may wait for one (stop_signals.hpp).
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &call.mask);
  pthread_t thread;
  int e = pthread_attr_setstacksize(&attr, stack_bytes);
  if (e == 0) e = pthread_create(&thread, &attr, run, &call);
  pthread_attr_destroy(&attr);
  if (e == 0) pthread_join(thread, nullptr);
  pthread_sigmask(SIG_SETMASK, &call.mask, nullptr);
  if (e != 0)
    throw Error("cannot start the simulation thread with a " + std::to_string(stack_bytes >> 20) +
                " MiB stack: " + std::strerror(e));
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace trainsim
