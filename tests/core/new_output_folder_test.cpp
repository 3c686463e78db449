// Output folders that replace nothing (sim/core/new_output_folder.hpp): what the user has is
// never overwritten nor removed, also when a file appears between the check and the commit.

#include "sim/core/new_output_folder.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/error.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(NewOutputFolder, CreatesMissingFoldersAndNamesTheFilesAtCommit) {
  const fs::path root = testing::fresh_test_dir("new_output_folder");
  const fs::path dir = root / "a" / "b";
  NewOutputFolder::check(dir.string(), "test", "--out");
  {
    NewOutputFolder folder(dir.string());
    folder.add("one.json", "1");
    folder.add("two.json", "22");
    EXPECT_FALSE(fs::exists(dir / "one.json")) << "named only at commit";
    folder.commit();
  }
  EXPECT_EQ(slurp(dir / "one.json"), "1");
  EXPECT_EQ(slurp(dir / "two.json"), "22");
  EXPECT_EQ(testing::temporaries_in(root), 0);
}

TEST(NewOutputFolder, UncommittedRemovesOnlyWhatItMade) {
  const fs::path root = testing::fresh_test_dir("new_output_folder");
  {
    NewOutputFolder folder((root / "a" / "b").string());
    folder.add("one.json", "1");
  }
  EXPECT_FALSE(fs::exists(root / "a"));
  EXPECT_TRUE(fs::is_directory(root));
  EXPECT_EQ(testing::temporaries_in(root), 0);
}

TEST(NewOutputFolder, AFileThatAppearsMeanwhileIsKeptAndTheCommitFails) {
  const fs::path root = testing::fresh_test_dir("new_output_folder");
  const fs::path dir = root / "out";
  NewOutputFolder folder(dir.string());
  folder.add("one.json", "ours 1");
  folder.add("two.json", "ours 2");
  std::ofstream(dir / "two.json") << "theirs";  // after the check, before the commit
  EXPECT_THROW(folder.commit(), OutputError);
  EXPECT_EQ(slurp(dir / "two.json"), "theirs");
  EXPECT_FALSE(fs::exists(dir / "one.json")) << "what it had named is taken back";
  EXPECT_TRUE(fs::is_directory(dir)) << "the folder it made holds their file: kept";
  EXPECT_EQ(testing::temporaries_in(root), 0);
}

TEST(NewOutputFolder, CheckRefusesAFolderThatHoldsAnythingOrAFile) {
  const fs::path root = testing::fresh_test_dir("new_output_folder");
  std::ofstream(root / "mine.txt") << "x";
  EXPECT_THROW(NewOutputFolder::check(root.string(), "test", "--out"), InputError);
  EXPECT_THROW(NewOutputFolder::check((root / "mine.txt").string(), "test", "--out"), InputError);
  EXPECT_THROW(NewOutputFolder::check((root / "mine.txt" / "below").string(), "test", "--out"), InputError);
  EXPECT_THROW(NewOutputFolder::check("", "test", "--out"), InputError);
  fs::create_directories(root / "empty");
  EXPECT_NO_THROW(NewOutputFolder::check((root / "empty").string(), "test", "--out"));
  EXPECT_NO_THROW(NewOutputFolder::check((root / "new" / "deeper").string(), "test", "--out"));
  EXPECT_FALSE(fs::exists(root / "new")) << "check creates nothing";
}

}  // namespace
}  // namespace trainsim
