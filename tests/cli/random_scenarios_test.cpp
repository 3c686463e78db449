// Seeded random scenarios through the real CLI: every layout, schedule, precision,
// recompute, offload, fabric and run-level policy the generator draws is valid, so each
// must simulate (exit 0) and keep the invariants the report's readers rely on. The draws
// are fixed (std::mt19937 from the test's index), so a failure names a reproducible point.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

class Draw {
 public:
  explicit Draw(std::uint32_t seed) : gen_(seed) {}
  template <typename T>
  T pick(std::initializer_list<T> values) {
    return values.begin()[gen_() % values.size()];
  }
  bool chance(unsigned one_in) { return gen_() % one_in == 0; }

 private:
  std::mt19937 gen_;
};

struct Point {
  std::vector<std::string> args;
  std::string command_line() const {
    std::ostringstream out;
    out << "trainsim";
    for (const std::string& a : args) out << " " << a;
    return out.str();
  }
};

Point point(std::vector<std::string> sets) {
  Point p{{"run", source_path("scenarios/default.ini"), "--json"}};
  for (std::string& s : sets) {
    p.args.push_back("--set");
    p.args.push_back(std::move(s));
  }
  return p;
}

// One training step: any parallel layout the scenario rules accept.
Point step_point(std::uint32_t seed) {
  Draw d(seed);
  const std::string model = d.pick<std::string>({"llama3-8b", "llama3-70b", "gpt3-175b", "mixtral-8x7b", "llama2-7b"});
  const std::string cluster = d.pick<std::string>({"dgx-a100", "dgx-h100", "hgx-h200"});
  const int tp = d.pick({1, 2, 4, 8}), pp = d.pick({1, 2, 3, 4, 8}), cp = d.pick({1, 1, 2, 4}),
            dp = d.pick({1, 2, 4, 8});
  // Powers of two: the smaller divides the larger, so ep divides dp.
  const int ep = model == "mixtral-8x7b" ? std::min(d.pick({1, 2, 4, 8}), dp) : 1;
  const int gpus = tp * pp * cp * dp;
  const int per_node = gpus % 8 == 0 ? 8 : gpus;
  std::string schedule = d.pick<std::string>({"gpipe", "1f1b", "interleaved", "zb-h1"});
  if (schedule == "interleaved" && pp == 1) schedule = "1f1b";
  const bool interleaved = schedule == "interleaved";
  // The interleaved schedule runs micro-batches in groups of pp.
  const int grad_accum = interleaved ? pp * d.pick({1, 2, 4}) : d.pick({1, 2, 3, 8, 16});
  std::string precision = d.pick<std::string>({"bf16", "fp16", "fp8", "fp32"});
  if (precision == "fp8" && cluster == "dgx-a100") precision = "bf16";  // no fp8 tensor cores
  return point({"model.preset=" + model,
                "cluster.preset=" + cluster,
                "parallel.tp=" + std::to_string(tp),
                "parallel.pp=" + std::to_string(pp),
                "parallel.cp=" + std::to_string(cp),
                "parallel.dp=" + std::to_string(dp),
                "parallel.ep=" + std::to_string(ep),
                "cluster.nodes=" + std::to_string(gpus / per_node),
                "cluster.gpus_per_node=" + std::to_string(per_node),
                "parallel.schedule=" + schedule,
                "parallel.virtual_stages=" + std::to_string(interleaved ? d.pick({2, 4}) : 1),
                "parallel.zero=" + std::to_string(d.pick({0, 1, 2, 3})),
                "parallel.sequence_parallel=" + d.pick<std::string>({"true", "false"}),
                "parallel.overlap_grad_reduce=" + d.pick<std::string>({"true", "false"}),
                "training.recompute=" + d.pick<std::string>({"none", "selective", "full"}),
                "training.attention=" + d.pick<std::string>({"flash", "standard"}),
                "training.precision=" + precision,
                "training.micro_batch=" + std::to_string(d.pick({1, 2, 4})),
                "training.grad_accum=" + std::to_string(grad_accum),
                "training.offload=" + d.pick<std::string>({"none", "none", "cpu"}),
                "cluster.fabric=" + d.pick<std::string>({"rail-optimized", "fat-tree", "single-switch"}),
                // Extreme lengths too: HFU must stay <= 1 however much of the work is attention.
                "model.seq_len=" + std::to_string(d.pick({1024, 2048, 4096, 8192, 1048576, 100000000})),
                "run.seed=" + std::to_string(d.pick({1, 7, 42}))});
}

