// SimGrid replaced SIGINT's action with a handler of its own that calls exit(1) (simgrid
// src/kernel/EngineImpl.cpp @ v3.32, install_signal_handlers, inthandler): an ignored SIGINT
// (nohup, a background job of a script) ended the run all the same, with exit status 1, no
// message and its temporaries left; and exit() from inside malloc deadlocked on the allocator's
// lock (`trainsim run` hung for good after one Ctrl-C). SIGINT now keeps the action the process
// was started with.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

// Sends SIGINT to the command (the shell's pid, which exec gives the command) every 20 ms while
// it runs, and SIGKILL after 30 s: a command that hangs ends with exit code -1.
const std::string k_sigint_every_20_ms =
    "( i=0; while kill -INT $$ 2>/dev/null; do i=$((i+1)); [ $i -gt 1500 ] && kill -KILL $$; sleep 0.02; done ) & ";

TEST(Interrupt, AnIgnoredSigintStaysIgnored) {
  const fs::path dir = testing::fresh_test_dir("interrupt_ignored");
  const fs::path trace = dir / "t.h5";
  const auto r = testing::run_trainsim_after("trap '' INT; " + k_sigint_every_20_ms + "exec ",
                                             {"run", testing::source_path("scenarios/default.ini"), "--trace",
                                              trace.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(trace));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);  // no temporary left
}

}  // namespace
}  // namespace trainsim
