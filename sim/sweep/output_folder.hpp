#pragma once
// The output folder of a sweep, batch or plan (--out DIR), checked before anything is
// simulated or written into it.

#include <string>

namespace trainsim::sweep {

/// Creates `dir` if it is missing and checks that files can be created in it. Throws
/// InputError(command, option, dir, rule) when it names a file (or lies under one), cannot be
/// created, or is not writable: the CLI's one-line error (exit 2) rather than an internal
/// error halfway through.
void prepare_output_folder(const std::string& dir, const std::string& command, const std::string& option);

}  // namespace trainsim::sweep