// One training step of a small model of its own shape with the architecture keys of issue 16
// (MoE variants, MLA, windows, sinks, parallel blocks, multi-token prediction) under the
// layouts that go with them (expert parallelism and folding, HSDP, all-gather CP, TP overlap,
// Megatron-Core's rank order, Llama 3's stage split and micro-batch groups, an NVLink domain
// of two nodes), on Hopper, Blackwell (MXFP8, NVFP4) and Ampere.
Point architecture_point(std::uint32_t seed) {
  Draw d(seed);
  const std::string cluster = d.pick<std::string>({"dgx-a100", "dgx-h100", "hgx-h200", "dgx-b200"});
  const int tp = d.pick({1, 2, 4}), cp = d.pick({1, 1, 2}), pp = d.pick({1, 2, 4}), dp = d.pick({1, 2, 4});
  const int gpus = tp * pp * cp * dp;
  const int per_node = gpus % 8 == 0 ? 8 : gpus;
  const int nodes = gpus / per_node;
  std::string schedule = d.pick<std::string>({"1f1b", "interleaved", "zb-h1", "gpipe"});
  if (schedule == "interleaved" && pp == 1) schedule = "1f1b";
  const bool interleaved = schedule == "interleaved";
  const int v = interleaved ? 2 : 1;
  const int layers = d.pick({8, 12, 16});  // at least pp * v chunks (8 at most)
  std::string split = d.pick<std::string>({"cost", "cost", "even", "even-with-ends"});
  if (split == "even" && layers % (pp * v) != 0) split = "cost";
  if (split == "even-with-ends" && ((layers + 2) % (pp * v) != 0 || pp * v < 2)) split = "cost";
  const int grad_accum = interleaved ? pp * d.pick({1, 2, 3}) : d.pick({1, 2, 4, 8});
  const int seq_len = d.pick({512, 2048});
  // The default scenario's preset (Llama 3 70B) with every shape key drawn anew.
  std::vector<std::string> sets{"model.layers=" + std::to_string(layers),
                                "model.hidden=" + std::to_string(d.pick({512, 1024})),
                                "model.heads=16",
                                "model.kv_heads=" + std::to_string(d.pick({4, 8, 16})),
                                "model.ffn_hidden=" + std::to_string(d.pick({1024, 2816})),
                                "model.vocab=" + std::to_string(d.pick({32000, 50257})),
                                "model.seq_len=" + std::to_string(seq_len),
                                "model.activation=" + d.pick<std::string>({"gelu", "swiglu", "squared_relu"}),
                                "model.norm=" + d.pick<std::string>({"layernorm", "rmsnorm"}),
                                "model.position_embedding=" + d.pick<std::string>({"learned", "rope"}),
                                "model.bias=" + d.pick<std::string>({"true", "false"}),
                                "model.parallel_block=" + d.pick<std::string>({"false", "false", "true"}),
                                "model.attention_sinks=" + d.pick<std::string>({"false", "true"}),
                                "model.qk_norm=" + d.pick<std::string>({"false", "true"})};
  if (d.chance(3)) {  // MLA (DeepSeek-V2/V3)
    sets.push_back("model.kv_lora_rank=128");
    sets.push_back("model.q_lora_rank=" + std::to_string(d.pick({0, 256})));
    sets.push_back("model.qk_rope_head_dim=32");
    sets.push_back("model.qk_nope_head_dim=64");
    sets.push_back("model.v_head_dim=64");
  } else if (d.chance(3)) {
    sets.push_back("model.head_dim=128");
  }
  if (d.chance(3)) {
    sets.push_back("model.sliding_window=" + std::to_string(d.pick({128, 512})));
    sets.push_back("model.full_attention_interval=" + std::to_string(d.pick({0, 2})));
  }
  int ep = 1;
  int expert_tp = tp;
  bool mtp = false;
  bool sequence_parallel = tp > 1 && d.chance(2);
  if (d.chance(2)) {  // mixture of experts
    const int experts = d.pick({8, 16, 64});
    sets.push_back("model.experts=" + std::to_string(experts));
    sets.push_back("model.top_k=" + std::to_string(d.pick({1, 2, 4})));
    sets.push_back("model.moe_ffn_hidden=" + std::to_string(d.pick({0, 256})));
    sets.push_back("model.shared_experts=" + std::to_string(d.pick({0, 1})));
    sets.push_back("model.dense_layers=" + std::to_string(d.pick({0, 1})));
    sets.push_back("model.moe_layer_interval=" + std::to_string(d.pick({1, 2})));
    sets.push_back("model.router_bias=" + d.pick<std::string>({"false", "true"}));
    const std::string capacity = d.pick<std::string>({"0", "1.25"});
    sets.push_back("model.capacity_factor=" + capacity);
    const std::string imbalance = d.pick<std::string>({"0", "0.2"});
    sets.push_back("model.expert_imbalance=" + imbalance);
    // Node-limited routing on 64 experts, a trained router's loads on 16 (no draw: the
    // sequence of the other picks stays as it was).
    if (experts == 64) sets.insert(sets.end(), {"model.router_num_groups=8", "model.router_group_topk=4"});
    if (experts == 16 && imbalance == "0") sets.push_back("model.router_balance=aux_loss");
    if (d.chance(3)) {
      mtp = true;
      sets.push_back("model.mtp_depth=1");
    }
    if (tp > 1 && d.chance(3)) {  // MoE parallel folding: experts unsplit, then EP over the stage's ranks
      expert_tp = 1;
      sequence_parallel = true;
      sets.push_back("parallel.expert_tp=1");
    }
    // Powers of two: ep divides the stage's tp x cp x dp / expert_tp ranks and the experts.
    ep = std::min(d.pick({1, 2, 4, 8}), tp * cp * dp / expert_tp);
    sets.push_back("parallel.ep=" + std::to_string(ep));
    const std::string dispatcher = d.pick<std::string>({"alltoall", "deepep", "hybridep"});
    sets.push_back("parallel.moe_dispatcher=" + dispatcher);
    if (dispatcher != "alltoall") sets.push_back("parallel.moe_dispatcher_sms=" + std::to_string(d.pick({0, 16, 32})));
    // Padding to capacity (Megatron-Core: not with DeepEP); unpadded dropping copies counts to
    // the host in alltoall's preprocess, which no graph may hold.
    const bool pad = capacity != "0" && dispatcher != "deepep" && d.chance(2);
    if (pad) sets.push_back("model.pad_to_capacity=true");
    const bool host_copies = capacity != "0" && !pad && dispatcher == "alltoall";
    sets.push_back("training.cuda_graphs=" +
                   (host_copies ? std::string("none")
                                : d.pick<std::string>({"none", "attn,moe_router,moe_preprocess"})));
  } else {
    sets.push_back("training.cuda_graphs=" + d.pick<std::string>({"none", "attn+mlp", "full_iteration"}));
  }
  const int zero = d.pick({0, 1, 2, 3});
  // HSDP: shard groups of 2 inside dp x cp, each holding whole expert groups.
  if (zero >= 1 && dp * cp % 2 == 0 && 2 * tp % (expert_tp * ep) == 0 && d.chance(3))
    sets.push_back("parallel.zero_shard_size=2");
  std::string precision = d.pick<std::string>({"bf16", "fp8", "mxfp8", "nvfp4"});
  if (precision != "bf16" && cluster == "dgx-a100") precision = "bf16";
  if ((precision == "mxfp8" || precision == "nvfp4") && cluster != "dgx-b200") precision = "fp8";
  const std::vector<std::string> layout{
      "cluster.preset=" + cluster,
      "cluster.nodes=" + std::to_string(nodes),
      "cluster.gpus_per_node=" + std::to_string(per_node),
      "cluster.nvlink_domain=" + std::to_string(per_node == 8 && nodes % 2 == 0 && d.chance(3) ? 16 : 0),
      "cluster.fabric=" + d.pick<std::string>({"rail-optimized", "fat-tree"}),
      "parallel.tp=" + std::to_string(tp),
      "parallel.pp=" + std::to_string(pp),
      "parallel.cp=" + std::to_string(cp),
      "parallel.dp=" + std::to_string(dp),
      "parallel.cp_algo=" + d.pick<std::string>({"ring", "all-gather"}),
      "parallel.zero=" + std::to_string(zero),
      "parallel.sequence_parallel=" + std::string(sequence_parallel ? "true" : "false"),
      "parallel.tp_comm_overlap=" + std::string(sequence_parallel && d.chance(2) ? "true" : "false"),
      "parallel.overlap_param_gather=" + d.pick<std::string>({"false", "true"}),
      "parallel.order=" + d.pick<std::string>({"tp-cp-pp-dp", "tp-cp-dp-pp"}),
      "parallel.schedule=" + schedule,
      "parallel.virtual_stages=" + std::to_string(v),
      // Llama 3's micro-batch groups: between pp and the micro-batch count.
      "parallel.microbatch_group=" + std::to_string(interleaved && d.chance(2) ? grad_accum : 0),
      "parallel.stage_split=" + split,
      "training.precision=" + precision,
      "training.recompute=" + d.pick<std::string>({"none", "selective", "full"}),
      "training.micro_batch=" + std::to_string(d.pick({1, 2})),
      "training.grad_accum=" + std::to_string(grad_accum),
      "run.seed=" + std::to_string(d.pick({1, 7})),
  };
  sets.insert(sets.end(), layout.begin(), layout.end());
  // Megatron-Core's pipeline layout in place of the cost split (drawn last, so the points
  // drawn before it stay as they were): the first chunk holds the embedding alone, the others
  // the layers dealt out unevenly, the last the rest (none, perhaps), the MTP layer and the loss.
  const int chunks = pp * v;
  if (split == "cost" && chunks > 1 && d.chance(3)) {
    std::string text = "E";
    int left = layers;
    for (int c = 1; c < chunks; ++c) {
      const int here = c == chunks - 1 ? left : std::min(left, layers / (chunks - 1) + c % 2);
      text += "|t*" + std::to_string(here);
      left -= here;
    }
    sets.push_back("parallel.pipeline_layout=" + text + (mtp ? "mL" : "L"));
  }
  return point(sets);
}

