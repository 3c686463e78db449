// The composed memory budget: first-stage totals (Korthikanti et al. eq. 5), the worked
// examples of the foundation issue, and the invariants of global batch accounting.

#include <gtest/gtest.h>

#include "models/memory_budget.hpp"
#include "models/model_presets.hpp"
#include "models/model_state_memory.hpp"

namespace trainsim {
namespace {

constexpr double k_gb = 1e9;
constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

struct Config {
  ModelSpec model = *model_preset("gpt3-175b");
  TrainingSpec training;
  ParallelSpec parallel;
  MemoryReport run(double capacity = 80 * k_gib) const { return estimate_memory(model, training, parallel, capacity); }
};

// GPT-3 175B, TP 8 + SP, PP 8, unfused attention, as in Korthikanti et al.
Config gpt3_pipeline(Schedule schedule, int virtual_stages, int microbatches) {
  Config s;
  s.training.micro_batch = 1;
  s.training.grad_accum = microbatches;
  s.training.attention = AttentionKernel::standard;
  s.parallel.tp = 8;
  s.parallel.pp = 8;
  s.parallel.sequence_parallel = true;
  s.parallel.schedule = schedule;
  s.parallel.virtual_stages = virtual_stages;
  return s;
}

// Korthikanti eq. 5 (first stage, 1F1B, TP+SP): (s b h L / t)(34 + 5 a s / h), plus the
// embedding-dropout term of App. B, s b h p / t.
double eq5_first_stage(const ModelSpec& m, int t, int p) {
  const double s = m.seq_len, h = m.hidden, a = m.heads, L = m.layers;
  return s * h * L / t * (34 + 5 * a * s / h) + s * h * p / t;
}

TEST(MemoryBudget, OneFOneBFirstStageMatchesEq5) {
  const Config s = gpt3_pipeline(Schedule::one_f_one_b, 1, 16);
  const MemoryReport r = s.run();
  ASSERT_EQ(r.stages.size(), 8u);
  EXPECT_EQ(r.stages[0].layers, 12);
  EXPECT_NEAR(r.stages[0].bytes.activations / eq5_first_stage(s.model, 8, 8), 1.0, 1e-12);
  // Independent of p: the first stage of PP 4 holds the same.
  Config p4 = s;
  p4.parallel.pp = 4;
  const double pp4 = p4.run().stages[0].bytes.activations;
  EXPECT_NEAR(pp4 / eq5_first_stage(s.model, 8, 4), 1.0, 1e-12);
  // Later stages hold fewer micro-batches.
  for (size_t i = 1; i < r.stages.size(); ++i)
    EXPECT_LT(r.stages[i].bytes.activations, r.stages[i - 1].bytes.activations + 1.0);
}

TEST(MemoryBudget, InterleavedFirstStageFactor) {
  const Config s = gpt3_pipeline(Schedule::interleaved, 2, 16);
  const MemoryReport r = s.run();
  const double factor = 1.0 + (8.0 - 1.0) / (8.0 * 2.0);  // Korthikanti §4.2.3: 1 + (p-1)/(p m)
  EXPECT_NEAR(r.stages[0].bytes.activations / (eq5_first_stage(s.model, 8, 8) * factor), 1.0, 1e-12);
}

TEST(MemoryBudget, GpipeHoldsEveryMicrobatch) {
  const Config one = gpt3_pipeline(Schedule::one_f_one_b, 1, 16);
  const Config gpipe = gpt3_pipeline(Schedule::gpipe, 1, 16);
  // 16 micro-batches instead of 8 on the first stage.
  EXPECT_NEAR(gpipe.run().stages[0].bytes.activations / one.run().stages[0].bytes.activations, 2.0, 1e-12);
}

TEST(MemoryBudget, SevenBillionWeightsFitButTrainingDoesNot) {
  Config s;
  s.model = *model_preset("llama2-7b");
  s.training.precision = Precision::fp16;
  const MemoryReport r = s.run(80 * k_gib);
  const StageMemory& st = r.stages.at(0);
  // fp16 weights of a 7B model: ~14 GB.
  EXPECT_GT(st.bytes.weights / k_gb, 13.0);
  EXPECT_LT(st.bytes.weights / k_gb, 14.5);
  // Full fine-tuning with mixed-precision Adam: 16 bytes/parameter of model states (12-20).
  const double per_param = (st.bytes.weights + st.bytes.gradients + st.bytes.optimizer_states) / r.parameters;
  EXPECT_GE(per_param, 12.0);
  EXPECT_LE(per_param, 20.0);
  EXPECT_GE(st.bytes.total() / k_gb, 100.0);
  EXPECT_FALSE(r.fits());
  EXPECT_FALSE(s.run(24 * k_gb).fits());
  EXPECT_LT(st.headroom_bytes(), 0.0);
}

TEST(MemoryBudget, GlobalBatchCountsDataParallelOnly) {
  Config s;
  s.model = *model_preset("llama3-8b");
  s.training.micro_batch = 4;
  s.training.grad_accum = 8;
  s.parallel.dp = 8;
  EXPECT_EQ(s.run().global_batch_samples, 256);
  EXPECT_EQ(s.run().tokens_per_step, 256.0 * 8192);

  // DP 8 x TP 4 x PP 2 on 64 GPUs: the batch is counted from DP alone.
  s.training.micro_batch = 1;
  s.training.grad_accum = 16;
  s.parallel.tp = 4;
  s.parallel.pp = 2;
  EXPECT_EQ(s.run().global_batch_samples, 1 * 16 * 8);
  const double tokens = s.run().tokens_per_step;
  for (int tp : {1, 2, 8}) {
    for (int pp : {1, 4}) {
      Config other = s;
      other.parallel.tp = tp;
      other.parallel.pp = pp;
      EXPECT_EQ(other.run().global_batch_samples, 128);
      EXPECT_EQ(other.run().tokens_per_step, tokens);
    }
  }
  Config with_cp = s;
  with_cp.parallel.cp = 2;
  EXPECT_EQ(with_cp.run().global_batch_samples, 128);
}

TEST(MemoryBudget, ZeroStagesShrinkModelStatesAcrossTheGradientGroup) {
  Config s;
  s.model = *model_preset("llama3-8b");
  s.parallel.dp = 8;
  double previous = s.run().stages[0].bytes.total();
  for (int zero = 1; zero <= 3; ++zero) {
    s.parallel.zero = zero;
    const double now = s.run().stages[0].bytes.total();
    EXPECT_LT(now, previous) << "zero " << zero;
    previous = now;
  }
  // Context parallel ranks join the sharding group (Megatron-LM's DP x CP group).
  s.parallel.zero = 1;
  const double dp8 = s.run().stages[0].bytes.optimizer_states;
  s.parallel.cp = 2;
  EXPECT_NEAR(s.run().stages[0].bytes.optimizer_states, dp8 / 2, 1.0);
}

TEST(MemoryBudget, RecomputeOrdersActivations) {
  Config s;
  s.model = *model_preset("llama3-70b");
  s.parallel.tp = 8;
  s.parallel.pp = 4;
  s.parallel.sequence_parallel = true;
  s.training.grad_accum = 8;
  s.training.recompute = Recompute::none;
  const double none = s.run().stages[0].bytes.activations;
  s.training.recompute = Recompute::selective;
  const double selective = s.run().stages[0].bytes.activations;
  s.training.recompute = Recompute::full;
  const double full = s.run().stages[0].bytes.activations;
  EXPECT_LE(selective, none);
  EXPECT_LT(full, selective);
  // Full recomputation of some layers per chunk (Megatron-LM's block method): the others
  // keep everything. 20 layers per stage, 5 recomputed: a quarter of the way to `full`.
  s.training.recompute = Recompute::full;
  s.training.recompute_layers = 5;
  const double some = s.run().stages[0].bytes.activations;
  EXPECT_GT(some, full);
  EXPECT_LT(some, none);
  s.training.recompute_layers = 20;
  EXPECT_DOUBLE_EQ(s.run().stages[0].bytes.activations, full);
}

TEST(MemoryBudget, CpuOffloadMovesOptimizerStatesToHost) {
  Config s;
  s.model = *model_preset("llama3-8b");
  s.parallel.dp = 8;
  s.parallel.zero = 2;
  const StageMemory on_gpu = s.run().stages[0];
  s.training.offload = Offload::cpu;
  const StageMemory offloaded = s.run().stages[0];
  EXPECT_EQ(offloaded.bytes.optimizer_states, 0.0);
  EXPECT_EQ(offloaded.bytes.gradients, 0.0);
  EXPECT_DOUBLE_EQ(offloaded.offloaded_bytes, on_gpu.bytes.optimizer_states + on_gpu.bytes.gradients);
  EXPECT_DOUBLE_EQ(offloaded.bytes.weights, on_gpu.bytes.weights);
}

TEST(MemoryBudget, ExpertsShardOverExpertParallelRanks) {
  Config s;
  s.model = *model_preset("mixtral-8x7b");
  s.parallel.dp = 8;
  const double ep1 = s.run().stages[0].parameters_per_gpu;
  s.parallel.ep = 8;
  const double ep8 = s.run().stages[0].parameters_per_gpu;
  const double mlp_all_experts = 32.0 * 8 * 3.0 * 4096 * 14336;
  EXPECT_NEAR(ep1 - ep8, mlp_all_experts * (1.0 - 1.0 / 8), 1.0);
}

TEST(MemoryBudget, DeepEpBuffersHoldEachTokenOncePerDestinationRank) {
  // Mixtral (8 experts, top 2): the alltoall dispatcher's dispatch and combine buffers hold
  // top_k = 2 rows per token, DeepEP's its expected destination ranks (moe_dispatch.hpp): at
  // EP 4 (two experts a rank) 4 (1 - C(6, 2) / C(8, 2)) = 1.857; at EP 8 (one each) exactly 2.
  Config s;
  s.model = *model_preset("mixtral-8x7b");
  s.parallel.dp = 4;
  s.parallel.ep = 4;
  const double tokens = static_cast<double>(s.model.seq_len) * s.training.micro_batch;
  const double alltoall = s.run().stages[0].bytes.comm_buffers;
  s.parallel.moe_dispatcher = MoeDispatcher::deepep;
  const double deepep = s.run().stages[0].bytes.comm_buffers;
  const double element = 2.0;  // bf16
  EXPECT_NEAR(alltoall - deepep, 2.0 * tokens * (2.0 - 4.0 * (1.0 - 15.0 / 28.0)) * 4096 * element, 1.0);
  s.parallel.ep = 8;
  s.parallel.dp = 8;
  const double one_expert_each = s.run().stages[0].bytes.comm_buffers;
  s.parallel.moe_dispatcher = MoeDispatcher::alltoall;
  EXPECT_NEAR(s.run().stages[0].bytes.comm_buffers, one_expert_each, 1e-6);
}

TEST(MemoryBudget, ReportNamesThePeakStageAndVerdict) {
  Config s = gpt3_pipeline(Schedule::one_f_one_b, 1, 16);
  const MemoryReport r = s.run(80 * k_gib);
  EXPECT_EQ(r.peak_stage().stage, 0);
  for (const StageMemory& st : r.stages) {
    EXPECT_DOUBLE_EQ(st.headroom_bytes(), 80 * k_gib - st.bytes.total());
    EXPECT_EQ(st.fits(), st.bytes.total() <= 80 * k_gib);
    EXPECT_NEAR(st.bytes.fragmentation,
                s.training.fragmentation_fraction * (st.bytes.total() - st.bytes.framework - st.bytes.fragmentation),
                1.0);
  }
}

TEST(MemoryBudget, CostSplitCostsEveryLayerAsItsKind) {
  // full_attention_interval = 1 makes every layer attend over the whole sequence: the layers
  // cost what they cost without the window, and the stages split alike.
  const ModelSpec full = *model_preset("llama3-8b");
  ModelSpec overridden = full;
  overridden.sliding_window = 128;
  overridden.full_attention_interval = 1;
  ParallelSpec p;
  p.pp = 4;
  const std::vector<ModelChunk> expected = balanced_chunks(full, p);
  const std::vector<ModelChunk> chunks = balanced_chunks(overridden, p);
  ASSERT_EQ(chunks.size(), expected.size());
  for (size_t i = 0; i < chunks.size(); ++i) EXPECT_EQ(chunks[i].layers, expected[i].layers) << "chunk " << i;
}

}  // namespace
}  // namespace trainsim
