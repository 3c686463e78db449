// A sweep stopped by SIGTERM or SIGINT to its own process (kill PID, Ctrl-C), through the
// real executable: its workers and their own children end with it, nothing is written
// after it has exited, no temporary file is left, it ends by the signal, and the same
// command again finishes the points and gives the table an uninterrupted run gives.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "sim/sweep/read_file.hpp"
#include "support/run_trainsim.hpp"
#include "tiny_scenario.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Four points of the tiny scenario with a run-level simulation, whose children (forked_call)
// are the workers' own: the first point takes ~0.1 s, the others ~1 s each.
std::string slow_sweep() {
  return testing::tiny_sweep_file("[set]\nfailures.mtbf = 1h\n[vary]\nrun.duration = 2d,30d,31d,32d\n");
}

// The parent and state of a live process, or ppid -1 when there is none (or a zombie).
int parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(text.substr(close + 1));
  char state = 0;
  int ppid = -1;
  rest >> state >> ppid;
  return state == 'Z' || state == 'X' ? -1 : ppid;
}

bool alive(pid_t pid) {
  return parent_of(pid) != -1;
}

// Adds every live descendant of `root` to `seen`.
void add_descendants(pid_t root, std::set<pid_t>& seen) {
  bool grew = true;
  while (grew) {
    grew = false;
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const pid_t pid = std::stoi(name);
      const int ppid = parent_of(pid);
      if ((ppid == root || seen.count(ppid) > 0) && seen.insert(pid).second) grew = true;
    }
  }
}

int temporary_files(const std::string& dir) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) n += e.path().extension() == ".tmp";
  return n;
}

// Starts `trainsim sweep SWEEP --jobs 2 --out DIR`, its outputs to files in DIR's parent,
// with SIGTERM and SIGINT at their default actions (whatever this test process inherited).
pid_t start_sweep(const std::string& sweep, const std::string& dir) {
  const std::string log = dir + ".log";
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
    if (!::freopen("/dev/null", "r", stdin) || !::freopen(log.c_str(), "w", stdout) ||
        !::freopen(log.c_str(), "a", stderr))
      ::_exit(127);
    ::execl(TRAINSIM_EXE, TRAINSIM_EXE, "sweep", sweep.c_str(), "--jobs", "2", "--out", dir.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

struct Stopped {
  int status = 0;           ///< the sweep's wait status
  std::set<pid_t> helpers;  ///< its workers and their children, seen while it ran
  int points_at_exit = 0;   ///< point files when it had exited
  bool exited_in_time = false;
};

// Runs the sweep until its first point file appears (at most 30 s), sends `signal` to its
// process alone, and waits (at most 30 s) for it to end.
Stopped run_and_stop(const std::string& sweep, const std::string& dir, int signal) {
  Stopped s;
  const pid_t pid = start_sweep(sweep, dir);
  const auto started = Clock::now();
  while (testing::count_point_files(dir) == 0 && Clock::now() - started < std::chrono::seconds(30)) {
    add_descendants(pid, s.helpers);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  add_descendants(pid, s.helpers);
  ::kill(pid, signal);
  const auto sent = Clock::now();
  while (Clock::now() - sent < std::chrono::seconds(30)) {
    if (::waitpid(pid, &s.status, WNOHANG) == pid) {
      s.exited_in_time = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!s.exited_in_time) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &s.status, 0);
  }
  s.points_at_exit = testing::count_point_files(dir);
  return s;
}

// Ends the helpers that outlived the sweep (a failed test must not leave them running).
int end_survivors(const std::set<pid_t>& helpers) {
  int survivors = 0;
  for (const pid_t p : helpers)
    if (alive(p)) {
      ++survivors;
      ::kill(p, SIGKILL);
    }
  return survivors;
}

TEST(SweepStop, SigtermStopsWorkersAndTheSameCommandFinishes) {
  const std::string sweep = slow_sweep();
  const std::string dir = testing::fresh_dir("stopped"), clean = testing::fresh_dir("clean");
  const Stopped s = run_and_stop(sweep, dir, SIGTERM);
  ASSERT_TRUE(s.exited_in_time) << sweep::read_file_or_empty(dir + ".log");
  EXPECT_FALSE(s.helpers.empty()) << "no worker seen";
  EXPECT_EQ(end_survivors(s.helpers), 0) << "workers outlived the sweep";
  EXPECT_TRUE(WIFSIGNALED(s.status) && WTERMSIG(s.status) == SIGTERM) << "status " << s.status;
  if (s.points_at_exit == 4) GTEST_SKIP() << "every point finished before the signal arrived";
  EXPECT_EQ(temporary_files(dir), 0);
  EXPECT_NE(sweep::read_file_or_empty(dir + ".log").find("stopped by SIGTERM"), std::string::npos)
      << sweep::read_file_or_empty(dir + ".log");
  // Nothing is left running to write: the files are those there were at exit.
  EXPECT_EQ(testing::count_point_files(dir), s.points_at_exit);

  const auto resumed = testing::run_trainsim({"sweep", sweep, "--jobs", "2", "--out", dir});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find(std::to_string(s.points_at_exit) + " already done"), std::string::npos) << resumed.out;
  const auto reference = testing::run_trainsim({"sweep", sweep, "--jobs", "2", "--out", clean});
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_EQ(sweep::read_file_or_empty(dir + "/results.csv"), sweep::read_file_or_empty(clean + "/results.csv"));
}

TEST(SweepStop, SigintStopsWorkersAndEndsBySigint) {
  const std::string dir = testing::fresh_dir("interrupted");
  const Stopped s = run_and_stop(slow_sweep(), dir, SIGINT);
  ASSERT_TRUE(s.exited_in_time) << sweep::read_file_or_empty(dir + ".log");
  EXPECT_FALSE(s.helpers.empty()) << "no worker seen";
  EXPECT_EQ(end_survivors(s.helpers), 0) << "workers outlived the sweep";
  EXPECT_TRUE(WIFSIGNALED(s.status) && WTERMSIG(s.status) == SIGINT) << "status " << s.status;
  EXPECT_EQ(testing::count_point_files(dir), s.points_at_exit);
}

}  // namespace
}  // namespace trainsim
