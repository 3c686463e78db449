// Output files: what an output path names is never destroyed. Devices and FIFOs are made in a
// temporary folder of the test's own (mknod needs root, as CI runs; without it those cases
// skip), never the real /dev entries.

#include "sim/core/output_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>

#include "sim/core/error.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

using testing::make_char_device;
using testing::temporaries_in;

fs::path test_dir() {
  return testing::fresh_test_dir("trainsim_output_file");
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Temporary files of this process in the system's temporary folder, where device and FIFO
// targets are staged.
int own_temporaries_in_tmp() {
  int n = 0;
  const std::string pid = "." + std::to_string(::getpid()) + ".tmp";
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path())) {
    const std::string name = entry.path().filename().string();
    n += name.rfind("trainsim.", 0) == 0 && name.size() > pid.size() &&
         name.compare(name.size() - pid.size(), pid.size(), pid) == 0;
  }
  return n;
}

TEST(CheckOutputPath, MissingDirectoryIsAnInputError) {
  try {
    check_output_path("/nonexistent-dir/trace.h5", "--trace");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "--trace");
    EXPECT_EQ(e.value(), "/nonexistent-dir/trace.h5");
    EXPECT_NE(e.rule().find("does not exist"), std::string::npos) << e.what();
  }
}

TEST(CheckOutputPath, DirectoryIsAnInputError) {
  EXPECT_THROW(check_output_path(test_dir().string(), "--trace"), InputError);
}

TEST(CheckOutputPath, EmptyPathIsAnInputError) {
  EXPECT_THROW(check_output_path("", "--trace"), InputError);
}

TEST(CheckOutputPath, FileInAnExistingDirectoryIsFine) {
  const fs::path dir = test_dir();
  EXPECT_NO_THROW(check_output_path((dir / "trace.h5").string(), "--trace"));
  EXPECT_EQ(temporaries_in(dir), 0);  // the probe is gone
}

TEST(CheckOutputPath, FolderThatRefusesFilesIsAnInputError) {
  // procfs refuses new files, root included (a plain chmod does not stop root).
  try {
    check_output_path("/proc/trainsim-test.h5", "--trace");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.rule().find("cannot create a file in the directory '/proc'"), std::string::npos) << e.what();
  }
}

TEST(CheckOutputPath, SocketIsRefused) {
  const fs::path path = test_dir() / "s.sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(path.string().size(), sizeof address.sun_path);
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  try {
    check_output_path(path.string(), "--trace");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.rule().find("is a socket"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_file_atomically(path.string(), "x"), OutputError);
  EXPECT_TRUE(fs::is_socket(path));
  ::close(fd);
}

TEST(CheckOutputPath, LinkLoopIsRefused) {
  const fs::path dir = test_dir();
  fs::create_symlink("b", dir / "a");
  fs::create_symlink("a", dir / "b");
  EXPECT_THROW(check_output_path((dir / "a").string(), "--trace"), InputError);
}

TEST(AtomicOutputFile, UncommittedFileIsRemoved) {
  const fs::path dir = test_dir();
  const std::string path = (dir / "uncommitted.h5").string();
  std::string temp;
  {
    AtomicOutputFile file(path);
    temp = file.temp_path();
    file.append("partial");
    EXPECT_TRUE(fs::exists(temp));
  }
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(path));
}

TEST(AtomicOutputFile, CommitRenamesIntoPlace) {
  const fs::path dir = test_dir();
  const std::string path = (dir / "committed.txt").string();
  AtomicOutputFile file(path);
  EXPECT_NE(file.temp_path(), path);
  EXPECT_TRUE(is_temporary_name(fs::path(file.temp_path()).filename().string()));
  file.append("done");
  file.commit();
  EXPECT_EQ(slurp(path), "done");
  EXPECT_EQ(temporaries_in(dir), 0);
}

