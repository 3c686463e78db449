#pragma once
// Where trainsim finds the data it reads at run time: the kernel calibration tables of
// `cluster.calibration = auto` (DATA/calibration/<gpu type>.csv) and the GPU, cluster and
// model presets (DATA/presets/{gpus,clusters,models}/<name>.ini, sim/scenario/preset_library.hpp).
// No path of the source tree is compiled in, so a binary gives the same numbers wherever it
// is copied with its data folder (README.md, "Install"). The search, first match wins:
//   1. $TRAINSIM_DATA when it is set (and then nothing else);
//   2. <the executable's folder>/../share/trainsim: an installed tree (cmake --install build
//      --prefix P writes P/bin/trainsim and P/share/trainsim);
//   3. <the executable's folder>/share/trainsim: the build tree (build/trainsim, where CMake
//      links build/share/trainsim/calibration to the source tree's kernels/calibration and
//      build/share/trainsim/presets/* to topologies/presets and models/presets);
//   4. F/share/trainsim for the nearest folder F above the executable that holds a
//      CMakeCache.txt: a test or benchmark binary deeper in a build tree (build/tests/step/).
// A folder matches when it holds calibration/.

#include <optional>
#include <string>
#include <vector>

namespace trainsim {

struct DataFolder {
  std::string path;                 ///< the folder found; empty when none matched
  std::vector<std::string> looked;  ///< each place looked at, in order, as an error names it
};

/// The search above for this process (TRAINSIM_DATA, /proc/self/exe).
DataFolder find_data_folder();

/// The same search from its inputs: `env` is TRAINSIM_DATA's value (nullopt when unset),
/// `executable` the binary's absolute path.
DataFolder find_data_folder(const std::optional<std::string>& env, const std::string& executable);

/// Each place looked at, joined by ", " (for the one-line errors that name them).
std::string looked_places(const DataFolder& data);

/// The GPU types whose table the build ships (kernels/calibration/<gpu>.csv when CMake ran):
/// `auto` must find these, and refuses to fall back to the roofline when it cannot.
std::vector<std::string> shipped_calibration_tables();

}  // namespace trainsim