// A whole run of a small job: failures, checkpoints, maintenance, spares, elastic policies.
Point run_point(std::uint32_t seed) {
  Draw d(seed);
  const int nodes = d.pick({2, 4, 8, 16, 64});
  const bool shrink = d.chance(2);
  std::vector<std::string> sets{"model.preset=llama3-8b", "parallel.tp=8", "parallel.pp=1",
                                "cluster.nodes=" + std::to_string(nodes), "parallel.dp=" + std::to_string(nodes),
                                "training.grad_accum=" + std::to_string(d.pick({1, 4})),
                                d.chance(2) ? "run.duration=" + d.pick<std::string>({"1h", "12h", "3d", "20d"})
                                            : "run.train_steps=" + d.pick<std::string>({"10", "1000", "20000"}),
                                "failures.mtbf=" + d.pick<std::string>({"0s", "10d", "100d", "1000d", "0.05/day"}),
                                "failures.unit=" + d.pick<std::string>({"node", "gpu"}),
                                "failures.distribution=" + d.pick<std::string>({"exponential", "weibull"}),
                                "failures.causes=" + d.pick<std::string>({"llama3", "hardware"}),
                                "failures.spare_nodes=" + d.pick<std::string>({"unlimited", "0", "1", "4"}),
                                "failures.repair=" + d.pick<std::string>({"1h", "1d", "5d"}),
                                "checkpoint.interval=" + d.pick<std::string>({"auto", "5min", "1h", "100steps"}),
                                "checkpoint.mode=" + d.pick<std::string>({"sync", "async"}),
                                "checkpoint.save_data_cursor=" + d.pick<std::string>({"true", "false"}),
                                "checkpoint.sampler=" + d.pick<std::string>({"global", "per_rank"}),
                                // Shrinking reloads the checkpoint at another size: it must be reshardable.
                                "checkpoint.reshardable=" + std::string(shrink ? "true" : "false"),
                                "elastic.policy=" + std::string(shrink ? "shrink" : "wait"),
                                "elastic.grow=" + d.pick<std::string>({"auto", "always", "never"}),
                                "elastic.global_batch=" + d.pick<std::string>({"keep", "scale"}),
                                "elastic.min_dp=" + std::to_string(d.pick({1, 2, nodes})),
                                "run.seed=" + std::to_string(d.pick({1, 7, 42, 1000}))};
  if (d.chance(3)) {
    sets.push_back("failures.maintenance_interval=" + d.pick<std::string>({"6h", "2d"}));
    sets.push_back("failures.maintenance_downtime=" + d.pick<std::string>({"10min", "2h"}));
  }
  return point(sets);
}

