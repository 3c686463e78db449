#include "sim/core/library_versions.hpp"

#include <hdf5.h>
// xbt/base.h defines the macros simgrid/version.h uses: it must come first.
#include <xbt/base.h>

#include <simgrid/version.h>

namespace trainsim {

std::string simgrid_runtime_version() {
  int major = 0;
  int minor = 0;
  int patch = 0;
  sg_version_get(&major, &minor, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string hdf5_runtime_version() {
  unsigned major = 0;
  unsigned minor = 0;
  unsigned release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

}  // namespace trainsim
