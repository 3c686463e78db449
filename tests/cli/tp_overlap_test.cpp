// Transformer Engine's TP communication overlap as a mechanism (issue 56, item 1): on the
// MLPerf GPT-3 175B layout of public.md A4 (512 H100, TP 4 PP 8 VP 12, FP8, userbuffers with
// NVIDIA's tp_overlap/h100tp4pp8mbs1.yaml), overlapping the TP collectives gains time over
// running them blocking, as it did on Eos, where the fitted 40 % slowdown made it a loss.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

nlohmann::json run(const std::vector<std::string>& sets) {
  std::vector<std::string> args{"run", testing::source_path("scenarios/validation/mlperf-h100-gpt3-175b-512.ini"),
                                "--json"};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  const auto r = testing::run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(TpOverlap, GainsTimeOnMlperfGpt3At512Gpus) {
  const nlohmann::json on = run({"parallel.tp_comm_overlap=true"});
  const nlohmann::json off = run({"parallel.tp_comm_overlap=false"});
  const double on_s = on.at("step_time_s").get<double>();
  const double off_s = off.at("step_time_s").get<double>();
  EXPECT_LT(on_s, off_s);
  // The exchanges hide behind their GEMMs: what is left of tp_comm is a small part of it.
  EXPECT_LT(on.at("breakdown_s").at("tp_comm").get<double>(), 0.5 * off.at("breakdown_s").at("tp_comm").get<double>());
  // The SMs the userbuffers kernels take cost time: more of them, a slower step.
  const nlohmann::json greedy = run({"parallel.tp_comm_overlap=true", "parallel.tp_comm_overlap_sms=64"});
  EXPECT_GT(greedy.at("step_time_s").get<double>(), on_s);
}

// Transformer Engine's ring-exchange reduce-scatter sums the partial outputs it received in
// one more kernel after its last chunk (CommOverlapP2PBase::split_overlap_rs); the pipelined
// one reduces inside its SM kernels. At TP 4 both run the output projection and the MLP's
// second GEMM in 4 chunks, so on no SMs taken the ring exchange's step is the slower by that
// kernel.
TEST(TpOverlap, ARingExchangeReduceScatterPaysItsReduction) {
  const double ring = run({"parallel.tp_overlap_proj_fprop=ring_exchange", "parallel.tp_overlap_fc2_fprop=ring_exchange"})
                          .at("step_time_s")
                          .get<double>();
  const double pipelined =
      run({"parallel.tp_overlap_proj_fprop=pipeline:0:4", "parallel.tp_overlap_fc2_fprop=pipeline:0:4"})
          .at("step_time_s")
          .get<double>();
  EXPECT_GT(ring, pipelined);
}

}  // namespace
}  // namespace trainsim
