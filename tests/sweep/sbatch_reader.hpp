#pragma once
// How sbatch reads the scripts trainsim writes, for tests: its #SBATCH argument reader and
// its --output filename pattern, as Slurm's source defines them (SchedMD/slurm
// src/sbatch/opt.c get_argument, src/common/print_fields.c expand_stdio_fields @ 284c3b95;
// the rules sim/sweep/slurm_script.cpp quotes for), and Slurm's own sbatch where installed.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trainsim::testing {

/// The arguments sbatch takes from the text after "#SBATCH": cut at whitespace; " or ' group
/// up to the same quote; a backslash makes the next character literal; an unquoted # ends.
std::vector<std::string> sbatch_arguments(const std::string& text);

/// A filename pattern expanded as Slurm does: %% is %, %X is fields[X]; with a backslash
/// anywhere, no expansion (backslashes dropped).
std::string expand_sbatch_pattern(const std::string& pattern, const std::map<char, std::string>& fields);

/// The arguments Slurm's own sbatch finds in `script`'s #SBATCH lines (its -vvv log, with a
/// minimal configuration written under `scratch`; no controller is contacted), or nullopt
/// where sbatch is not installed.
std::optional<std::vector<std::string>> arguments_sbatch_reads(const std::string& script, const std::string& scratch);

}  // namespace trainsim::testing
