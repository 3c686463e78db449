#include "support/shared_data.hpp"

#include <filesystem>

namespace trainsim::testing {

std::string shared_data_path(const std::string& relative) {
  return std::string(TRAINSIM_SHARED_DATA) + "/" + relative;
}

std::string why_missing(const std::string& path) {
  namespace fs = std::filesystem;
  if (fs::exists(path)) return "";
  return "needs " + fs::path(path).lexically_normal().string() +
         ": third-party data kept beside the checkout, not in it (../shared/data unless CMake's "
         "TRAINSIM_SHARED_DATA names another folder); CI has it";
}

}  // namespace trainsim::testing
