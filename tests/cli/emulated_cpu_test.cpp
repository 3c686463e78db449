// The same numbers on every x86-64 CPU, shown without a second machine: the same binary under
// Debian's qemu-user emulating a CPU without FMA or AVX (Nehalem) and one with them (Haswell)
// prints exactly what it prints natively, every number of --json at full precision (the wall
// time a simulation took aside). glibc's libm picks FMA/AVX code by the CPU it finds, and
// Eigen's float square root and its product blocking depended on the CPU too; before the
// portable functions (sim/core/portable_math.hpp) the drill's divergences differed here.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::source_path;

struct Emulated {
  const char* name;
  std::vector<std::string> args;
};

std::ostream& operator<<(std::ostream& os, const Emulated& e) {
  return os << e.name;
}

bool have_qemu() {
  return std::system("command -v qemu-x86_64 >/dev/null 2>&1") == 0;
}

// The document without the wall time the simulation took (sim_wall_s, the drill's wall_s).
nlohmann::json without_wall_time(nlohmann::json j) {
  if (j.is_object()) {
    j.erase("sim_wall_s");
    j.erase("wall_s");
    for (auto& [key, value] : j.items()) value = without_wall_time(value);
  } else if (j.is_array()) {
    for (auto& value : j) value = without_wall_time(value);
  }
  return j;
}

class EmulatedCpu : public ::testing::TestWithParam<std::tuple<Emulated, std::string>> {};

TEST_P(EmulatedCpu, PrintsWhatTheNativeCpuPrints) {
  const auto& [c, cpu] = GetParam();
  if (!have_qemu())
    GTEST_SKIP() << "qemu-x86_64 is not installed (Debian's qemu-user; scripts/bootstrap.sh test installs it)";
  const auto native = testing::run_trainsim(c.args);
  ASSERT_EQ(native.exit_code, 0) << native.err;
  // qemu warns on stderr about CPU features its TCG does not model; stdout is the program's.
  const auto emulated = testing::run_trainsim_after("exec qemu-x86_64 -cpu " + cpu + " ", c.args);
  ASSERT_EQ(emulated.exit_code, 0) << emulated.err;
  const nlohmann::json a = without_wall_time(nlohmann::json::parse(native.out));
  const nlohmann::json b = without_wall_time(nlohmann::json::parse(emulated.out));
  EXPECT_EQ(a, b) << "differences (native to " << cpu << "): " << nlohmann::json::diff(a, b).dump().substr(0, 2000);
}

// What stops a regression before it reaches an emulator: the executable imports none of the
// C library's elementary functions whose results glibc picks by CPU (the portable ones stand
// in; sqrt, floor, ceil, round are exact everywhere and stay).
TEST(PortableBinary, ImportsNoCpuDependentMathFunctions) {
  if (std::system("command -v nm >/dev/null 2>&1") != 0) GTEST_SKIP() << "nm (binutils) is not installed";
  const std::string command = std::string("nm -D --undefined-only '") + TRAINSIM_EXE + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  const std::set<std::string> cpu_dependent = {"exp",   "exp2",  "expm1", "log",  "log2",   "log10",  "log1p",
                                               "pow",   "sin",   "cos",   "tan",  "sincos", "asin",   "acos",
                                               "atan",  "atan2", "sinh",  "cosh", "tanh",   "asinh",  "acosh",
                                               "atanh", "cbrt",  "hypot", "erf",  "erfc",   "lgamma", "tgamma"};
  std::vector<std::string> found;
  char line[512];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string name = line;
    name = name.substr(name.find_last_of(' ') + 1);
    name = name.substr(0, name.find_first_of("@\n"));
    std::string base = name;
    if (!cpu_dependent.count(base) && !base.empty() && (base.back() == 'f' || base.back() == 'l')) base.pop_back();
    if (cpu_dependent.count(base) || name.rfind("_ZGV", 0) == 0) found.push_back(name);  // _ZGV: libmvec
  }
  ASSERT_EQ(::pclose(pipe), 0) << command;
  EXPECT_TRUE(found.empty()) << "trainsim imports " << ::testing::PrintToString(found)
                             << ": use sim/core/portable_math.hpp";
}

const std::string k_default = source_path("scenarios/default.ini");

INSTANTIATE_TEST_SUITE_P(
    Commands, EmulatedCpu,
    ::testing::Combine(::testing::Values(
                           // The drill: Eigen's products, exp, log, Adam's pow and sqrt, the cosine schedule.
                           Emulated{"drill", {"drill", k_default, "--steps", "6", "--json"}},
                           // A step: kernel curves (log-space interpolation), the engine, SimGrid's solver.
                           Emulated{"step", {"run", k_default, "--json"}},
                           // A run of 54 days: exponential failures, then Weibull ones (tgamma, pow).
                           Emulated{"run",
                                    {"run", source_path("scenarios/examples/llama3-405b-54-days.ini"), "--json"}},
                           Emulated{"weibull_run",
                                    {"run", source_path("scenarios/examples/llama3-405b-54-days.ini"), "--json",
                                     "--set", "failures.distribution=weibull", "--set", "failures.weibull_shape=0.7"}},
                           // Drawn expert loads (normal draws, exp, log1p) and the MoE layer's ops.
                           Emulated{"moe_step",
                                    {"run", source_path("scenarios/examples/mixtral-8x7b-ep.ini"), "--json", "--set",
                                     "model.expert_imbalance=0.3"}},
                           Emulated{"layer", {"layer", source_path("scenarios/examples/deepseek-v3-ep.ini"), "--json"}},
                           Emulated{"memory", {"memory", k_default, "--json"}}),
                       ::testing::Values(std::string("Nehalem"), std::string("Haswell"))),
    [](const auto& p) { return std::string(std::get<0>(p.param).name) + "_" + std::get<1>(p.param); });

}  // namespace
}  // namespace trainsim
