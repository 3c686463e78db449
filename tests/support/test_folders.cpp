#include "support/test_folders.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sim/core/output_file.hpp"

namespace trainsim::testing {

namespace fs = std::filesystem;

fs::path fresh_test_dir(const std::string& prefix) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = info ? info->name() : "no_test";
  const fs::path dir = fs::path(::testing::TempDir()) / (prefix + "_" + test + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool make_char_device(const fs::path& path, unsigned minor) {
  return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
}

int temporaries_in(const fs::path& dir) {
  int n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    n += is_temporary_name(entry.path().filename().string());
  return n;
}

}  // namespace trainsim::testing
