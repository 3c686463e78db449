#include "sim/core/large_stack_call.hpp"

#include <pthread.h>
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
};

void* run(void* arg) {
  auto* call = static_cast<Call*>(arg);
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
  Call call{&fn, nullptr};
  pthread_t thread;
  int e = pthread_attr_setstacksize(&attr, stack_bytes);
  if (e == 0) e = pthread_create(&thread, &attr, run, &call);
  pthread_attr_destroy(&attr);
  if (e != 0)
    throw Error("cannot start the simulation thread with a " + std::to_string(stack_bytes >> 20) +
                " MiB stack: " + std::strerror(e));
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace trainsim
