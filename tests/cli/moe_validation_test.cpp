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
#include <optional>
#include <string>
#include <vector>

#include "support/published_figure.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

std::string scenario(const std::string& name) {
  return testing::source_path("scenarios/validation/" + name + ".ini");
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
  const std::optional<testing::PublishedFigure> figure = testing::published_figure(file);
  ASSERT_TRUE(figure && figure->value > 0) << name << ": no published_<metric> line";
  const double simulated = result.at(figure->field).get<double>();
  EXPECT_GT(simulated, 0) << name;
  std::printf("%s: simulated %.1f %s, published %.1f, error %+.1f %%, step %.3f s\n", name.c_str(), simulated,
              figure->field.c_str(), figure->value, 100 * figure->error(simulated),
              result.at("step_time_s").get<double>());
  EXPECT_LE(std::abs(figure->error(simulated)), bound) << name;
}

// The simulated tokens/s per GPU of a validation scenario.
double tokens_per_s_per_gpu(const std::string& name) {
  const auto r = testing::run_trainsim({"run", scenario(name), "--json"});
  EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  return nlohmann::json::parse(r.out).at("tokens_per_s_per_gpu").get<double>();
}

// Simulates within `bound`, and `trainsim memory` says it fits as it ran.
void simulates_and_fits(const std::string& name, double bound) {
  simulates(name, bound);
  const std::string verdict = memory_verdict(scenario(name));
  EXPECT_TRUE(says_it_fits(verdict)) << name << ": " << verdict;
}

// Errors with this build (scenarios/validation/README.md), the files as the recipes at the
// 25.11 release tag ran them (Megatron-Bridge v0.2.1, public.md A3): H100 GPT-OSS +44.3 %
// (head-dim-64 attention rows), H100 Qwen3 30B +129.3 % (MBS 1, VP 12; the router's and
// dispatcher's calls counted from Megatron-Core, models/moe_kernel_counts.hpp), B200
// DeepSeek-V3 +7.7 %, B200 GPT-OSS +16.7 % (EP 64), B200 Qwen3 30B +90.4 %, B200 Qwen3 235B
// +62.9 % (VP 4); the bounds of the rows this changed are the next 5 % above.
TEST(MoeValidation, DgxH100GptOss120b) {
  const std::string name = "nemo-h100-gpt-oss-120b";
  simulates_and_fits(name, 0.65);
  // The table's micro-batch 4 (grad_accum 8) would not fit (see the top of this file).
  const std::string table = memory_verdict(scenario(name), {"training.micro_batch=4", "training.grad_accum=8"});
  EXPECT_FALSE(says_it_fits(table)) << table;
}

TEST(MoeValidation, DgxH100Qwen3_30bA3b) {
  simulates_and_fits("nemo-h100-qwen3-30b-a3b", 1.35);
}

TEST(MoeValidation, DgxB200DeepSeekV3) {
  simulates_and_fits("nemo-b200-deepseek-v3", 0.25);
}

TEST(MoeValidation, DgxB200GptOss120b) { simulates_and_fits("nemo-b200-gpt-oss-120b", 0.20); }

TEST(MoeValidation, DgxB200Qwen3_30bA3b) {
  simulates_and_fits("nemo-b200-qwen3-30b-a3b", 0.95);
}

TEST(MoeValidation, DgxB200Qwen3_235bA22b) {
  simulates_and_fits("nemo-b200-qwen3-235b-a22b", 0.65);
}

// The same-stack measurements of public.md D5 (scenarios/validation/d5-*.ini: checks, not
// throughput rows), each held, as the A2 rows are, within the next 5 % above this build's
// error (scenarios/validation/README.md): Qwen3 30B-A3B on 16 H100 with HybridEP +12.7 %, with
// its overlap +30.8 %, with NCCL's alltoall +23.2 %, with its overlap +50.3 %; Megatron-LM's
// recipes on 32 H100 in BF16 +36.6 % and FP8 +34.2 %, on 16 GB200 in BF16 +12.0 % and MXFP8
// +28.5 %; Megatron-Bridge's HybridEP recipe on 8 B200 in BF16 +10.1 % and MXFP8 +22.6 %.
// With the host stack factor fitted on all rows (2.3, topologies/host_cost.cpp) the GB200 BF16
// recipe comes out at -22.3 % (Grace's host at 2.75 x 2.3 the A100 trace's costs): its bound
// the next 5 % above; the others fall within theirs (H100 +2.2, +14.2, -8.2, -2.4, +2.8,
// +0.9 %; GB200 MXFP8 +7.8 %; B200 +6.8, +18.0 %).
TEST(MoeValidation, SameStackMeasurements) {
  for (const auto& [name, bound] : std::vector<std::pair<std::string, double>>{
           {"d5-h100-qwen3-30b-a3b-hybridep", 0.15},
           {"d5-h100-qwen3-30b-a3b-hybridep-overlap", 0.35},
           {"d5-h100-qwen3-30b-a3b-alltoall", 0.25},
           {"d5-h100-qwen3-30b-a3b-alltoall-overlap", 0.55},
           {"d5-h100-qwen3-30b-a3b-recipe-bf16", 0.40},
           {"d5-h100-qwen3-30b-a3b-recipe-fp8", 0.40},
           {"d5-gb200-qwen3-30b-a3b-recipe-bf16", 0.25},
           {"d5-gb200-qwen3-30b-a3b-recipe-mxfp8", 0.30},
           {"d5-b200-qwen3-30b-a3b-hybridep-bf16", 0.15},
           {"d5-b200-qwen3-30b-a3b-hybridep-mxfp8", 0.25},
       })
    simulates_and_fits(name, bound);
}

