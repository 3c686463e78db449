#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

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

PassOps llama_layer(Precision precision = Precision::bf16) {
  TrainingSpec training;
  training.precision = precision;
  ParallelSpec parallel;
  parallel.tp = 8;
  parallel.sequence_parallel = true;
  return transformer_layer_ops(*model_preset("llama3-70b"), training, parallel);
}

TEST(CalibratedComputeModel, ReturnsTheTableTimeOnAGridShape) {
  const CalibratedComputeModel model = h200_model();
  const CalibrationTable& table = model.table();
  int checked = 0;
  for (const CalibrationRow& row : table.rows) {
    if (row.kernel != "gemm" || row.dtype != "bf16") continue;
    EXPECT_EQ(model.op_time_s(gemm_op(row.m, row.n, row.k)), row.time_s) << "line " << row.line;
    ++checked;
  }
  EXPECT_EQ(checked, 64);
}

TEST(CalibratedComputeModel, ALayerRunWithTheTableUsesIt) {
  const GpuSpec gpu = *gpu_preset("h200");
  const RooflineComputeModel roofline(datasheet_roofline(gpu, Precision::bf16));
  const CalibratedComputeModel table = h200_model();
  const PassOps layer = llama_layer();
  int changed = 0;
  bool fused_attention_rows = false;
  for (const CalibrationRow& row : table.table().rows) fused_attention_rows |= row.kernel == "attention_fwd";
  for (const auto* pass : {&layer.forward, &layer.backward}) {
    for (const Op& op : *pass) {
      // A measured table has no fused attention rows (kernels/README.md, "Attention").
      EXPECT_EQ(table.covers(op), op.kind != OpKind::attention || fused_attention_rows) << op.name;
      const double t = table.op_time_s(op);
      EXPECT_GT(t, 0) << op.name;
      if (t != roofline.op_time_s(op)) ++changed;
    }
  }
  EXPECT_GT(changed, 0);
  // Same GPU, same figures behind both: GEMMs within a factor of three of the roofline,
  // other ops (attention measured unfused, small memory-bound kernels) within ten.
  for (const Op& op : layer.forward) {
    const double bound = op.kind == OpKind::gemm ? 3.0 : 10.0;
    const double ratio = table.op_time_s(op) / roofline.op_time_s(op);
    EXPECT_GT(ratio, 1.0 / bound) << op.name;
    EXPECT_LT(ratio, bound) << op.name;
  }
}

TEST(CalibratedComputeModel, ExtrapolatesContinuouslyAndMonotonically) {
  const CalibratedComputeModel model = h200_model();
  // The grid's m axis ends at 32768: just inside and just outside agree, and time grows.
  const double edge = model.op_time_s(gemm_op(32768, 8192, 8192));
  const double beyond = model.op_time_s(gemm_op(32768 * 1.0001, 8192, 8192));
  EXPECT_NEAR(beyond / edge, 1.0, 1e-3);
  double previous = 0;
  for (double m = 16; m <= 1 << 20; m *= 2) {
    const double t = model.op_time_s(gemm_op(m, 8192, 8192));
    EXPECT_GT(t, previous) << m;
    previous = t;
  }
  // Far beyond the grid the throughput approaches the fitted asymptote, below the datasheet peak.
  const Op huge = gemm_op(1 << 20, 65536, 65536);
  EXPECT_LT(huge.flops / model.op_time_s(huge), 989e12);
  EXPECT_GT(huge.flops / model.op_time_s(huge), 600e12);
}

TEST(CalibratedComputeModel, Fp8IsFasterThanBf16OnH200) {
  const Op op = gemm_op(8192, 8192, 8192);
  EXPECT_LT(h200_model(Precision::fp8).op_time_s(op), h200_model(Precision::bf16).op_time_s(op));
}

TEST(CalibratedComputeModel, BatchedGemmsUseTheBatchedRows) {
  const CalibratedComputeModel model = h200_model();
  const Op op = gemm_op(2048, 2048, 128, 32, OpKind::batched_gemm);
  for (const CalibrationRow& row : model.table().rows) {
    if (row.kernel == "batched_gemm" && row.dtype == "bf16" && row.m == 2048 && row.n == 2048 && row.k == 128 &&
        row.batch == 32) {
      EXPECT_EQ(model.op_time_s(op), row.time_s);
      return;
    }
  }
  FAIL() << "no batched row";
}

TEST(CalibratedComputeModel, RejectsAnIncompleteGemmGrid) {
  std::istringstream in(
      "# gpu: x\n# source: measured\nkernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n"
      "gemm,bf16,1024,1024,1024,1,1e-5,2147483648,6291456,0,0\n"
      "gemm,bf16,2048,1024,1024,1,2e-5,4294967296,10485760,0,0\n"
      "gemm,bf16,1024,2048,1024,1,2e-5,4294967296,10485760,0,0\n");
  try {
    CalibratedComputeModel model(parse_calibration_table(in, "bad.csv"), Precision::bf16,
                                 datasheet_roofline(*gpu_preset("h200"), Precision::bf16));
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.csv");
    EXPECT_EQ(e.key(), "gemm/bf16");
    EXPECT_EQ(e.value(), "2048 x 2048 x 1024");
  }
}

TEST(CalibratedComputeModel, DescribesTheTableAndItsSource) {
  const CalibratedComputeModel model = h200_model();
  const std::string d = model.description();
  EXPECT_NE(d.find("h200.csv"), std::string::npos);
  EXPECT_EQ(d.find("derived, not measured") != std::string::npos, !model.table().measured());
  EXPECT_NE(d.find(model.table().source()), std::string::npos);
}

TEST(ComputeModelFactory, PicksTheTableOfTheGpuType) {
  CalibrationChoice choice;
  choice.directory = k_tables;
  for (const char* name : {"a100-80g", "h100-sxm", "h200"}) {
    const auto model = make_compute_model(*gpu_preset(name), Precision::bf16, choice);
    EXPECT_NE(model->description().find(std::string(name) + ".csv"), std::string::npos) << name;
  }
}

TEST(ComputeModelFactory, FallsBackToTheRooflineAndSaysSo) {
  CalibrationChoice choice;
  choice.directory = "/nonexistent";
  const auto missing = make_compute_model(*gpu_preset("h200"), Precision::bf16, choice);
  EXPECT_NE(missing->description().find("no calibration table"), std::string::npos);
  choice = {CalibrationMode::none, "", k_tables};
  const auto none = make_compute_model(*gpu_preset("h200"), Precision::bf16, choice);
  EXPECT_NE(none->description().find("no calibration table"), std::string::npos);
}

TEST(ComputeModelFactory, AnExplicitTableMustExist) {
  const CalibrationChoice choice{CalibrationMode::file, "/nonexistent/h200.csv", ""};
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
