#pragma once
// SimGrid 3.32 allows one engine per process (sim/engine/simulation.hpp), so every test
// that simulates runs its simulation in a forked child and gets numbers back through a
// pipe. Measured: a fork plus a small platform costs a few milliseconds.

#include <functional>
#include <string>
#include <vector>

namespace trainsim::engine::test {

/// Runs `simulate` in a forked child (sim/core/forked_call.hpp) and returns what it returned.
/// Throws trainsim::Error with the child's message if it threw, or if it crashed.
std::vector<double> run_isolated(const std::function<std::vector<double>()>& simulate);

}  // namespace trainsim::engine::test
