#pragma once
// The output folder of a sweep, batch or plan (--out DIR), checked before anything is
// simulated or written into it.

#include <string>

namespace trainsim::sweep {

/// Creates `dir` if it is missing and checks that files can be created in it. Throws
/// InputError(command, option, dir, rule) when it names a file (or lies under one), cannot be
/// created, or is not writable: the CLI's one-line error (exit 2) rather than an internal
/// error halfway through.
///
/// An existing folder must be empty (but for trainsim's own temporaries) or trainsim's own:
/// one that holds `marker`, the manifest every such folder gets before anything else is
/// written into it. Any other folder (`--out .`, `--out $HOME`, a team's results) is refused,
/// so that nothing a user put there is written over or cleaned up (issue 54).
void prepare_output_folder(const std::string& dir, const std::string& command, const std::string& option,
                           const std::string& marker);

}  // namespace trainsim::sweep
