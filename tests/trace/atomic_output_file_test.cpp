// Output files: bad paths are input errors; an uncommitted file leaves nothing behind.

#include "sim/trace/atomic_output_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/trace/trace_level.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

std::string temp_dir() {
  const fs::path dir = fs::path(::testing::TempDir()) / "trainsim_atomic_output_file_test";
  fs::create_directories(dir);
  return dir.string();
}

TEST(CheckOutputPath, MissingDirectoryIsAnInputError) {
  try {
    check_output_path("/nonexistent-dir/trace.h5", "--trace");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "--trace");
    EXPECT_EQ(e.value(), "/nonexistent-dir/trace.h5");
  }
}

TEST(CheckOutputPath, DirectoryIsAnInputError) {
  EXPECT_THROW(check_output_path(temp_dir(), "--trace"), InputError);
}

TEST(CheckOutputPath, EmptyPathIsAnInputError) {
  EXPECT_THROW(check_output_path("", "--trace"), InputError);
}

TEST(CheckOutputPath, FileInAnExistingDirectoryIsFine) {
  EXPECT_NO_THROW(check_output_path(temp_dir() + "/trace.h5", "--trace"));
}

TEST(AtomicOutputFile, UncommittedFileIsRemoved) {
  const std::string path = temp_dir() + "/uncommitted.h5";
  std::string temp;
  {
    AtomicOutputFile file(path);
    temp = file.temp_path();
    std::ofstream(temp) << "partial";
    EXPECT_TRUE(fs::exists(temp));
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(path));
}

TEST(AtomicOutputFile, CommitRenamesIntoPlace) {
  const std::string path = temp_dir() + "/committed.txt";
  AtomicOutputFile file(path);
  EXPECT_NE(file.temp_path(), path);
  std::ofstream(file.temp_path()) << "done";
  file.commit();
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(file.temp_path()));
}

TEST(TraceLevel, UnknownLevelIsAnInputError) {
  EXPECT_EQ(parse_trace_level("steps", "--trace-level"), TraceLevel::steps);
  EXPECT_THROW(parse_trace_level("all", "--trace-level"), InputError);
}

}  // namespace
}  // namespace trainsim
