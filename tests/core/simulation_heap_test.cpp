// The heap's huge pages while a command plans (sim/core/simulation_heap.hpp): asked for over
// the heap prepare_simulation_heap reserves, and no longer over what is still unused once
// end_huge_page_heap is called (SimGrid's engine is created: actors' stacks come next).
// Each case runs in a forked child: the allocator's settings are the process'.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/address_sanitizer.hpp"
#include "sim/core/forked_call.hpp"
#include "sim/core/simulation_heap.hpp"

namespace trainsim {
namespace {

// The VmFlags line of the mapping of /proc/self/smaps that holds `address` ("" if none).
std::string vm_flags_at(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t first = 0, last = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> first >> dash >> last && dash == '-') {
      inside = first <= a && a < last;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

bool address_space_limited() {
  rlimit as{};
  return getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur != RLIM_INFINITY;
}

TEST(SimulationHeap, PlansInHugePagesAndStopsBeforeTheEngine) {
  if (k_address_sanitizer || address_space_limited()) GTEST_SKIP() << "no reservation under ASan or ulimit -v";
  const std::string flags = forked_call([] {
    prepare_simulation_heap();
    void* planning = std::malloc(std::size_t{8} << 20);
    const std::string during = vm_flags_at(static_cast<char*>(planning) + (std::size_t{4} << 20));
    end_huge_page_heap();
    void* simulating = std::malloc(std::size_t{8} << 20);
    const std::string after = vm_flags_at(static_cast<char*>(simulating) + (std::size_t{4} << 20));
    std::free(simulating);
    std::free(planning);
    return during + "\n" + after;
  });
  const std::string during = flags.substr(0, flags.find('\n')), after = flags.substr(flags.find('\n') + 1);
  EXPECT_NE(during.find(" hg"), std::string::npos) << during;  // VM_HUGEPAGE (proc(5))
  EXPECT_EQ(after.find(" hg"), std::string::npos) << after;
  EXPECT_NE(after.find(" nh"), std::string::npos) << after;  // VM_NOHUGEPAGE
}

}  // namespace
}  // namespace trainsim
