#pragma once
// Folders and special files of a test's own: a fresh folder per test case (ctest runs cases
// at once), and character devices made there (never the real /dev entries).

#include <filesystem>
#include <string>

namespace trainsim::testing {

/// An empty folder under the test temp dir named after `prefix`, the running test and the
/// process.
std::filesystem::path fresh_test_dir(const std::string& prefix);

/// A character device like /dev/null (1, 3) or /dev/full (1, 7) at `path`; false where mknod
/// is not allowed (it needs root, as CI runs).
bool make_char_device(const std::filesystem::path& path, unsigned minor);

/// How many names below `dir` (recursively) are temporary output files (is_temporary_name).
int temporaries_in(const std::filesystem::path& dir);

}  // namespace trainsim::testing
