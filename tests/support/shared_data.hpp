#pragma once
// Third-party data the tests read but the project never carries (real profiler traces,
// public kernel measurements): the folder CMake's TRAINSIM_SHARED_DATA names, by default
// ../shared/data beside the checkout (its README.md lists each file's source and license).
// CI has it; without it, a test that needs one of its files is skipped, saying which.

#include <gtest/gtest.h>

#include <string>

namespace trainsim::testing {

/// <TRAINSIM_SHARED_DATA>/<relative>, e.g. shared_data_path("profiles/x.json.gz").
std::string shared_data_path(const std::string& relative);

/// "" when `path` exists; otherwise the reason a test that needs it is skipped.
std::string why_missing(const std::string& path);

}  // namespace trainsim::testing

/// Skips the running test, naming the file, when the file at `path` is absent (GTEST_SKIP
/// returns from the test body, so this goes first in it).
#define TRAINSIM_SKIP_WITHOUT(path)                                                                           \
  do {                                                                                                        \
    if (const std::string why_ = ::trainsim::testing::why_missing(path); !why_.empty()) GTEST_SKIP() << why_; \
  } while (false)
