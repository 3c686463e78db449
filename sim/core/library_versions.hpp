#pragma once
// Versions of the libraries trainsim is linked against, as loaded at run time
// (for `trainsim --version` and, later, trace metadata).

#include <string>

namespace trainsim {

std::string simgrid_runtime_version();  ///< "3.32.0"
std::string hdf5_runtime_version();     ///< "1.10.8"

}  // namespace trainsim
