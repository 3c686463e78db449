#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "sim/compute/calibrated_compute_model.hpp"
#include "sim/compute/compute_model_factory.hpp"
#include "sim/core/error.hpp"

namespace trainsim {
namespace {

const std::string k_tables = std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration";

CalibratedComputeModel h200_model(Precision precision = Precision::bf16) {
  const GpuSpec gpu = *gpu_preset("h200");
  return CalibratedComputeModel(read_calibration_table(calibration_table_path(k_tables, "h200")), precision,
                                datasheet_roofline(gpu, precision));
}

Op gemm_op(double m, double n, double k, double batch = 1, OpKind kind = OpKind::gemm) {
  Op op;
  op.kind = kind;
  op.gemm = {m, n, k, batch};
  op.flops = op.model_flops = 2 * m * n * k * batch;
  op.bytes = 2 * (m * k + k * n + m * n) * batch;
  return op;
}

// The data-gradient (or, with `weight`, the weight-gradient) product of forward GEMM `fwd`,
// at its shape.
Op backward_of(const Op& fwd, bool weight) {
  Op op = fwd;
  op.pass = OpPass::backward;
  op.weight_gradient = weight;
  return op;
}

// The accumulation of weight gradient `wgrad` into its buffer (the workload's .wgrad.accumulate).
Op accumulation_of(const Op& wgrad) {
  Op op;
  op.kind = OpKind::elementwise;
  op.pass = OpPass::backward;
  op.weight_gradient = true;
  op.bytes = 1e7;
  op.gemm = wgrad.gemm;
  return op;
}

PassOps llama_layer(Precision precision = Precision::bf16) {
  TrainingSpec training;
  training.precision = precision;
  ParallelSpec parallel;
  parallel.tp = 8;
  parallel.sequence_parallel = true;
  return transformer_layer_ops(*model_preset("llama3-70b"), training, parallel);
}

CalibratedComputeModel table_model(const std::string& gpu_table, Precision precision = Precision::bf16) {
  // The B200 has no trainsim preset; its rows are read with the H200's roofline as fallback.
  const GpuSpec gpu = *gpu_preset("h200");
  return CalibratedComputeModel(read_calibration_table(calibration_table_path(k_tables, gpu_table)), precision,
                                datasheet_roofline(gpu, precision));
}

// The median of the times of the rows of `kernel`/`dtype` at the given shape (repeats are
// merged by their median, kernel_curve.hpp); 0 if none.
double table_time(const CalibrationTable& table, const std::string& kernel, const std::string& dtype, double m,
                  double n, double k, double batch = 1) {
  std::vector<double> t;
  for (const CalibrationRow& row : table.rows) {
    if (row.kernel == kernel && row.dtype == dtype && row.m == m && row.n == n && row.k == k && row.batch == batch)
      t.push_back(row.time_s);
  }
  if (t.empty()) return 0;
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

// The same over the rows of `kernel`/`dtype` that move `bytes` (memory-bound curves are by bytes).
double table_time_by_bytes(const CalibrationTable& table, const std::string& kernel, const std::string& dtype,
                           double bytes) {
  std::vector<double> t;
  for (const CalibrationRow& row : table.rows) {
    if (row.kernel == kernel && row.dtype == dtype && row.bytes == bytes) t.push_back(row.time_s);
  }
  if (t.empty()) return 0;
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

TEST(CalibratedComputeModel, ReturnsTheTableTimeOnAGridShape) {
  // The B200's tf32 GEMMs are XLA's complete 5 x 5 x 5 grid: grid points are returned exactly.
  const CalibratedComputeModel model = table_model("b200", Precision::fp32);
  int checked = 0;
  for (const CalibrationRow& row : model.table().rows) {
    if (row.kernel != "gemm" || row.dtype != "tf32") continue;
    EXPECT_EQ(model.op_time_s(gemm_op(row.m, row.n, row.k)), row.time_s) << "line " << row.line;
    ++checked;
  }
  EXPECT_EQ(checked, 125);
}

TEST(CalibratedComputeModel, ReturnsTheTableTimeAtXlaAndSimuMaxShapes) {
  // The B200's bf16 forward GEMMs are XLA's grid and SimuMax's layer shapes side by side:
  // scattered, and the table's time at every row (the median where both timed a shape).
  const CalibratedComputeModel model = table_model("b200");
  int checked = 0;
  for (const CalibrationRow& row : model.table().rows) {
    if (row.kernel != "gemm" || row.dtype != "bf16") continue;
    const double expected = table_time(model.table(), "gemm", "bf16", row.m, row.n, row.k);
    EXPECT_NEAR(model.op_time_s(gemm_op(row.m, row.n, row.k)) / expected, 1.0, 1e-9) << "line " << row.line;
    ++checked;
  }
  EXPECT_EQ(checked, 125 + 144);
}

TEST(CalibratedComputeModel, ReturnsTheTableTimeOnScatteredShapes) {
  // The H100's bf16 GEMM curve is XLA's grid plus Vidur's fp16 Llama shapes: scattered, and
  // still the table's time at every row (the median where a shape repeats).
  const CalibratedComputeModel model = table_model("h100-sxm");
  int checked = 0;
  for (const CalibrationRow& row : model.table().rows) {
    if (row.kernel != "gemm" || (row.dtype != "bf16" && row.dtype != "fp16")) continue;
    const double bf16 = table_time(model.table(), "gemm", "bf16", row.m, row.n, row.k);
    const double expected = bf16 > 0 ? bf16 : table_time(model.table(), "gemm", "fp16", row.m, row.n, row.k);
    EXPECT_NEAR(model.op_time_s(gemm_op(row.m, row.n, row.k)) / expected, 1.0, 1e-9) << "line " << row.line;
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

TEST(CalibratedComputeModel, BackwardGemmsAreLookedUpByTheirOwnShape) {
  // Without layout rows (the H100's table) the dgrad of an (m, n, k) GEMM, (m, k, n), is timed
  // as that forward shape, no other rule.
  const CalibratedComputeModel model = table_model("h100-sxm");
  const Op dgrad = backward_of(gemm_op(4096, 1024, 256), false);
  EXPECT_EQ(model.op_time_s(dgrad), table_time(model.table(), "gemm", "bf16", 4096, 1024, 256));
}

// The op named `name` of `ops`.
const Op& named(const std::vector<Op>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const Op& op) { return op.name == name; });
  if (it == ops.end()) throw std::runtime_error("no op " + name);
  return *it;
}

// The one row of `kernel`/`dtype` at the op's GEMM shape from `origin`, or none.
const CalibrationRow* row_at(const CalibrationTable& table, const std::string& kernel, const Op& op,
                             const std::string& origin) {
  const CalibrationRow* found = nullptr;
  for (const CalibrationRow& row : table.rows) {
    if (row.kernel == kernel && row.dtype == "bf16" && row.m == op.gemm.m && row.n == op.gemm.n && row.k == op.gemm.k &&
        row.batch == 1 && row.origin == origin) {
      EXPECT_EQ(found, nullptr) << "two rows of " << kernel << " at " << op.name;
      found = &row;
    }
  }
  return found;
}

TEST(CalibratedComputeModel, ForwardDgradAndWgradGemmsGetTheirMeasuredLayouts) {
  // Llama 3 70B's MLP up-projection (gate and up) at 4096 tokens, TP 1, bf16: SimuMax timed its
  // forward (TN), data-gradient (NN) and weight-gradient (NT, into the fp32 main_grad) GEMMs on
  // a B200; the workload's three ops get those three measured times, which differ.
  TrainingSpec training;
  ModelSpec model = *model_preset("llama3-70b");
  model.seq_len = 4096;
  const PassOps layer = transformer_layer_ops(model, training, ParallelSpec{});
  const Op& fwd = named(layer.forward, "mlp.up");
  const Op& dgrad = named(layer.backward, "mlp.up.dgrad");
  const Op& wgrad = named(layer.backward, "mlp.up.wgrad");
  ASSERT_EQ(fwd.gemm.m, 4096);
  ASSERT_EQ(fwd.gemm.n, 57344);
  ASSERT_EQ(fwd.gemm.k, 8192);
  const CalibratedComputeModel b200 = table_model("b200");
  const CalibrationRow* tn = row_at(b200.table(), "gemm", fwd, "measured:simumax");
  const CalibrationRow* nn = row_at(b200.table(), "gemm_dgrad", dgrad, "measured:simumax");
  const CalibrationRow* nt = row_at(b200.table(), "gemm_wgrad", wgrad, "measured:simumax");
  ASSERT_NE(tn, nullptr);
  ASSERT_NE(nn, nullptr);
  ASSERT_NE(nt, nullptr);
  EXPECT_NEAR(b200.op_time_s(fwd) / tn->time_s, 1.0, 1e-9);
  EXPECT_NEAR(b200.op_time_s(dgrad) / nn->time_s, 1.0, 1e-9);
  EXPECT_NEAR(b200.op_time_s(wgrad) / nt->time_s, 1.0, 1e-9);
  // SimuMax's efficiencies against 2250 TFLOP/s (b200_bf16_ceperm.json): 0.486688, 0.482914,
  // 0.453584.
  EXPECT_NEAR(fwd.flops / b200.op_time_s(fwd) / 1e12, 1095.05, 0.01);
  EXPECT_NEAR(dgrad.flops / b200.op_time_s(dgrad) / 1e12, 1086.56, 0.01);
  EXPECT_NEAR(wgrad.flops / b200.op_time_s(wgrad) / 1e12, 1020.56, 0.01);
  // The weight gradient was timed accumulating into its buffer: the separate accumulation
  // takes no time with this table, and its bandwidth time with a table without gemm_wgrad rows.
  const Op& accumulate = named(layer.backward, "mlp.up.wgrad.accumulate");
  EXPECT_TRUE(b200.covers(accumulate));
  EXPECT_EQ(b200.op_time_s(accumulate), 0.0);
  EXPECT_GT(table_model("h100-sxm").op_time_s(accumulate), 0.0);
}

TEST(CalibratedComputeModel, LayoutCurvesFallBackToForwardRowsAtShapesTheyLack) {
  // A data-gradient GEMM at an XLA grid shape SimuMax did not time is the forward row there.
  const CalibratedComputeModel model = table_model("b200");
  const Op dgrad = backward_of(gemm_op(1024, 2048, 512), false);
  const Op wgrad = backward_of(gemm_op(1024, 2048, 512), true);
  const double forward = table_time(model.table(), "gemm", "bf16", 1024, 2048, 512);
  ASSERT_GT(forward, 0);
  EXPECT_NEAR(model.op_time_s(dgrad) / forward, 1.0, 1e-9);
  EXPECT_NEAR(model.op_time_s(wgrad) / forward, 1.0, 1e-9);
}

TEST(CalibratedComputeModel, ALayerRunWithTheTableUsesIt) {
  const GpuSpec gpu = *gpu_preset("h200");
  const RooflineComputeModel roofline(datasheet_roofline(gpu, Precision::bf16));
  const CalibratedComputeModel table = h200_model();
  const PassOps layer = llama_layer();
  int changed = 0;
  for (const auto* pass : {&layer.forward, &layer.backward}) {
    for (const Op& op : *pass) {
      EXPECT_TRUE(table.covers(op)) << op.name;
      const double t = table.op_time_s(op);
      EXPECT_GT(t, 0) << op.name;
      if (t != roofline.op_time_s(op)) ++changed;
    }
  }
  EXPECT_GT(changed, 0);
  // Same GPU: GEMMs within a factor of three of the datasheet roofline, other ops (small
  // memory-bound kernels, attention) within ten.
  for (const Op& op : layer.forward) {
    const double bound = op.kind == OpKind::gemm ? 3.0 : 10.0;
    const double ratio = table.op_time_s(op) / roofline.op_time_s(op);
    EXPECT_GT(ratio, 1.0 / bound) << op.name;
    EXPECT_LT(ratio, bound) << op.name;
  }
}

TEST(CalibratedComputeModel, GemmTimesAreContinuousAndGrowWithSize) {
  for (const char* gpu : {"a100-80g", "h100-sxm", "h200", "b200"}) {
    const CalibratedComputeModel model = table_model(gpu);
    // Just inside and just outside the samples' range agree (a100: Vidur's tokens end at 32768).
    const double edge = model.op_time_s(gemm_op(32768, 8192, 8192));
    const double beyond = model.op_time_s(gemm_op(32768 * 1.0001, 8192, 8192));
    EXPECT_NEAR(beyond / edge, 1.0, 1e-3) << gpu;
    // Tokens of a micro-batch, and the hidden and MLP widths of 7B..405B models and their TP
    // shards: time grows with every dimension.
    for (const double n : {1024.0, 4096.0, 8192.0, 28672.0}) {
      double previous = 0;
      for (double m = 256; m <= 1 << 17; m *= 1.25) {
        const double t = model.op_time_s(gemm_op(m, n, 8192));
        EXPECT_GT(t, previous) << gpu << " m " << m << " n " << n;
        previous = t;
      }
    }
    // Far beyond the samples the throughput stays below the datasheet peak.
    const Op huge = gemm_op(1 << 20, 65536, 65536);
    const double peak = std::string(gpu) == "a100-80g" ? 312e12 : std::string(gpu) == "b200" ? 2250e12 : 989e12;
    EXPECT_LT(huge.flops / model.op_time_s(huge), peak) << gpu;
    // The B200's largest measured GEMMs run at ~48 % of its peak, power-limited (SimuMax's
    // back-to-back rows, kernels/README.md); the others' extrapolate XLA's rates, above 50 %.
    const double floor = std::string(gpu) == "b200" ? 0.45 : 0.5;
    EXPECT_GT(huge.flops / model.op_time_s(huge), floor * peak) << gpu;
  }
}

TEST(CalibratedComputeModel, B200BackwardAndFp8GemmTimesGrowWithSize) {
  // The B200's forward and layout curves (SimuMax's rows filled with the forward ones), bf16
  // and fp8 (XLA's rows and the MAMF-ratio rows beyond 4096), grow with the tokens.
  for (const Precision precision : {Precision::bf16, Precision::fp8}) {
    const CalibratedComputeModel model = table_model("b200", precision);
    for (const int layout : {0, 1, 2}) {  // forward, data gradient, weight gradient
      for (const double n : {1024.0, 4096.0, 8192.0, 28672.0}) {
        double previous = 0;
        for (double m = 256; m <= 1 << 17; m *= 1.25) {
          Op op = gemm_op(m, n, 8192);
          op.precision = precision;
          op.pass = layout == 0 ? OpPass::forward : OpPass::backward;
          op.weight_gradient = layout == 2;
          const double t = model.op_time_s(op);
          EXPECT_GT(t, previous) << layout << " m " << m << " n " << n;
          previous = t;
        }
      }
    }
  }
}

TEST(CalibratedComputeModel, Fp8IsFasterThanBf16) {
  Op op = gemm_op(8192, 8192, 8192);
  Op fp8 = op;
  fp8.precision = Precision::fp8;
  for (const char* gpu : {"h100-sxm", "h200", "b200"}) {
    EXPECT_LT(table_model(gpu, Precision::fp8).op_time_s(fp8), table_model(gpu, Precision::bf16).op_time_s(op)) << gpu;
    // A GEMM that stays bf16 under fp8 training (the output layer) runs at the bf16 rate.
    EXPECT_DOUBLE_EQ(table_model(gpu, Precision::fp8).op_time_s(op), table_model(gpu, Precision::bf16).op_time_s(op))
        << gpu;
  }
}

TEST(CalibratedComputeModel, Fp16AndBf16ShareTheirRows) {
  // The A100's GEMMs are measured in fp16 only (Vidur, LLMCompass): bf16 uses them.
  const CalibratedComputeModel bf16 = table_model("a100-80g", Precision::bf16);
  const CalibratedComputeModel fp16 = table_model("a100-80g", Precision::fp16);
  const Op op = gemm_op(4096, 12288, 4096);
  EXPECT_TRUE(bf16.covers(op));
  EXPECT_EQ(bf16.op_time_s(op), fp16.op_time_s(op));
  EXPECT_NEAR(bf16.op_time_s(op) / table_time(bf16.table(), "gemm", "fp16", 4096, 12288, 4096), 1.0, 1e-9);
}

TEST(CalibratedComputeModel, BatchedGemmsUseTheBatchedRows) {
  const CalibratedComputeModel model = h200_model();
  int checked = 0;
  for (const CalibrationRow& row : model.table().rows) {
    if (row.kernel != "batched_gemm" || row.dtype != "bf16") continue;
    const Op op = gemm_op(row.m, row.n, row.k, row.batch, OpKind::batched_gemm);
    EXPECT_EQ(model.op_time_s(op), row.time_s) << "line " << row.line;
    ++checked;
  }
  EXPECT_EQ(checked, 250);
}

TEST(CalibratedComputeModel, RopeOpsUseTheRopeRows) {
  const CalibratedComputeModel model = table_model("h100-sxm");
  // Llama-2-70B at TP 8: (64 + 8) / 8 heads of 128 rotated over 4096 tokens, read and written.
  Op op;
  op.name = "attention.rope";
  op.kind = OpKind::elementwise;
  op.bytes = 4.0 * 4096 * 1152;
  EXPECT_TRUE(model.covers(op));
  ASSERT_GT(table_time(model.table(), "rope", "fp16", 4096, 1152, 0), 0);
  const double expected = table_time_by_bytes(model.table(), "rope", "fp16", op.bytes);
  EXPECT_EQ(model.op_time_s(op), expected);
  op.name = "attention.rope.bwd";
  EXPECT_EQ(model.op_time_s(op), expected);
}

Op attention_op(double seq, double heads, double kv_heads, OpPass pass = OpPass::forward) {
  Op op;
  op.name = pass == OpPass::backward ? "attention.bwd" : "attention";
  op.kind = OpKind::attention;
  op.pass = pass;
  op.flops = 4.0 * seq * seq * heads * 128 / 2 * (pass == OpPass::backward ? 2.5 : 1.0);
  op.model_flops = op.flops;
  op.bytes = (2.0 * seq * heads * 128 + 2.0 * seq * kv_heads * 128) * 2 * (pass == OpPass::backward ? 2 : 1);
  return op;
}

TEST(CalibratedComputeModel, AttentionIsTimedByItsMeasuredRows) {
  const CalibratedComputeModel model = h200_model();
  for (const double seq : {2048.0, 8192.0, 32768.0}) {
    EXPECT_NEAR(model.op_time_s(attention_op(seq, 64, 8)) /
                    table_time(model.table(), "attention_fwd", "bf16", seq, seq, 128, 64),
                1.0, 1e-9);
    EXPECT_NEAR(model.op_time_s(attention_op(seq, 64, 8, OpPass::backward)) /
                    table_time(model.table(), "attention_bwd", "bf16", seq, seq, 128, 64),
                1.0, 1e-9);
  }
}

TEST(CalibratedComputeModel, LongerSequencesRunAttentionFasterAtEqualFlops) {
  // Same FLOPs: 4096 tokens of 64 heads, or 2048 tokens of 256 heads (twice the bytes per
  // FLOP). cuDNN's TFLOP/s rise with the sequence length, and so does the model's.
  const CalibratedComputeModel model = h200_model();
  const Op longer = attention_op(4096, 64, 8);
  const Op shorter = attention_op(2048, 256, 32);
  ASSERT_EQ(longer.flops, shorter.flops);
  EXPECT_LT(model.op_time_s(longer), model.op_time_s(shorter));
}

CalibratedComputeModel model_of(const std::string& rows, const std::string& file = "t.csv") {
  std::istringstream in(
      "# gpu: x\n# source: converted from public measurements (a test)\n"
      "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin\n" +
      rows);
  return CalibratedComputeModel(parse_calibration_table(in, file), Precision::bf16,
                                datasheet_roofline(*gpu_preset("h200"), Precision::bf16));
}

TEST(CalibratedComputeModel, RejectsADgradRowWithABatch) {
  EXPECT_THROW(model_of("gemm_dgrad,bf16,1024,1024,1024,2,1e-5,4294967296,12582912,0,0,measured:a\n"), InputError);
}

TEST(CalibratedComputeModel, RejectsAWgradRowWithABatch) {
  EXPECT_THROW(model_of("gemm_wgrad,bf16,1024,1024,1024,2,1e-5,4294967296,12582912,0,0,measured:a\n"), InputError);
}

TEST(CalibratedComputeModel, AWgradRowTimesOnlyWeightGradients) {
  // One layout row: the weight gradient of that shape takes it, the data gradient and the
  // forward GEMM take the forward row; the accumulation after a weight gradient takes no time.
  const CalibratedComputeModel model = model_of(
      "gemm,bf16,1024,1024,1024,1,1e-5,2147483648,6291456,0,0,measured:a\n"
      "gemm_wgrad,bf16,1024,1024,1024,1,3e-5,2147483648,6291456,0,0,measured:a\n");
  Op fwd = gemm_op(1024, 1024, 1024);
  const Op dgrad = backward_of(fwd, false);
  const Op wgrad = backward_of(fwd, true);
  EXPECT_NEAR(model.op_time_s(fwd) / 1e-5, 1.0, 1e-9);
  EXPECT_NEAR(model.op_time_s(dgrad) / 1e-5, 1.0, 1e-9);
  EXPECT_NEAR(model.op_time_s(wgrad) / 3e-5, 1.0, 1e-9);
  Op recompute = fwd;
  recompute.pass = OpPass::recompute;
  EXPECT_NEAR(model.op_time_s(recompute) / 1e-5, 1.0, 1e-9);
  Op accumulate = accumulation_of(wgrad);
  EXPECT_EQ(model.op_time_s(accumulate), 0.0);
  accumulate.gemm.batch = 8;  // a grouped expert GEMM's: not timed by the gemm_wgrad rows
  EXPECT_GT(model.op_time_s(accumulate), 0.0);
}

TEST(CalibratedComputeModel, GroupedExpertGemmsUseTheGroupedRowsOfTheirLayout) {
  // Grouped rows (m rows per group, n, k, groups) time the experts' grouped GEMMs, each
  // layout by its own rows; batched rows are left to strided-batched products, and a grouped
  // weight gradient's accumulation takes no time (it accumulates in the GEMM).
  const CalibratedComputeModel model = model_of(
      "batched_gemm,bf16,2048,1024,1024,8,1e-4,34359738368,0,0,0,measured:a\n"
      "grouped_gemm,bf16,2048,1024,1024,8,2e-4,34359738368,0,0,0,measured:a\n"
      "grouped_gemm_wgrad,bf16,2048,1024,1024,8,3e-4,34359738368,0,0,0,measured:a\n");
  Op fwd = gemm_op(2048, 1024, 1024, 8);
  const Op dgrad = backward_of(fwd, false);
  const Op wgrad = backward_of(fwd, true);
  EXPECT_NEAR(model.op_time_s(fwd) / 2e-4, 1.0, 1e-9);
  EXPECT_NEAR(model.op_time_s(dgrad) / 2e-4, 1.0, 1e-9);  // no dgrad rows: the forward's
  EXPECT_NEAR(model.op_time_s(wgrad) / 3e-4, 1.0, 1e-9);
  EXPECT_NEAR(model.op_time_s(gemm_op(2048, 1024, 1024, 8, OpKind::batched_gemm)) / 1e-4, 1.0, 1e-9);
  Op accumulate = accumulation_of(wgrad);
  EXPECT_EQ(model.op_time_s(accumulate), 0.0);
}

TEST(CalibratedComputeModel, B200GroupedRowsTimeGptOssExperts) {
  // On B200 the bf16 experts run at SimuMax's grouped rate (75 calls back to back), below
  // XLA's batched rows (each call alone on an idle GPU).
  const CalibratedComputeModel model = table_model("b200");
  const Op up = gemm_op(4096, 5760, 2880, 16);  // GPT-OSS 120B's expert up-projection, EP 8
  const double tflops = up.flops / model.op_time_s(up) / 1e12;
  EXPECT_GT(tflops, 800);
  EXPECT_LT(tflops, 1300);
  const double batched = up.flops / model.op_time_s(gemm_op(4096, 5760, 2880, 16, OpKind::batched_gemm)) / 1e12;
  EXPECT_GT(batched, 1.2 * tflops);
  // fp8 experts: the fp8 grouped rows, SimuMax's bf16 ones at XLA's measured fp8/bf16 ratio of
  // the shape, at least B200's MAMF ratio (rule b200-xla-fp8-ratio; 0.501 at this shape, so the
  // MAMF ratio), not XLA's fp8 batched rows (each call alone, at the boost clock).
  const CalibratedComputeModel fp8 = table_model("b200", Precision::fp8);
  Op up8 = up;
  up8.precision = Precision::fp8;
  Op batched8 = up8;
  batched8.kind = OpKind::batched_gemm;
  EXPECT_TRUE(fp8.covers(up8));
  // (between the rows the fp8 curve interpolates with its own 1-byte operands)
  EXPECT_NEAR(fp8.op_time_s(up8) / model.op_time_s(up), 1745.0 / 3432.5, 0.05);
  EXPECT_GT(fp8.op_time_s(up8), 1.2 * fp8.op_time_s(batched8));
  // Qwen3 30B-A3B's fine-grained experts (2048 rows, 16 groups at EP 8) gain less from fp8:
  // XLA's fp8/bf16 ratio is 0.561 at their up-projection, 0.621 at their down-projection.
  for (const Op& bf16 : {gemm_op(2048, 1536, 2048, 16), gemm_op(2048, 2048, 768, 16)}) {
    Op q = bf16;
    q.precision = Precision::fp8;
    const double ratio = fp8.op_time_s(q) / model.op_time_s(bf16);
    EXPECT_GT(ratio, 0.54) << bf16.gemm.n << " x " << bf16.gemm.k;
    EXPECT_LT(ratio, 0.7) << bf16.gemm.n << " x " << bf16.gemm.k;
  }
  // mxfp8 experts: their own grouped rows (rule b200-lowprec-ratio), SimuMax's bf16 time x the
  // fp8 ratio of the per-group shape raised to TE's measured MXFP8 exponent (0.903): at
  // SimuMax's 1024 x 4096 x 7168 x 32 0.563, where the per-tensor fp8 row gives 0.529.
  const CalibratedComputeModel mx = table_model("b200", Precision::mxfp8);
  Op sample = gemm_op(1024, 4096, 7168, 32);
  Op sample_mx = sample;
  sample_mx.precision = Precision::mxfp8;
  sample_mx.bytes = ((1024.0 * 7168 + 7168.0 * 4096) * (1 + 1.0 / 32) + 2.0 * 1024 * 4096) * 32;
  EXPECT_TRUE(mx.covers(sample_mx));
  EXPECT_NEAR(mx.op_time_s(sample_mx) / model.op_time_s(sample), 0.563, 0.002);
}

TEST(CalibratedComputeModel, AcceptsScatteredGemmRows) {
  // Three GEMMs that form no grid (public measurements often do not): exact at each, in between
  // positive and between its neighbours.
  std::istringstream in(
      "# gpu: x\n# source: converted from public measurements (a test)\n"
      "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin\n"
      "gemm,bf16,1024,1024,1024,1,1e-5,2147483648,6291456,0,0,measured:a\n"
      "gemm,bf16,2048,1024,1024,1,2e-5,4294967296,10485760,0,0,measured:a\n"
      "gemm,bf16,1024,2048,1024,1,2.2e-5,4294967296,10485760,0,0,derived:b\n");
  const CalibratedComputeModel model(parse_calibration_table(in, "scattered.csv"), Precision::bf16,
                                     datasheet_roofline(*gpu_preset("h200"), Precision::bf16));
  EXPECT_NEAR(model.op_time_s(gemm_op(1024, 1024, 1024)) / 1e-5, 1.0, 1e-9);
  EXPECT_NEAR(model.op_time_s(gemm_op(2048, 1024, 1024)) / 2e-5, 1.0, 1e-9);
  EXPECT_NEAR(model.op_time_s(gemm_op(1024, 2048, 1024)) / 2.2e-5, 1.0, 1e-9);
  const double between = model.op_time_s(gemm_op(1448, 1024, 1024));
  EXPECT_GT(between, 1e-5);
  EXPECT_LT(between, 2e-5);
  EXPECT_NE(model.description().find("2 of 3 rows measured"), std::string::npos) << model.description();
}

TEST(CalibratedComputeModel, DescribesTheTableAndItsSource) {
  const CalibratedComputeModel model = h200_model();
  const std::string d = model.description();
  EXPECT_NE(d.find("h200.csv"), std::string::npos);
  EXPECT_NE(d.find(model.table().source()), std::string::npos);
  EXPECT_NE(d.find(std::to_string(model.table().measured_rows()) + " of " + std::to_string(model.table().rows.size()) +
                   " rows measured"),
            std::string::npos)
      << d;
  if (model.table().source_kind() == CalibrationSource::converted) {
    EXPECT_NE(d.find("converted from public measurements"), std::string::npos) << d;
  }
}

// A table as trainsim-calibrate writes it: source measured, 11 columns, full grids.
std::string measured_table() {
  std::ostringstream out;
  out.precision(17);
  out << "# gpu: NVIDIA H200\n# source: measured\n# tool: trainsim-calibrate (full grid)\n"
      << calibration_columns() << "\n";
  for (double m : {512.0, 2048.0, 8192.0}) {
    for (double n : {512.0, 2048.0, 8192.0}) {
      for (double k : {512.0, 2048.0, 8192.0}) {
        const double flops = 2 * m * n * k;
        out << "gemm,bf16," << m << "," << n << "," << k << ",1," << 2e-6 + flops / 700e12 << "," << flops << ","
            << 2 * (m * k + k * n + m * n) << ",0,0\n";
      }
    }
  }
  for (double rows : {256.0, 4096.0, 65536.0}) {
    out << "rmsnorm,bf16," << rows << ",8192,0,1," << 3e-6 + rows * 8192 * 4 / 4e12 << ",0," << rows * 8192 * 4
        << ",0,0\n";
  }
  return out.str();
}

TEST(ComputeModelFactory, AMeasuredFullGridTableStillLoadsAndWins) {
  // A trainsim-calibrate table put where the converted one was (kernels/README.md: it
  // replaces it, and convert_public.py leaves it alone) is what the factory picks.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "trainsim-measured-table-test";
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "h200.csv") << measured_table(); }
  CalibrationChoice choice;
  choice.directory = dir.string();
  const auto model = make_compute_model(*gpu_preset("h200"), Precision::bf16, choice);
  const std::string d = model->description();
  EXPECT_NE(d.find("(measured, 30 of 30 rows measured"), std::string::npos) << d;
  EXPECT_NE(d.find("2 grids, 0 scattered"), std::string::npos) << d;
  EXPECT_EQ(model->op_time_s(gemm_op(2048, 8192, 512)), 2e-6 + 2.0 * 2048 * 8192 * 512 / 700e12);
  std::filesystem::remove_all(dir);
}

TEST(ComputeModelFactory, PicksTheTableOfTheGpuType) {
  CalibrationChoice choice;
  choice.directory = k_tables;
  for (const char* name : {"a100-80g", "h100-sxm", "h200", "b200"}) {
    const auto model = make_compute_model(*gpu_preset(name), Precision::bf16, choice);
    EXPECT_NE(model->description().find(std::string(name) + ".csv"), std::string::npos) << name;
  }
}

TEST(ComputeModelFactory, FallsBackToTheRooflineAndSaysSo) {
  CalibrationChoice choice;
  choice.directory = "/nonexistent";
  const auto missing = make_compute_model(*gpu_preset("h200"), Precision::bf16, choice);
  EXPECT_NE(missing->description().find("no calibration table"), std::string::npos);
  choice = {CalibrationMode::none, "", k_tables, ""};
  const auto none = make_compute_model(*gpu_preset("h200"), Precision::bf16, choice);
  EXPECT_NE(none->description().find("no calibration table"), std::string::npos);
}

TEST(ComputeModelFactory, AnExplicitTableMustExist) {
  const CalibrationChoice choice{CalibrationMode::file, "/nonexistent/h200.csv", "", ""};
  EXPECT_THROW(make_compute_model(*gpu_preset("h200"), Precision::bf16, choice), InputError);
}

TEST(ComputeModelFactory, ReadsTheScenarioValue) {
  EXPECT_EQ(calibration_choice("auto", k_tables).mode, CalibrationMode::automatic);
  EXPECT_EQ(calibration_choice("auto", k_tables).directory, k_tables);
  EXPECT_EQ(calibration_choice("none", k_tables).mode, CalibrationMode::none);
  const CalibrationChoice file = calibration_choice("my/h200.csv", k_tables);
  EXPECT_EQ(file.mode, CalibrationMode::file);
  EXPECT_EQ(file.table_path, "my/h200.csv");
  EXPECT_THROW(calibration_choice("", k_tables, "s.ini"), InputError);
}

TEST(ComputeModelFactory, SameInputsGiveIdenticalTimes) {
  CalibrationChoice choice;
  choice.directory = k_tables;
  const auto a = make_compute_model(*gpu_preset("h100-sxm"), Precision::bf16, choice);
  const auto b = make_compute_model(*gpu_preset("h100-sxm"), Precision::bf16, choice);
  for (const Op& op : llama_layer().backward) EXPECT_EQ(a->op_time_s(op), b->op_time_s(op)) << op.name;
}

}  // namespace
}  // namespace trainsim
