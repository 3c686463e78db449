// The layer check (sim/compute/layer_check.hpp): a measured layer table against the
// workload's ops of the same layer, timed by a compute model.

#include "sim/compute/layer_check.hpp"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "models/model_presets.hpp"
#include "sim/core/error.hpp"

namespace trainsim {
namespace {

// The synthetic table has the layout trainsim-calibrate --layer writes, for one Llama 3 8B
// layer (micro-batch 1 x 4096 tokens).
const std::string k_table = std::string(TRAINSIM_SOURCE_DIR) + "/tests/compute/layer-llama3-8b-synthetic.csv";

// A stand-in model: a fixed time per FLOP and per byte, so the test knows every op's time.
class LinearModel : public ComputeModel {
 public:
  double op_time_s(const Op& op) const override { return 2e-6 + op.flops / 500e12 + op.bytes / 3e12; }
  std::string description() const override { return "linear test model"; }
};

PassOps llama3_8b_layer(AttentionKernel attention) {
  ModelSpec model = *model_preset("llama3-8b");
  model.seq_len = 4096;
  TrainingSpec training;
  training.attention = attention;
  return transformer_layer_ops(model, training, ParallelSpec{});
}

InputError layer_error(const std::string& text) {
  std::istringstream in(text);
  try {
    measured_layer(parse_calibration_table(in, "bad.csv"));
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError("", "", "", "");
}

TEST(LayerCheck, ReadsTheShapeAndTheTotals) {
  const MeasuredLayer layer = measured_layer(read_calibration_table(k_table));
  EXPECT_EQ(layer.shape.hidden, 4096);
  EXPECT_EQ(layer.shape.heads, 32);
  EXPECT_EQ(layer.shape.kv_heads, 8);
  EXPECT_EQ(layer.shape.ffn, 14336);
  EXPECT_EQ(layer.shape.seq, 4096);
  EXPECT_EQ(layer.shape.micro_batch, 1);
  EXPECT_TRUE(layer.shape.unfused_attention);
  EXPECT_EQ(layer.ops.size(), 30U);
  EXPECT_GT(layer.forward_s, 0);
  EXPECT_GT(layer.backward_s, 0);
}

TEST(LayerCheck, UnfusedAttentionOpsFallIntoTheCalibratorsAttentionRows) {
  const PassOps ops = llama3_8b_layer(AttentionKernel::standard);
  int forward = 0, backward = 0;
  for (const Op& op : ops.forward) forward += measured_op_name(op) == "attention" ? 1 : 0;
  for (const Op& op : ops.backward) backward += measured_op_name(op) == "attention.bwd" ? 1 : 0;
  EXPECT_EQ(forward, 3);   // scores, softmax, values
  EXPECT_EQ(backward, 5);  // two products each for values and scores, and the softmax's backward
  Op gemm;
  gemm.name = "qkv.wgrad";
  EXPECT_EQ(measured_op_name(gemm), "qkv.wgrad");
}

// Every kernel the calibrator times has workload ops, and every workload op a row: the
// two descriptions of a Llama layer agree (a renamed op on either side fails here).
TEST(LayerCheck, EveryMeasuredKernelMatchesWorkloadOps) {
  const MeasuredLayer layer = measured_layer(read_calibration_table(k_table));
  const LayerCheck check = check_layer(llama3_8b_layer(AttentionKernel::standard), LinearModel{}, layer);
  EXPECT_EQ(check.rows.size(), layer.ops.size());
  for (const LayerCheckRow& row : check.rows) {
    EXPECT_GT(row.ops, 0) << row.name << " is measured but no workload op maps to it";
    EXPECT_TRUE(row.time.measured()) << row.name << " is in the workload but not measured";
  }
}

TEST(LayerCheck, PredictedTotalsAreTheModelsOpTimesAndDeviationIsTheirRatio) {
  const PassOps ops = llama3_8b_layer(AttentionKernel::standard);
  const LinearModel model;
  const MeasuredLayer layer = measured_layer(read_calibration_table(k_table));
  const LayerCheck check = check_layer(ops, model, layer);
  double forward = 0, backward = 0;
  for (const Op& op : ops.forward) forward += model.op_time_s(op);
  for (const Op& op : ops.backward) backward += model.op_time_s(op);
  EXPECT_DOUBLE_EQ(check.forward.predicted_s, forward);
  EXPECT_DOUBLE_EQ(check.backward.predicted_s, backward);
  EXPECT_DOUBLE_EQ(check.forward.measured_s, layer.forward_s);
  EXPECT_DOUBLE_EQ(check.layer().deviation(), (forward + backward) / (layer.forward_s + layer.backward_s) - 1);
  double rows = 0;
  for (const LayerCheckRow& row : check.rows) rows += row.time.predicted_s;
  EXPECT_NEAR(rows, forward + backward, 1e-12);
  // Unfused attention's three forward kernels are summed into one row.
  for (const LayerCheckRow& row : check.rows) {
    if (row.name == "attention") {
      EXPECT_EQ(row.ops, 3);
    }
  }
}

TEST(LayerCheck, MeasuredOnlyAndPredictedOnlyRowsAreKept) {
  MeasuredLayer layer = measured_layer(read_calibration_table(k_table));
  layer.ops.push_back({"gqa.expand", 1e-5});
  layer.ops.erase(layer.ops.begin());  // attention.norm
  const LayerCheck check = check_layer(llama3_8b_layer(AttentionKernel::standard), LinearModel{}, layer);
  std::set<std::string> measured_only, predicted_only;
  for (const LayerCheckRow& row : check.rows) {
    if (row.ops == 0) measured_only.insert(row.name);
    if (!row.time.measured()) predicted_only.insert(row.name);
  }
  EXPECT_EQ(measured_only, std::set<std::string>{"gqa.expand"});
  EXPECT_EQ(predicted_only, std::set<std::string>{"attention.norm"});
  EXPECT_EQ(check.rows.back().name, "gqa.expand");
}

TEST(LayerCheck, RejectsATableThatIsNotALayerTable) {
  const std::string head = "# gpu: x\n# source: measured\n";
  const std::string columns = "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n";
  const std::string rows =
      "layer_fwd,bf16,4096,4096,14336,1,0.003,1,1,0,0\nlayer_bwd,bf16,4096,4096,14336,1,0.006,1,1,0,0\n";
  const std::string shape = "# layer: h=4096,heads=32,kv_heads=8,ffn=14336,seq=4096,mb=1\n";
  EXPECT_EQ(layer_error(head + columns + rows).key(), "# layer");
  const InputError malformed = layer_error(head + "# layer: h=4096,heads=32\n" + columns + rows);
  EXPECT_EQ(malformed.file(), "bad.csv");
  EXPECT_EQ(malformed.value(), "h=4096,heads=32");
  EXPECT_EQ(layer_error(head + "# layer: h=4096,heads=32,kv_heads=8,ffn=14336,seq=4096,mb=0\n" + columns + rows).key(),
            "# layer");
  EXPECT_EQ(layer_error(head + "# layer: h=4096,heads=x,kv_heads=8,ffn=14336,seq=4096,mb=1\n" + columns + rows).key(),
            "# layer");
  EXPECT_EQ(layer_error(head + "# layer: h=1,h=2,heads=32,kv_heads=8,ffn=14336,seq=4096,mb=1\n" + columns + rows).key(),
            "# layer");
  const InputError no_backward =
      layer_error(head + shape + columns + "layer_fwd,bf16,4096,4096,14336,1,0.003,1,1,0,0\n");
  EXPECT_EQ(no_backward.key(), "layer_bwd");
  EXPECT_EQ(no_backward.value(), "missing");
}

}  // namespace
}  // namespace trainsim