TEST(AtomicOutputFile, ExistingFileIsReplacedAndKeepsItsPermissions) {
  const fs::path dir = test_dir();
  const fs::path path = dir / "table.csv";
  std::ofstream(path) << "old and longer";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_file_atomically(path.string(), "new");
  EXPECT_EQ(slurp(path), "new");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(AtomicOutputFile, SymbolicLinkIsFollowedNotReplaced) {
  const fs::path dir = test_dir();
  fs::create_directories(dir / "real");
  std::ofstream(dir / "real" / "out.txt") << "old";
  fs::create_symlink("real/out.txt", dir / "link.txt");
  write_file_atomically((dir / "link.txt").string(), "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(slurp(dir / "real" / "out.txt"), "new");
  EXPECT_EQ(temporaries_in(dir), 0);
  EXPECT_EQ(temporaries_in(dir / "real"), 0);
}

TEST(AtomicOutputFile, DanglingLinkCreatesItsTarget) {
  const fs::path dir = test_dir();
  fs::create_symlink("made.txt", dir / "link.txt");
  write_file_atomically((dir / "link.txt").string(), "made");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(slurp(dir / "made.txt"), "made");
}

TEST(AtomicOutputFile, CharacterDeviceIsWrittenThroughNotReplaced) {
  const fs::path dir = test_dir();
  const fs::path null = dir / "null";
  if (!make_char_device(null, 3)) GTEST_SKIP() << "mknod needs root (CI runs as root)";
  check_output_path(null.string(), "--trace");
  write_file_atomically(null.string(), std::string(3 << 20, 'x'));  // several copy chunks
  EXPECT_TRUE(fs::is_character_file(null));
  EXPECT_EQ(temporaries_in(dir), 0);
  EXPECT_EQ(own_temporaries_in_tmp(), 0);
}

TEST(AtomicOutputFile, LinkToADeviceIsWrittenThrough) {
  const fs::path dir = test_dir();
  if (!make_char_device(dir / "null", 3)) GTEST_SKIP() << "mknod needs root (CI runs as root)";
  fs::create_symlink("null", dir / "discard");
  write_file_atomically((dir / "discard").string(), "bytes");
  EXPECT_TRUE(fs::is_symlink(dir / "discard"));
  EXPECT_TRUE(fs::is_character_file(dir / "null"));
}

TEST(AtomicOutputFile, FullDeviceIsAnOutputErrorWithTheSystemsReason) {
  const fs::path dir = test_dir();
  const fs::path full = dir / "full";
  if (!make_char_device(full, 7)) GTEST_SKIP() << "mknod needs root (CI runs as root)";
  try {
    write_file_atomically(full.string(), "bytes");
    FAIL() << "no error";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), full.string());
    EXPECT_EQ(e.reason(), std::strerror(ENOSPC));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_TRUE(fs::is_character_file(full));
  EXPECT_EQ(own_temporaries_in_tmp(), 0);
}

TEST(AtomicOutputFile, FifoIsWrittenThroughToItsReader) {
  const fs::path dir = test_dir();
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] { return slurp(fifo); });
  write_file_atomically(fifo.string(), "through the pipe");
  EXPECT_EQ(reader.get(), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(own_temporaries_in_tmp(), 0);
}

TEST(AtomicOutputFile, FifoWhoseReaderLeavesIsAnOutputError) {
  const fs::path dir = test_dir();
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] {
    const int fd = ::open(fifo.c_str(), O_RDONLY);
    char byte = 0;
    const ssize_t n = ::read(fd, &byte, 1);
    ::close(fd);  // leaves with most of the bytes unread
    return n;
  });
  EXPECT_THROW(write_file_atomically(fifo.string(), std::string(8 << 20, 'x')), OutputError);  // not SIGPIPE
  EXPECT_EQ(reader.get(), 1);
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(AtomicOutputFile, ReadOnlyFileSystemIsAnError) {
  // A read-only tmpfs of the test's own where mount(2) is allowed (root in CI), else skipped.
  const fs::path dir = test_dir() / "ro";
  fs::create_directories(dir);
  if (::mount("trainsim-test", dir.c_str(), "tmpfs", MS_RDONLY, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a read-only tmpfs here (needs CAP_SYS_ADMIN)";
  const std::string path = (dir / "trace.h5").string();
  try {
    check_output_path(path, "--trace");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.rule().find(std::strerror(EROFS)), std::string::npos) << e.what();
  }
  try {
    AtomicOutputFile file(path);
    ADD_FAILURE() << "no error";
  } catch (const OutputError& e) {
    EXPECT_NE(e.reason().find(std::strerror(EROFS)), std::string::npos) << e.what();
  }
  ::umount(dir.c_str());
}

}  // namespace
}  // namespace trainsim