// The dispatchers in proportion: on the same model and GPUs, without the overlap, HybridEP's
// step against NCCL's alltoall was 1.67x on the GPUs (41.25 against 24.71 s, public.md D5).
// 1.858x with the fitted host stack factor (2.3; 1.59x at the A100 trace's costs): the
// alltoall dispatcher's c10d calls (87.5 us each in the trace) scale with it, so its row runs
// 8 % slow (44.9 against 41.25 s) where HybridEP's is 2 % fast; held within 12 %.
TEST(MoeValidation, HybridEpAgainstAlltoallAsMeasured) {
  const double ratio =
      tokens_per_s_per_gpu("d5-h100-qwen3-30b-a3b-hybridep") / tokens_per_s_per_gpu("d5-h100-qwen3-30b-a3b-alltoall");
  EXPECT_NEAR(ratio, 41.25 / 24.7138, 0.12 * 41.25 / 24.7138);
}

// The A3 pairs (public.md A3): the same cells in the 25.09 container (token drop, padded to
// capacity: no device-to-host sync) and in 25.11 (dropless: one sync per MoE layer forward,
// then the host's pace, sim/step/host_bound_pass.hpp; in a combined-1F1B pair the backward's
// experts stay queued across it, sim/step/host_bound_pair.hpp). DeepSeek-V3's wide layers
// stay bound by the GPU at the A100 trace's host costs: its pair, 2,159 against 2,139
// tokens/s, 1.028 then (the dropless row pays the experts' quantization padding,
// models/expert_quantization_padding.hpp); at the fitted host stack factor (2.3,
// topologies/host_cost.cpp) the dropless row's host shows through too: 1.074, held within
// 7 %. Qwen3 30B-A3B's narrow layers on B200 wait for the x86 host once its router and
// preprocess are the only graphs: the dropless row comes out slower than the token-drop one,
// as measured (1.94x), but by far less at the A100 trace's host costs (1.339x: with the
// router's and dispatcher's calls counted from Megatron-Core @ 0d8e0714,
// models/moe_kernel_counts.hpp, its collective calls, models/moe_collective_calls.hpp, the
// padding, and the 35 weights' gradients a layer hands back to autograd (HostCost::
// weight_gradient_s), priced at the host costs measured per call, topologies/host_cost.cpp, an
// H100 layer and micro-batch of 4,096 tokens takes 6.2 ms of host against 5.9 ms of GPU where
// the pair implies about 16 ms). The H100 pair (1.99x measured) comes out at 1.197x with the 25.11
// recipe's micro-batch 1 and VP 12: the same direction, far from the size. Those are the
// A100 trace's host costs; at the host stack factor fitted on all rows (2.3,
// topologies/host_cost.cpp) the pairs come out at 2.505x (B200) and 2.061x (H100): the B200
// dropless row now runs 11.9 % slow, its pair held below 1.35 x the measured.
TEST(MoeValidation, DroplessAgainstTokenDropPairs) {
  const double deepseek = tokens_per_s_per_gpu("a3-b200-deepseek-v3") / tokens_per_s_per_gpu("nemo-b200-deepseek-v3");
  EXPECT_NEAR(deepseek, 2159.0 / 2139.0, 0.07);
  const double qwen3_b200 =
      tokens_per_s_per_gpu("a3-b200-qwen3-30b-a3b") / tokens_per_s_per_gpu("nemo-b200-qwen3-30b-a3b");
  const double qwen3_h100 =
      tokens_per_s_per_gpu("a3-h100-qwen3-30b-a3b") / tokens_per_s_per_gpu("nemo-h100-qwen3-30b-a3b");
  std::printf("A3 pairs: DeepSeek-V3 B200 %.3f (measured %.3f), Qwen3 30B B200 %.3f (measured 1.94), H100 %.3f "
              "(measured 1.99)\n",
              deepseek, 2159.0 / 2139.0, qwen3_b200, qwen3_h100);
  EXPECT_GT(qwen3_b200, 1.05);
  EXPECT_LT(qwen3_b200, 1.94 * 1.35);
  // The H100 pair points the measured way: the 25.11 recipe's run (micro-batch 1, VP 12) with
  // the dropless path's calls counted from the code is slower than the 25.09 one.
  EXPECT_GT(qwen3_h100, 1.0);
  EXPECT_LT(qwen3_h100, 1.99 * 1.10);
}

// HybridEP's kernels at HybridEP's own measured rate (sim/step/dispatcher_rates.hpp; over
// InfiniBand at EP 16, 54.47 / 53.35 GB/s on the row's 32 SMs, held at the 16 measured): the
// overlap-off HybridEP run's Nsight profile holds 8.25 s of communication kernels a step (DERIVED,
// scenarios/validation/README.md: 9.079 ms concurrent with compute, 0.11 % of it hidden), and
// the row's expert-parallel waits come within 10 % of it (at NCCL's all-to-all rate: 5.31 s).
TEST(MoeValidation, HybridEpKernelsTakeWhatTheProfileHolds) {
  const auto r = testing::run_trainsim({"run", scenario("d5-h100-qwen3-30b-a3b-hybridep"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double ep_comm = nlohmann::json::parse(r.out).at("breakdown_s").at("ep_comm").get<double>();
  EXPECT_NEAR(ep_comm, 8.25, 0.10 * 8.25);
}

}  // namespace
}  // namespace trainsim