class RandomStep : public ::testing::TestWithParam<int> {};
class RandomArchitecture : public ::testing::TestWithParam<int> {};
class RandomArchitectureTwice : public ::testing::TestWithParam<int> {};
class RandomRun : public ::testing::TestWithParam<int> {};

void expect_step_invariants(const Point& p) {
  const auto r = run_trainsim(p.args);
  ASSERT_EQ(r.exit_code, 0) << p.command_line() << "\n" << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double step = j["step_time_s"].get<double>();
  ASSERT_GT(step, 0) << p.command_line();
  double sum = 0;
  for (const auto& [name, seconds] : j["breakdown_s"].items()) {
    EXPECT_GE(seconds.get<double>(), 0) << name << ": " << p.command_line();
    sum += seconds.get<double>();
  }
  EXPECT_NEAR(sum, step, 1e-6 * step) << p.command_line();
  EXPECT_GT(j["mfu"].get<double>(), 0) << p.command_line();
  EXPECT_LT(j["mfu"].get<double>(), 1) << p.command_line();
  EXPECT_GE(j["hfu"].get<double>(), j["mfu"].get<double>() * (1 - 1e-12)) << p.command_line();
  EXPECT_LE(j["hfu"].get<double>(), 1.0) << p.command_line();
  EXPECT_GE(j["bubble_fraction"].get<double>(), 0) << p.command_line();
  EXPECT_LT(j["bubble_fraction"].get<double>(), 1) << p.command_line();
  EXPECT_GT(j["peak_memory_bytes"].get<double>(), 0) << p.command_line();
}

