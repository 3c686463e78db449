// The workload generator's FLOP counts against Megatron-LM's (Narayanan et al. SC21 eq. 3).

#include <gtest/gtest.h>

#include "models/layer_cost.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "tests/models/find_op.hpp"

namespace trainsim {
namespace {

struct Case {
  ModelSpec model = *model_preset("gpt3-175b");
  TrainingSpec training;
  ParallelSpec parallel;
  Case() { training.attention = AttentionKernel::standard; }
};

double layer_forward_megatron(const ModelSpec& m, double b) {
  const double s = m.seq_len, h = m.hidden;
  return 24 * b * s * h * h + 4 * b * s * s * h;
}

TEST(LayerWorkload, ForwardFlopsOfAGptLayer) {
  Case c;
  c.training.micro_batch = 2;
  const PassOps ops = transformer_layer_ops(c.model, c.training, c.parallel);
  EXPECT_NEAR(total_flops(ops.forward) / layer_forward_megatron(c.model, 2), 1.0, 1e-12);
  EXPECT_NEAR(total_flops(ops.backward) / total_flops(ops.forward), 2.0, 1e-12);
  EXPECT_TRUE(ops.recompute.empty());
}

TEST(LayerWorkload, TensorParallelDividesTheWork) {
  for (int t : {2, 4, 8}) {
    Case c;
    c.parallel.tp = t;
    c.parallel.sequence_parallel = true;
    const PassOps ops = transformer_layer_ops(c.model, c.training, c.parallel);
    EXPECT_NEAR(total_flops(ops.forward) * t / layer_forward_megatron(c.model, 1), 1.0, 1e-12) << t;
  }
}

TEST(LayerWorkload, WholeModelWithFullRecomputeIsEq3) {
  // F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per batch B, with full recomputation.
  Case c;
  c.training.recompute = Recompute::full;
  const ModelSpec& m = c.model;
  const PassOps layer = transformer_layer_ops(m, c.training, c.parallel);
  const PassOps out = output_ops(m, c.training, c.parallel);
  const double per_layer = total_flops(layer.forward) + total_flops(layer.recompute) + total_flops(layer.backward);
  const double total = m.layers * per_layer + total_flops(out.forward) + total_flops(out.backward);
  const double s = m.seq_len, h = m.hidden, l = m.layers, v = m.vocab;
  EXPECT_NEAR(total / (96 * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))), 1.0, 1e-12);
}

TEST(LayerWorkload, SelectiveRecomputeRepeatsCoreAttentionOnly) {
  Case c;
  c.training.recompute = Recompute::selective;
  const PassOps ops = transformer_layer_ops(c.model, c.training, c.parallel);
  const double s = c.model.seq_len, h = c.model.hidden;
  EXPECT_NEAR(total_flops(ops.recompute), 4 * s * s * h, 1.0);  // Q K^T and P V
  for (const Op& op : ops.recompute) {
    EXPECT_EQ(op.pass, OpPass::recompute);
    EXPECT_EQ(op.name.rfind("attention.", 0), 0u) << op.name;
  }
}

TEST(LayerWorkload, FusedCausalAttentionExecutesHalfTheCountedWork) {
  Case c;
  c.training.attention = AttentionKernel::flash;
  const PassOps ops = transformer_layer_ops(c.model, c.training, c.parallel);
  const Op* fwd = nullptr;
  const Op* bwd = nullptr;
  for (const Op& op : ops.forward)
    if (op.kind == OpKind::attention) fwd = &op;
  for (const Op& op : ops.backward)
    if (op.kind == OpKind::attention) bwd = &op;
  ASSERT_TRUE(fwd && bwd);
  EXPECT_DOUBLE_EQ(fwd->flops, 0.5 * fwd->model_flops);
  EXPECT_DOUBLE_EQ(bwd->flops, 2.5 * fwd->flops);
  EXPECT_DOUBLE_EQ(bwd->model_flops, 2.0 * fwd->model_flops);
  // Model FLOPs do not depend on the kernel.
  Case standard;
  EXPECT_DOUBLE_EQ(total_flops(ops.forward),
                   total_flops(transformer_layer_ops(standard.model, standard.training, standard.parallel).forward));
}

TEST(LayerWorkload, WeightGradientsAreSeparateOps) {
  Case c;
  const PassOps ops = transformer_layer_ops(c.model, c.training, c.parallel);
  double weight = 0, input = 0;
  for (const Op& op : ops.backward) (op.weight_gradient ? weight : input) += op.model_flops;
  // Every weight GEMM has a dgrad and a wgrad of equal FLOPs: 24 b s h^2 of W per GPT layer.
  const double s = c.model.seq_len, h = c.model.hidden;
  EXPECT_NEAR(weight, 24 * s * h * h, 1.0);
  EXPECT_NEAR(input, 24 * s * h * h + 8 * s * s * h, 1.0);
}

