// Fused attention timed at its own head dim (GPT-OSS's 64 beside the 128 rows) and sliding
// windows priced by the keys they read (calibrated_compute_model.hpp, kernels/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "sim/compute/calibrated_compute_model.hpp"
#include "sim/compute/compute_model_factory.hpp"

namespace trainsim {
namespace {

const std::string k_tables = std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration";

CalibratedComputeModel table_model(const std::string& gpu_table) {
  return CalibratedComputeModel(read_calibration_table(calibration_table_path(k_tables, gpu_table)), Precision::bf16,
                                datasheet_roofline(*gpu_preset("h200"), Precision::bf16));
}

Op row_op(const CalibrationRow& row, int head_dim) {
  Op op;
  op.kind = OpKind::attention;
  op.pass = row.kernel == "attention_bwd" ? OpPass::backward : OpPass::forward;
  op.flops = op.model_flops = row.flops;
  op.bytes = row.bytes;
  op.gemm = {row.m, row.n, static_cast<double>(head_dim), row.batch};
  return op;
}

TEST(AttentionHeadDim, HeadDim64IsTimedFromItsOwnRows) {
  // Every head-dim-64 row (cuDNN's GPT-OSS rows, measured on H200, GB200 and GB300, and the
  // rows derived from them) times an op of its FLOPs and bytes at head dim 64 exactly; the same
  // op at head dim 128 (or of unknown head dim) is timed by the 128 rows instead.
  for (const std::string gpu : {"h100-sxm", "h200", "b200", "gb200", "b300", "gb300"}) {
    const CalibratedComputeModel model = table_model(gpu);
    int checked = 0;
    for (const CalibrationRow& row : model.table().rows) {
      if (row.kernel.rfind("attention_", 0) != 0 || row.dtype != "bf16" || row.k != 64) continue;
      EXPECT_NEAR(model.op_time_s(row_op(row, 64)) / row.time_s, 1.0, 1e-9) << gpu << " line " << row.line;
      EXPECT_NE(model.op_time_s(row_op(row, 128)), model.op_time_s(row_op(row, 64))) << gpu << " line " << row.line;
      EXPECT_EQ(model.op_time_s(row_op(row, 0)), model.op_time_s(row_op(row, 128))) << gpu;
      ++checked;
    }
    EXPECT_GE(checked, 20) << gpu;
  }
}

TEST(AttentionHeadDim, TheNearestMeasuredHeadDimTimesAnOp) {
  // Rows at head dims 64 and 128 only (and 192, pooled with 128): 80 is nearer 64 in ratio,
  // 96 nearer 128, 256 beyond the widest takes the pooled rows.
  std::istringstream in(
      "# gpu: x\n# source: converted from public measurements (a test)\n"
      "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin\n"
      "attention_fwd,bf16,4096,4096,64,64,4e-4,137438953472,75497472,0,0,measured:a\n"
      "attention_fwd,bf16,4096,4096,128,64,2e-4,137438953472,75497472,0,0,measured:a\n"
      "attention_fwd,bf16,4096,4096,192,64,2e-4,137438953472,75497472,0,0,measured:a\n");
  const CalibratedComputeModel model(parse_calibration_table(in, "t.csv"), Precision::bf16,
                                     datasheet_roofline(*gpu_preset("h200"), Precision::bf16));
  CalibrationRow row;
  row.kernel = "attention_fwd";
  row.flops = 137438953472;
  row.bytes = 75497472;
  EXPECT_DOUBLE_EQ(model.op_time_s(row_op(row, 64)), 4e-4);
  EXPECT_DOUBLE_EQ(model.op_time_s(row_op(row, 80)), 4e-4);
  EXPECT_DOUBLE_EQ(model.op_time_s(row_op(row, 96)), 2e-4);
  EXPECT_DOUBLE_EQ(model.op_time_s(row_op(row, 128)), 2e-4);
  EXPECT_DOUBLE_EQ(model.op_time_s(row_op(row, 256)), 2e-4);
}

// GPT-OSS 120B's attention op (head dim 64, 64 query and 8 KV heads) on one GPU, seq 4096, with
// sliding window `window` (0: a full-attention layer).
Op gpt_oss_attention(int window, OpPass pass) {
  ModelSpec m = *model_preset("gpt-oss-120b");
  m.seq_len = 4096;
  m.sliding_window = window;
  TrainingSpec training;
  training.micro_batch = 4;
  const PassOps ops = transformer_layer_ops(m, training, ParallelSpec{});
  for (const Op& op : pass == OpPass::backward ? ops.backward : ops.forward) {
    if (op.kind == OpKind::attention) return op;
  }
  ADD_FAILURE() << "no attention op";
  return {};
}

TEST(AttentionHeadDim, ASlidingWindowCountsAndPaysOnlyTheKeysItReads) {
  for (const OpPass pass : {OpPass::forward, OpPass::backward}) {
    const Op w128 = gpt_oss_attention(128, pass);
    const Op w256 = gpt_oss_attention(256, pass);
    const Op full = gpt_oss_attention(0, pass);
    EXPECT_EQ(w128.gemm.k, 64);
    EXPECT_EQ(w128.gemm.n, 128);  // the keys a query reads
    EXPECT_EQ(full.gemm.n, 4096);
    // FLOPs: the keys a query reads, s w - w^2 / 2 in all, against s^2 / 2 for full attention.
    EXPECT_NEAR(w256.flops / w128.flops, (4096.0 * 256 - 256.0 * 256 / 2) / (4096.0 * 128 - 128.0 * 128 / 2), 1e-12);
    EXPECT_NEAR(full.flops / w128.flops, (4096.0 * 4096 / 2) / (4096.0 * 128 - 128.0 * 128 / 2), 1e-12);
    for (const std::string gpu : {"h200", "gb200"}) {
      const CalibratedComputeModel model = table_model(gpu);
      const double t128 = model.op_time_s(w128), t256 = model.op_time_s(w256), tfull = model.op_time_s(full);
      // Time grows with the window, at most in proportion to the keys read, and a window of
      // 128 costs a small part of the full layer's attention.
      EXPECT_GT(t256, t128) << gpu;
      EXPECT_LE(t256 / t128, w256.flops / w128.flops + 1e-9) << gpu;
      EXPECT_LT(t128, 0.25 * tfull) << gpu;
    }
  }
}

TEST(AttentionHeadDim, ASinkAddsNoAttentionTime) {
  // A learned sink is one logit a head in the softmax's sum, and its gradient comes from the row
  // sums cuDNN's backward preprocess reduces anyway (models/README.md, "Attention sinks"): the
  // fused attention op of a layer with sinks is the one without, on every table.
  for (const OpPass pass : {OpPass::forward, OpPass::backward}) {
    const Op with = gpt_oss_attention(0, pass);
    ModelSpec m = *model_preset("gpt-oss-120b");
    ASSERT_TRUE(m.attention_sinks);
    m.attention_sinks = false;
    m.seq_len = 4096;
    m.sliding_window = 0;  // as gpt_oss_attention(0, ...): a full-attention layer
    TrainingSpec training;
    training.micro_batch = 4;
    const PassOps ops = transformer_layer_ops(m, training, ParallelSpec{});
    const std::vector<Op>& list = pass == OpPass::backward ? ops.backward : ops.forward;
    const auto without = std::find_if(list.begin(), list.end(), [](const Op& op) { return op.kind == OpKind::attention; });
    ASSERT_NE(without, list.end());
    EXPECT_EQ(with.flops, without->flops);
    EXPECT_EQ(with.bytes, without->bytes);
    for (const std::string gpu : {"h100-sxm", "b200"}) {
      EXPECT_EQ(table_model(gpu).op_time_s(with), table_model(gpu).op_time_s(*without)) << gpu;
    }
  }
}

}  // namespace
}  // namespace trainsim