TEST_P(RandomStep, SimulatesAndItsBreakdownAddsUp) {
  expect_step_invariants(step_point(static_cast<std::uint32_t>(GetParam())));
}

TEST_P(RandomArchitecture, SimulatesAndItsBreakdownAddsUp) {
  expect_step_invariants(architecture_point(static_cast<std::uint32_t>(GetParam())));
}

// Same scenario and seed, same report, bit for bit (the simulator's wall time aside): the
// expert-imbalance draws, the plan caches and the sparse platform must not depend on anything
// else. nlohmann::json prints doubles to round-trip precision, so equal text is equal bits.
TEST_P(RandomArchitectureTwice, SameSeedSameReport) {
  const Point p = architecture_point(static_cast<std::uint32_t>(GetParam()));
  const auto report = [&] {
    const auto r = run_trainsim(p.args);
    EXPECT_EQ(r.exit_code, 0) << p.command_line() << "\n" << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    j.erase("sim_wall_s");
    return j.dump();
  };
  EXPECT_EQ(report(), report()) << p.command_line();
}

TEST_P(RandomRun, AccountsForEveryWallClockSecond) {
  const Point p = run_point(static_cast<std::uint32_t>(GetParam()));
  const auto r = run_trainsim(p.args);
  ASSERT_EQ(r.exit_code, 0) << p.command_line() << "\n" << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("run")) << p.command_line();
  const auto& run = j["run"];
  const double wall = run["wall_time_s"].get<double>();
  const double accounted = run["useful_time_s"].get<double>() + run["checkpoint_overhead_s"].get<double>() +
                           run["lost_work_s"].get<double>() + run["restart_overhead_s"].get<double>() +
                           run["waiting_for_nodes_s"].get<double>() + run["unfinished_step_s"].get<double>();
  EXPECT_NEAR(accounted, wall, 1e-6 * wall) << p.command_line();
  const double ettr = run["effective_training_time_ratio"].get<double>();
  EXPECT_GT(ettr, 0) << p.command_line();
  EXPECT_LE(ettr, 1) << p.command_line();
  for (const char* key : {"lost_work_s", "restart_overhead_s", "samples_duplicated", "samples_skipped"})
    EXPECT_GE(run[key].get<double>(), 0) << key << ": " << p.command_line();
  EXPECT_LE(run["global_batch_min"].get<double>(), run["global_batch_max"].get<double>()) << p.command_line();
  EXPECT_GE(run["min_dp"].get<double>(), 1) << p.command_line();
}

INSTANTIATE_TEST_SUITE_P(Seeded, RandomStep, ::testing::Range(0, 32));
INSTANTIATE_TEST_SUITE_P(Seeded, RandomArchitecture, ::testing::Range(0, 64));
INSTANTIATE_TEST_SUITE_P(Seeded, RandomArchitectureTwice, ::testing::Range(0, 64, 4));  // one point in four
INSTANTIATE_TEST_SUITE_P(Seeded, RandomRun, ::testing::Range(0, 24));

}  // namespace
}  // namespace trainsim
