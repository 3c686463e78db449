// Transformer Engine's P2P context-parallel attention pieces (models/cp_ring_attention.hpp)
// against closed forms: the pieces' FLOPs sum to the causal kernel's, each ring step does
// 1/cp of them, cp attention kernels per direction plus the corrections.

#include <gtest/gtest.h>

#include <string>

#include "models/cp_ring_attention.hpp"
#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "tests/models/find_op.hpp"

namespace trainsim {
namespace {

struct Case {
  ModelSpec model = *model_preset("llama3-8b");
  TrainingSpec training;
  ParallelSpec parallel;
  explicit Case(int cp, CpAlgo algo = CpAlgo::ring) {
    model.seq_len = 8192;
    parallel.cp = cp;
    parallel.cp_algo = algo;
    parallel.tp = 2;
    parallel.sequence_parallel = true;
  }
  PassOps ops() const { return transformer_layer_ops(model, training, parallel); }
};

struct Sums {
  double flops = 0, model_flops = 0, causal_model_flops = 0;
  int attention_kernels = 0, cp_kernels = 0, hidden_attention_kernels = 0;
};

Sums sums(const std::vector<Op>& ops) {
  Sums s;
  for (const Op& op : ops) {
    if (op.kind == OpKind::attention) {
      s.flops += op.flops;
      s.model_flops += op.model_flops;
      s.causal_model_flops += op.causal_model_flops;
      s.attention_kernels += op.kernels;
      if (op.beside_cp_exchange) s.hidden_attention_kernels += op.kernels;
    }
    if (op.name.rfind("attention.cp.", 0) == 0) s.cp_kernels += op.kernels;
  }
  return s;
}

TEST(CpRingAttention, PiecesSumToTheCausalKernel) {
  for (int cp : {2, 4, 8}) {
    const PassOps ring = Case(cp).ops();
    const PassOps gathered = Case(cp, CpAlgo::all_gather).ops();  // one kernel over all keys
    for (auto [pieces, whole] : {std::pair{&ring.forward, &gathered.forward}, {&ring.backward, &gathered.backward}}) {
      const Sums p = sums(*pieces), w = sums(*whole);
      EXPECT_EQ(w.attention_kernels, 1);
      EXPECT_NEAR(p.flops / w.flops, 1.0, 1e-12) << cp;
      EXPECT_NEAR(p.model_flops / w.model_flops, 1.0, 1e-12) << cp;
      EXPECT_NEAR(p.causal_model_flops / w.causal_model_flops, 1.0, 1e-12) << cp;
    }
    EXPECT_NEAR(total_flops(ring.forward, true) / total_flops(gathered.forward, true), 1.0, 1e-12);
  }
}

TEST(CpRingAttention, EachStepDoesOneCpthOfTheWork) {
  // Causal attention over s keys per head: 2 s^2 d_head FLOPs executed (QK^T and AV, half
  // masked), s^2 d / cp per rank; the diagonal block s'^2 / 2 and each later one s' x s' / 2.
  for (int cp : {2, 4}) {
    const Case c(cp);
    const PassOps ops = c.ops();
    const double s = c.model.seq_len, d = c.model.head_dim(), heads = c.model.heads / 2.0;
    const double step = 2.0 * s * s * d * heads / cp / cp;
    const Op* diagonal = testing::find_op(ops.forward, "attention.cp.diagonal");
    const Op* last = testing::find_op(ops.forward, "attention.cp.lower.last");
    ASSERT_NE(diagonal, nullptr);
    ASSERT_NE(last, nullptr);
    EXPECT_NEAR(diagonal->flops / step, 1.0, 1e-12);
    EXPECT_NEAR(last->flops / step, 1.0, 1e-12);
    EXPECT_EQ(last->gemm.m, s / cp);      // all the rank's queries
    EXPECT_EQ(last->gemm.n, s / cp / 2);  // the first half of the sender's keys
    const Op* lower_bwd = testing::find_op(ops.backward, "attention.cp.lower.bwd");
    ASSERT_NE(lower_bwd, nullptr);
    EXPECT_EQ(lower_bwd->splits, cp - 1);                                 // timed kernel by kernel at its own shape
    EXPECT_NEAR(lower_bwd->flops / (cp - 1) / (2.5 * step), 1.0, 1e-12);  // FlashAttention-2's 2.5x
  }
}

TEST(CpRingAttention, KernelsPerDirection) {
  for (int cp : {2, 3, 4, 8}) {
    const PassOps ops = Case(cp).ops();
    const Sums f = sums(ops.forward), b = sums(ops.backward);
    EXPECT_EQ(f.attention_kernels, cp);
    EXPECT_EQ(b.attention_kernels, cp);
    // Forward: the K/V pack, cp steps, cp lse merges (a clone, then cp - 1), cp output merges.
    EXPECT_EQ(f.cp_kernels, 1 + 3 * cp) << cp;
    // Backward: the K/V copy, cp steps, cp dQ copies/adds, dK and dV per step.
    EXPECT_EQ(b.cp_kernels, 1 + 4 * cp) << cp;
    // The forward's last step has no send left to hide; every backward step sends.
    EXPECT_EQ(f.hidden_attention_kernels, cp - 1);
    EXPECT_EQ(b.hidden_attention_kernels, cp);
  }
}

TEST(CpRingAttention, CorrectionBytes) {
  const int cp = 4;
  const Case c(cp);
  const PassOps ops = c.ops();
  const double q = 8192.0 / cp, heads = c.model.heads / 2.0, kv = c.model.kv_heads / 2.0, d = c.model.head_dim();
  const double lse = heads * q * 4.0;  // fp32, micro-batch 1
  const Op* lse_op = testing::find_op(ops.forward, "attention.cp.lse_correction");
  ASSERT_NE(lse_op, nullptr);
  EXPECT_DOUBLE_EQ(lse_op->bytes, lse * (2 + 3 * (cp - 1)));
  EXPECT_EQ(lse_op->kind, OpKind::elementwise);
  const Op* pack = testing::find_op(ops.forward, "attention.cp.kv_pack");
  ASSERT_NE(pack, nullptr);
  EXPECT_DOUBLE_EQ(pack->bytes, 2.0 * q * kv * 2 * d * 2.0);  // K and V read and written, bf16
  const Op* dq = testing::find_op(ops.backward, "attention.cp.dq_correction");
  ASSERT_NE(dq, nullptr);
  EXPECT_DOUBLE_EQ(dq->bytes, (2.0 + 3.0 * (cp - 1)) * q * heads * d * 2.0);
  EXPECT_TRUE(dq->beside_cp_exchange);
  EXPECT_FALSE(testing::find_op(ops.backward, "attention.cp.dkv_correction")->beside_cp_exchange);
}

TEST(CpRingAttention, OnlyUnderARing) {
  for (const Case& c : {Case(1), Case(4, CpAlgo::all_gather)}) {
    const PassOps ops = c.ops();
    EXPECT_NE(testing::find_op(ops.forward, "attention"), nullptr);
    EXPECT_EQ(testing::find_op(ops.forward, "attention.cp.diagonal"), nullptr);
    for (const Op& op : ops.forward) EXPECT_FALSE(op.beside_cp_exchange) << op.name;
  }
  Case window(2);  // a sliding window keeps its one kernel, the whole exchange beside it
  window.model.sliding_window = 1024;
  const PassOps ops = window.ops();
  const Op* op = testing::find_op(ops.forward, "attention.window");
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->beside_cp_exchange);
}

}  // namespace
}  // namespace trainsim
