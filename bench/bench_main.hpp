#pragma once
// A benchmark's entry point: its body on the simulation's large stack
// (sim/core/large_stack_call.hpp: the engine needs it), an exception reported as one line
// naming the bench, exit code 2.

#include <cstdio>
#include <exception>

#include "sim/core/large_stack_call.hpp"

namespace trainsim::bench {

/// Runs `body` (returning the exit code) as bench `name` runs it.
template <class Body>
int bench_main(const char* name, Body&& body) {
  int code = 1;
  trainsim::large_stack_call([&] {
    try {
      code = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", name, e.what());
      code = 2;
    }
  });
  return code;
}

}  // namespace trainsim::bench
