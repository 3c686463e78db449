#pragma once
// Runs a function in a forked child process and brings back the text it returns.
// SimGrid 3.32 allows one engine per process (sim/engine/simulation.hpp): a command that
// simulates several configurations (scaling, sweeps) runs each in its own child.

#include <functional>
#include <string>

namespace trainsim {

/// Runs `fn` in a child process and returns its result. If the child throws InputError,
/// the same InputError is thrown here; any other failure (an exception, a crash) becomes
/// trainsim::Error with the child's message. The child gets SIGTERM if the thread that
/// called this ends first (stop_signals.hpp end_with_parent): a stopped sweep worker's
/// simulations stop with it.
std::string forked_call(const std::function<std::string()>& fn);

}  // namespace trainsim
