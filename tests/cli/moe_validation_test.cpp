// The MoE rows of ../shared/validation/public.md A2 (NeMo / Megatron-Bridge 25.11, DGX-H100
// and DGX-B200), one scenario each in scenarios/validation/, run through the real CLI as a
// user would (issue 16 item 4): every row is expressible, simulates, and fits in memory as it
// ran, and its throughput error is held within a bound per row: what this build reaches with
// the MoE layer's token permutations and router kernels, its host-bound passes
// (training.kernel_host_time and kernel_launch_time, sim/step/host_bound_pass.hpp) and the
// all-to-alls timed without the first micro-batch's parameter gather beside them. The bounds
// are where the rows are, not where they should be: all six are still optimistic (scenarios/validation/README.md).
//
// GPT-OSS 120B on 64 H100 runs the recipe's micro-batch 1 (Megatron-Bridge 00b7660b's H100
// preset; GBS 512 kept): the table's micro-batch 4 (PP 4, no recomputation) would need 105 GiB
// of 80 on the first stage, and its GA 2 is 512 / (4 x 64), the B200 row's figure.
//
// Each case runs one scenario: `trainsim run --json` (0.3 to 2.3 s on one core) and
// `trainsim memory` (under 0.4 s).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

std::string scenario(const std::string& name) {
  return testing::source_path("scenarios/validation/" + name + ".ini");
}

// The "# published_tokens_per_s_per_gpu = N" line of a validation scenario (0 if none).
double published_tokens_per_s_per_gpu(const std::string& file) {
  const std::string tag = "# published_tokens_per_s_per_gpu = ";
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(tag, 0) == 0) return std::stod(line.substr(tag.size()));
  return 0;
}

// The last non-empty line `trainsim memory` printed: "fits: ..." or "does NOT fit: ...".
std::string memory_verdict(const std::string& file, const std::vector<std::string>& sets = {}) {
  std::vector<std::string> args{"memory", file};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const auto r = testing::run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << file << ": " << r.err;
  std::string last;
  size_t begin = 0;
  while (begin < r.out.size()) {
    size_t end = r.out.find('\n', begin);
    if (end == std::string::npos) end = r.out.size();
    const std::string line = r.out.substr(begin, end - begin);
    if (!line.empty()) last = line;
    begin = end + 1;
  }
  return last;
}

bool says_it_fits(const std::string& verdict) { return verdict.rfind("fits:", 0) == 0; }

// `trainsim run --json` exits 0 and gives a positive throughput within `bound` (a fraction)
// of the published one; prints the error.
void simulates(const std::string& name, double bound) {
  const std::string file = scenario(name);
  const auto r = testing::run_trainsim({"run", file, "--json"});
  ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
  const nlohmann::json result = nlohmann::json::parse(r.out);
  const double simulated = result.at("tokens_per_s_per_gpu").get<double>();
  EXPECT_GT(simulated, 0) << name;
  const double published = published_tokens_per_s_per_gpu(file);
  ASSERT_GT(published, 0) << name << ": no published_tokens_per_s_per_gpu line";
  std::printf("%s: simulated %.0f tokens/s/GPU, published %.0f, error %+.1f %%, step %.3f s\n", name.c_str(),
              simulated, published, 100 * (simulated / published - 1), result.at("step_time_s").get<double>());
  EXPECT_LE(std::abs(simulated / published - 1), bound) << name;
}

// Simulates within `bound`, and `trainsim memory` says it fits as it ran.
void simulates_and_fits(const std::string& name, double bound) {
  simulates(name, bound);
  const std::string verdict = memory_verdict(scenario(name));
  EXPECT_TRUE(says_it_fits(verdict)) << name << ": " << verdict;
}

// Errors with this build (scenarios/validation/README.md): H100 GPT-OSS +60.5 %, H100 Qwen3 30B
// +186.1 % (its recipe's all-to-all overlap hides the all-to-alls: +158.1 % without), B200
// DeepSeek-V3 +26.7 %, B200 GPT-OSS +111.3 %, B200 Qwen3 30B +123.7 % (its recipe's CUDA graphs
// of the router and preprocess take host time off a layer the x86 host binds), B200 Qwen3 235B
// +89.2 % (all-to-all overlap; +57.3 % without); each bound is the next 5 % above.
TEST(MoeValidation, DgxH100GptOss120b) {
  const std::string name = "nemo-h100-gpt-oss-120b";
  simulates_and_fits(name, 0.65);
  // The table's micro-batch 4 (grad_accum 8) would not fit (see the top of this file).
  const std::string table = memory_verdict(scenario(name), {"training.micro_batch=4", "training.grad_accum=8"});
  EXPECT_FALSE(says_it_fits(table)) << table;
}

TEST(MoeValidation, DgxH100Qwen3_30bA3b) {
  simulates_and_fits("nemo-h100-qwen3-30b-a3b", 1.90);
}

TEST(MoeValidation, DgxB200DeepSeekV3) { simulates_and_fits("nemo-b200-deepseek-v3", 0.30); }

TEST(MoeValidation, DgxB200GptOss120b) { simulates_and_fits("nemo-b200-gpt-oss-120b", 1.15); }

TEST(MoeValidation, DgxB200Qwen3_30bA3b) {
  simulates_and_fits("nemo-b200-qwen3-30b-a3b", 1.25);
}

TEST(MoeValidation, DgxB200Qwen3_235bA22b) {
  simulates_and_fits("nemo-b200-qwen3-235b-a22b", 0.90);
}

}  // namespace
}  // namespace trainsim