TEST(LayerWorkload, ExpertsProcessTopKTokensEach) {
  Case c;
  c.model = *model_preset("mixtral-8x7b");
  c.parallel.ep = 8;
  c.parallel.dp = 8;
  const PassOps ops = transformer_layer_ops(c.model, c.training, c.parallel);
  double experts = 0;
  for (const Op& op : ops.forward)
    if (op.name.rfind("experts.", 0) == 0) experts += op.model_flops;
  const double tokens = c.model.seq_len;
  EXPECT_NEAR(experts, 2.0 * tokens * c.model.top_k * 3.0 * c.model.hidden * c.model.ffn_hidden, 1.0);
}

TEST(LayerWorkload, OptimizerReadsAndWritesEveryState) {
  TrainingSpec tr;
  // bf16 training keeps fp32 gradients by default (Megatron-LM): 12 B of states read and
  // written, 4 B of gradient read, 2 B of weights written.
  EXPECT_DOUBLE_EQ(optimizer_op(1e9, tr).bytes, 1e9 * (2 * 12 + 4 + 2));
}

}  // namespace
}  // namespace trainsim


namespace trainsim {
namespace {

// Stage balancing (models/layer_cost.hpp) counts a layer's forward FLOPs by formula; the
// workload counts them op by op. The two must agree, or stages are balanced on other work
// than the simulation executes.
TEST(LayerWorkload, StageBalancingCountsTheSameForwardFlops) {
  for (const char* name : {"gpt3-175b", "llama3-8b", "llama3-70b", "mixtral-8x7b"}) {
    const ModelSpec m = *model_preset(name);
    TrainingSpec tr;
    tr.micro_batch = 2;
    const ParallelSpec p;
    const double tokens = static_cast<double>(tr.micro_batch) * m.seq_len;
    EXPECT_NEAR(total_flops(transformer_layer_ops(m, tr, p).forward) / tokens, layer_forward_flops_per_token(m),
                1e-9 * layer_forward_flops_per_token(m))
        << name;
    EXPECT_NEAR(total_flops(output_ops(m, tr, p).forward) / tokens, output_forward_flops_per_token(m),
                1e-9 * output_forward_flops_per_token(m))
        << name;
  }
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

using testing::find_op;

// Transformer Engine fp8 with current scaling: the linear layers' GEMMs in fp8, each input
// and output gradient read for its amax, then read and written twice as fp8 on Hopper (6 bytes
// an element: models/cast_ops.hpp); attention and the output layer stay bf16.
TEST(LayerWorkload, Fp8QuantizesEveryLinearGemmsOperands) {
  const ModelSpec m = *model_preset("llama3-8b");
  TrainingSpec tr;
  tr.precision = Precision::fp8;
  ParallelSpec p;
  p.tp = 4;
  p.sequence_parallel = true;
  const PassOps ops = transformer_layer_ops(m, tr, p);
  const double tokens = m.seq_len, h = m.hidden;
  for (const char* gemm : {"qkv", "attention.proj", "mlp.up", "mlp.down"}) {
    const Op* op = find_op(ops.forward, gemm);
    ASSERT_NE(op, nullptr) << gemm;
    EXPECT_EQ(op->precision, Precision::fp8) << gemm;
    ASSERT_NE(find_op(ops.forward, std::string(gemm) + ".quantize"), nullptr) << gemm;
    ASSERT_NE(find_op(ops.backward, std::string(gemm) + ".quantize.bwd"), nullptr) << gemm;
  }
  // Hidden-width tensors are quantized on this rank's sequence shard, before the all-gather,
  // row-wise only on Hopper (amax 2, cast 2 + 1 bytes); the backward transposes each gathered
  // tensor (1 + 1 bytes an element of all T rows) for the weight-gradient GEMM.
  EXPECT_DOUBLE_EQ(find_op(ops.forward, "qkv.quantize")->bytes, 5.0 * tokens / 4 * h);
  EXPECT_DOUBLE_EQ(find_op(ops.backward, "mlp.down.quantize.bwd")->bytes, 5.0 * tokens / 4 * h);
  for (const char* gathered :
       {"qkv.quantize", "mlp.up.quantize", "attention.proj.quantize.bwd", "mlp.down.quantize.bwd"}) {
    const Op* transpose = find_op(ops.backward, std::string(gathered) + ".transpose");
    ASSERT_NE(transpose, nullptr) << gathered;
    EXPECT_DOUBLE_EQ(transpose->bytes, 2.0 * tokens * h) << gathered;
  }
  // The rest is not gathered: cast both ways where it is, no transpose.
  EXPECT_EQ(find_op(ops.backward, "mlp.down.quantize.transpose"), nullptr);
  EXPECT_EQ(find_op(ops.backward, "qkv.quantize.bwd.transpose"), nullptr);
  // Without sequence parallelism, or on Blackwell, nothing is transposed after a gather.
  ParallelSpec no_sp = p;
  no_sp.sequence_parallel = false;
  TrainingSpec blackwell = tr;
  blackwell.fp8_single_copy = true;
  for (const PassOps& other : {transformer_layer_ops(m, tr, no_sp), transformer_layer_ops(m, blackwell, p)})
    for (const Op& op : other.backward) EXPECT_EQ(op.name.find(".transpose"), std::string::npos) << op.name;
  // The others on the whole local slice: the MLP's second input, f / t wide.
  EXPECT_DOUBLE_EQ(find_op(ops.forward, "mlp.down.quantize")->bytes, 6.0 * tokens * m.ffn_hidden / 4);
  EXPECT_EQ(find_op(ops.forward, "attention")->precision, Precision::bf16);
  EXPECT_EQ(find_op(output_ops(m, tr, p).forward, "logits")->precision, Precision::bf16);
  // bf16 training adds none of it.
  const PassOps plain = transformer_layer_ops(m, TrainingSpec{}, p);
  for (const Op& op : plain.forward) EXPECT_EQ(op.name.find("quantize"), std::string::npos) << op.name;
}

// MXFP8 and NVFP4: every linear GEMM in the format, its input cast forward and its output
// gradient backward at the format's bytes, its weight's scales swizzled before the forward and
// the input-gradient GEMM; a layer first_last_layers_bf16 keeps in bf16 casts nothing.
TEST(LayerWorkload, BlockScaledFormatsCastAtTheirBytesAndBf16LayersCastNothing) {
  const ModelSpec m = *model_preset("llama3-8b");
  const double tokens = m.seq_len, h = m.hidden;
  for (const Precision p : {Precision::mxfp8, Precision::nvfp4}) {
    TrainingSpec tr;
    tr.precision = p;
    const PassOps ops = transformer_layer_ops(m, tr, ParallelSpec{});
    const bool mx = p == Precision::mxfp8;
    const double per_element = mx ? 2.0 + 2.0 * (1.0 + 1.0 / 32) : 2.0 + 2.0 + 2.0 * (0.5 + 1.0 / 16);
    // The output projection keeps its 16-bit input (models/original_input_casts.hpp): its
    // forward cast writes the row-wise copy alone.
    const double row_wise = mx ? 2.0 + 1.0 + 1.0 / 32 : 2.0 + 2.0 + 0.5 + 1.0 / 16;
    // The weight's scales (h x h of the output projection) swizzled for the GEMM: read, written.
    const double swizzle = 2.0 * h * h * (mx ? 1.0 / 32 : 1.0 / 16);
    EXPECT_DOUBLE_EQ(find_op(ops.forward, "attention.proj.quantize")->bytes, row_wise * tokens * h + swizzle);
    EXPECT_EQ(find_op(ops.forward, "attention.proj.quantize")->kernels, mx ? 2 : 3);
    EXPECT_DOUBLE_EQ(find_op(ops.backward, "attention.proj.quantize.bwd")->bytes, per_element * tokens * h + swizzle);
    EXPECT_EQ(find_op(ops.forward, "mlp.up")->precision, p);
    const PassOps bf16 = transformer_layer_ops(m, tr, ParallelSpec{}, true);
    for (const std::vector<Op>* pass : {&bf16.forward, &bf16.backward})
      for (const Op& op : *pass) {
        EXPECT_EQ(op.name.find("quantize"), std::string::npos) << op.name;
        EXPECT_EQ(op.name.find("swizzle"), std::string::npos) << op.name;
        EXPECT_NE(op.precision, p) << op.name;
      }
  }
}

// fp8_dot_product_attention: the attention kernels in fp8 at one byte an element, Q, K and V
// cast before them and the output's gradient before the backward.
TEST(LayerWorkload, Fp8AttentionRunsInFp8BetweenItsCasts) {
  const ModelSpec m = *model_preset("llama3-8b");
  TrainingSpec tr;
  tr.precision = Precision::nvfp4;
  const PassOps bf16 = transformer_layer_ops(m, tr, ParallelSpec{});
  tr.attention_precision = Precision::fp8;
  const PassOps fp8 = transformer_layer_ops(m, tr, ParallelSpec{});
  EXPECT_EQ(find_op(bf16.forward, "attention")->precision, Precision::bf16);
  EXPECT_EQ(find_op(fp8.forward, "attention")->precision, Precision::fp8);
  EXPECT_EQ(find_op(fp8.backward, "attention.bwd")->precision, Precision::fp8);
  EXPECT_DOUBLE_EQ(find_op(fp8.forward, "attention")->bytes, find_op(bf16.forward, "attention")->bytes / 2);
  EXPECT_DOUBLE_EQ(find_op(fp8.forward, "attention")->flops, find_op(bf16.forward, "attention")->flops);
  // Q (heads) and K, V (kv heads), head_dim each: amax 2 bytes, cast 2 in and 1 out.
  const double qkv = m.seq_len * (m.heads + 2.0 * m.kv_heads) * m.head_dim();
  EXPECT_DOUBLE_EQ(find_op(fp8.forward, "attention.quantize")->bytes, 5.0 * qkv);
  EXPECT_DOUBLE_EQ(find_op(fp8.backward, "attention.quantize.bwd")->bytes, 5.0 * m.seq_len * m.heads * m.head_dim());
  EXPECT_EQ(find_op(bf16.forward, "attention.quantize"), nullptr);
}

TEST(LayerWorkload, RotaryEmbeddingOnlyWithRope) {
  ModelSpec m = *model_preset("llama3-8b");
  const PassOps rope = transformer_layer_ops(m, TrainingSpec{}, ParallelSpec{});
  const Op* op = find_op(rope.forward, "attention.rope");
  ASSERT_NE(op, nullptr);
  // Q and K read and written once: (heads + kv_heads) head_dim values per token, bf16.
  EXPECT_DOUBLE_EQ(op->bytes, 2.0 * m.seq_len * (m.heads + m.kv_heads) * m.head_dim() * 2.0);
  ASSERT_NE(find_op(rope.backward, "attention.rope.bwd"), nullptr);
  EXPECT_DOUBLE_EQ(find_op(rope.backward, "attention.rope.bwd")->bytes, op->bytes);
  m.position = PositionEmbedding::learned;
  EXPECT_EQ(find_op(transformer_layer_ops(m, TrainingSpec{}, ParallelSpec{}).forward, "attention.rope"), nullptr);
}

TEST(LayerWorkload, TpCommOverlapSplitsTheRingExchangeGemms) {
  const ModelSpec m = *model_preset("llama3-70b");
  ParallelSpec p;
  p.tp = 8;
  p.sequence_parallel = true;
  p.tp_comm_overlap = true;
  const PassOps ops = transformer_layer_ops(m, TrainingSpec{}, p);
  for (const char* name : {"qkv", "mlp.up"}) EXPECT_EQ(find_op(ops.forward, name)->splits, 8);
  // BF16: the forward reduce-scatters pipelined in Transformer Engine's 4 chunks
  // (models/tp_overlap.hpp); FP8: ring exchanges in tp chunks; or as the scenario says.
  for (const char* name : {"attention.proj", "mlp.down"}) EXPECT_EQ(find_op(ops.forward, name)->splits, 4);
  TrainingSpec fp8;
  fp8.precision = Precision::fp8;
  const PassOps ring = transformer_layer_ops(m, fp8, p);
  for (const char* name : {"attention.proj", "mlp.down"}) EXPECT_EQ(find_op(ring.forward, name)->splits, 8);
  ParallelSpec bulk = p;
  bulk.tp_overlap.gemm[static_cast<size_t>(TpOverlapGemm::proj_fprop)] = TpOverlapSetting{TpOverlapMethod::bulk, 8, 1};
  EXPECT_EQ(find_op(transformer_layer_ops(m, fp8, bulk).forward, "attention.proj")->splits, 1);
  for (const char* name : {"attention.proj.dgrad", "mlp.down.dgrad"}) EXPECT_EQ(find_op(ops.backward, name)->splits, 8);
  for (const char* name : {"qkv.dgrad", "mlp.up.dgrad", "qkv.wgrad", "mlp.down.wgrad"})
    EXPECT_EQ(find_op(ops.backward, name)->splits, 1) << name;  // bulk overlap: whole GEMMs
  // A chunk is m / splits rows of the same GEMM; the FLOPs add up.
  const Op* qkv = find_op(ops.forward, "qkv");
  const Op chunk = gemm_chunk(*qkv);
  EXPECT_DOUBLE_EQ(chunk.gemm.m * 8, qkv->gemm.m);
  EXPECT_DOUBLE_EQ(chunk.flops * 8, qkv->flops);
  EXPECT_EQ(qkv->kernels, 8);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

using testing::find_op;

// Qwen3 30B-A3B on EP 8 in fp8: 128 experts of 768, top 8, 16 a rank.
Case moe_case() {
  Case c;
  c.model = *model_preset("qwen3-30b-a3b");
  c.model.seq_len = 4096;
  c.training.attention = AttentionKernel::flash;
  c.training.precision = Precision::fp8;
  c.parallel.ep = 8;
  c.parallel.dp = 8;
  return c;
}

TEST(LayerWorkload, MoeLayerPermutesTheTokensAroundTheExperts) {
  const Case c = moe_case();
  const PassOps ops = transformer_layer_ops(c.model, c.training, c.parallel);
  const double tokens = c.model.seq_len, h = c.model.hidden, k = c.model.top_k;
  const Op* permute = find_op(ops.forward, "moe.permute");
  const Op* unpermute = find_op(ops.forward, "moe.unpermute");
  const Op* sort = find_op(ops.forward, "experts.sort");
  const Op* unsort = find_op(ops.forward, "experts.unsort");
  ASSERT_TRUE(permute && unpermute && sort && unsort);
  // Gather T rows of width h into T top_k rows, and back; bf16 rows.
  EXPECT_DOUBLE_EQ(permute->bytes, 2.0 * tokens * h * (1 + k));
  EXPECT_DOUBLE_EQ(unpermute->bytes, 2.0 * tokens * h * (1 + k));
  EXPECT_DOUBLE_EQ(sort->bytes, 2.0 * 2.0 * tokens * k * h);
  // Each one's gradient is the inverse map, the same bytes.
  for (const char* name : {"moe.permute.bwd", "moe.unpermute.bwd", "experts.sort.bwd", "experts.unsort.bwd"})
    EXPECT_NE(find_op(ops.backward, name), nullptr) << name;
  // The dispatch waits for the token counts on the host, forward only.
  EXPECT_TRUE(permute->host_sync);
  int syncs = 0;
  for (const Op& op : ops.forward) syncs += op.host_sync ? 1 : 0;
  EXPECT_EQ(syncs, 1);
  for (const Op& op : ops.backward) EXPECT_FALSE(op.host_sync) << op.name;
  // The router's top-k and load-balancing loss over [T, E] fp32 scores.
  const Op* topk = find_op(ops.forward, "router.topk");
  ASSERT_NE(topk, nullptr);
  EXPECT_DOUBLE_EQ(topk->bytes, tokens * c.model.experts * 4.0 * 2.25);
  EXPECT_NE(find_op(ops.forward, "router.aux_loss"), nullptr);
}

TEST(LayerWorkload, GroupedExpertGemmsLaunchOneKernelPerLocalExpert) {
  const Case c = moe_case();
  const PassOps ops = transformer_layer_ops(c.model, c.training, c.parallel);
  const int local = c.model.experts / c.parallel.ep;
  for (const char* name : {"experts.up", "experts.down"}) {
    EXPECT_EQ(find_op(ops.forward, name)->kernels, local) << name;
    // fp8 current scaling: each expert's input quantized by amax, scale and cast kernels.
    EXPECT_EQ(find_op(ops.forward, std::string(name) + ".quantize")->kernels, 3 * local) << name;
    for (const char* grad : {".dgrad", ".wgrad"})
      EXPECT_EQ(find_op(ops.backward, std::string(name) + grad)->kernels, local) << name << grad;
    EXPECT_EQ(find_op(ops.backward, std::string(name) + ".quantize.bwd")->kernels, 3 * local) << name;
  }
  // The router's and the attention's GEMMs stay one kernel each.
  EXPECT_EQ(find_op(ops.forward, "router")->kernels, 1);
  EXPECT_EQ(find_op(ops.forward, "qkv")->kernels, 1);
}

TEST(LayerWorkload, OneLocalExpertNeedsNoSortAndDenseLayersNoSync) {
  Case c = moe_case();
  c.parallel.ep = c.model.experts;
  c.parallel.dp = c.model.experts;
  const PassOps moe = transformer_layer_ops(c.model, c.training, c.parallel);
  EXPECT_EQ(find_op(moe.forward, "experts.sort"), nullptr);
  EXPECT_EQ(find_op(moe.forward, "experts.up")->kernels, 1);
  const PassOps dense = transformer_layer_ops(*model_preset("llama3-8b"), c.training, ParallelSpec{});
  for (const Op& op : dense.forward) EXPECT_FALSE(op.host_sync) << op.name;
}

}  // namespace
}  // namespace trainsim
