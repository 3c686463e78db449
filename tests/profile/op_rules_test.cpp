// The op-to-row rules (sim/profile/op_rules.hpp) on single ops shaped as PyTorch records them.

#include "sim/profile/op_rules.hpp"

#include <gtest/gtest.h>

namespace trainsim::profile {
namespace {

OpInput tensor(std::vector<std::int64_t> shape, std::string type = "float", std::string value = "") {
  OpInput in;
  in.shape = std::move(shape);
  in.type = std::move(type);
  in.value = std::move(value);
  return in;
}

OpInput scalar(std::string value = "") {
  OpInput in;
  in.type = "Scalar";
  in.value = std::move(value);
  return in;
}

TraceOp op(std::string name, std::vector<OpInput> inputs) {
  TraceOp o;
  o.name = std::move(name);
  o.has_shapes = true;
  o.inputs = std::move(inputs);
  return o;
}

const std::vector<std::string> k_tensor_core{
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>"};
const std::vector<std::string> k_simt{"ampere_sgemm_128x64_nn"};

TEST(ProfileOpRules, MmIsAGemmOfItsOperands) {
  const OpMapping m = map_op(op("aten::mm", {tensor({1024, 256}), tensor({256, 2880})}), k_tensor_core);
  ASSERT_TRUE(m.row) << m.reason;
  EXPECT_EQ(m.row->shape, (RowShape{"gemm", "tf32", 1024, 2880, 256, 1}));
  EXPECT_DOUBLE_EQ(m.row->flops, 2.0 * 1024 * 2880 * 256);
  EXPECT_DOUBLE_EQ(m.row->bytes, (1024.0 * 256 + 256.0 * 2880 + 1024.0 * 2880) * 4);
}

TEST(ProfileOpRules, Fp32GemmsAreTf32OnlyOnTensorCoreKernels) {
  const TraceOp mm = op("aten::mm", {tensor({64, 64}), tensor({64, 64})});
  EXPECT_EQ(map_op(mm, k_tensor_core).row->shape.dtype, "tf32");
  EXPECT_EQ(map_op(mm, k_simt).row->shape.dtype, "fp32");
  EXPECT_EQ(map_op(mm, {"sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize64x64x16"}).row->shape.dtype, "tf32");
  const TraceOp bf16 = op("aten::mm", {tensor({64, 64}, "c10::BFloat16"), tensor({64, 64}, "c10::BFloat16")});
  EXPECT_EQ(map_op(bf16, k_simt).row->shape.dtype, "bf16");
  EXPECT_DOUBLE_EQ(map_op(bf16, k_simt).row->bytes, 3 * 64.0 * 64 * 2);
}

TEST(ProfileOpRules, AddmmAndLinearFoldLeadingDimsIntoM) {
  const OpMapping addmm =
      map_op(op("aten::addmm", {tensor({96}), tensor({1024, 512}), tensor({512, 96}), scalar(), scalar()}), k_simt);
  EXPECT_EQ(addmm.row->shape, (RowShape{"gemm", "fp32", 1024, 96, 512, 1}));
  const OpMapping linear =
      map_op(op("aten::linear", {tensor({8, 128, 50}), tensor({15, 50}), tensor({15})}), k_tensor_core);
  EXPECT_EQ(linear.row->shape, (RowShape{"gemm", "tf32", 1024, 15, 50, 1}));
}

TEST(ProfileOpRules, BatchedProductsAreBatchedGemms) {
  const OpMapping bmm = map_op(op("aten::bmm", {tensor({32, 96, 647}), tensor({32, 647, 30})}), k_simt);
  EXPECT_EQ(bmm.row->shape, (RowShape{"batched_gemm", "fp32", 96, 30, 647, 32}));
  EXPECT_DOUBLE_EQ(bmm.row->flops, 2.0 * 96 * 30 * 647 * 32);
  // matmul broadcasts batch dims; a 2-D right operand folds the left's into m.
  const OpMapping broadcast =
      map_op(op("aten::matmul", {tensor({4, 1, 64, 32}), tensor({1, 8, 32, 16})}), k_tensor_core);
  EXPECT_EQ(broadcast.row->shape, (RowShape{"batched_gemm", "tf32", 64, 16, 32, 32}));
  const OpMapping folded = map_op(op("aten::matmul", {tensor({1024, 96, 50}), tensor({50, 15})}), k_simt);
  EXPECT_EQ(folded.row->shape, (RowShape{"gemm", "fp32", 98304, 15, 50, 1}));
  EXPECT_FALSE(map_op(op("aten::matmul", {tensor({64, 32}), tensor({32})}), k_simt).row);
}

TEST(ProfileOpRules, FusedAttentionNeedsItsCausalFlag) {
  const auto q = tensor({2, 16, 1024, 128}, "c10::BFloat16");
  const auto kv = tensor({2, 4, 1024, 128}, "c10::BFloat16");
  const OpMapping causal = map_op(
      op("aten::_scaled_dot_product_flash_attention", {q, kv, kv, scalar("0."), scalar("True"), scalar("False")}), {});
  ASSERT_TRUE(causal.row) << causal.reason;
  EXPECT_EQ(causal.row->shape, (RowShape{"attention_fwd", "bf16", 1024, 1024, 128, 32}));
  EXPECT_DOUBLE_EQ(causal.row->flops, 4.0 * 32 * 1024 * 1024 * 128 * 0.5);
  EXPECT_DOUBLE_EQ(causal.row->bytes, (2.0 * 2 * 16 * 1024 * 128 + 2.0 * 2 * 4 * 1024 * 128) * 2);
  const OpMapping unknown =
      map_op(op("aten::_scaled_dot_product_flash_attention", {q, kv, kv, scalar(), scalar(), scalar()}), {});
  EXPECT_FALSE(unknown.row);
  EXPECT_NE(unknown.reason.find("is_causal"), std::string::npos);
  std::vector<OpInput> backward{q, q, kv, kv, q};
  for (int i = 0; i < 6; ++i) backward.push_back(scalar());
  backward.push_back(scalar("False"));
  const OpMapping bwd = map_op(op("aten::_scaled_dot_product_flash_attention_backward", backward), {});
  ASSERT_TRUE(bwd.row) << bwd.reason;
  EXPECT_EQ(bwd.row->shape.kernel, "attention_bwd");
  EXPECT_DOUBLE_EQ(bwd.row->flops, 2.5 * 4.0 * 32 * 1024 * 1024 * 128);
}

TEST(ProfileOpRules, NormsCountRowsByTheirWeight) {
  const OpMapping ln = map_op(
      op("aten::layer_norm", {tensor({8, 128, 512}), scalar(), tensor({512}), tensor({512}), scalar(), scalar()}), {});
  EXPECT_EQ(ln.row->shape, (RowShape{"layernorm", "fp32", 1024, 512, 0, 1}));
  EXPECT_DOUBLE_EQ(ln.row->bytes, (2.0 * 1024 * 512 + 2.0 * 512) * 4);  // kernels/README.md: 4 r c + 4 c in bf16
  const OpMapping bwd = map_op(
      op("aten::native_layer_norm_backward", {tensor({1024, 256}), tensor({1024, 256}), scalar(), tensor({1024, 1}),
                                              tensor({1024, 1}), tensor({256}), tensor({256}), scalar()}),
      {});
  EXPECT_EQ(bwd.row->shape, (RowShape{"layernorm_bwd", "fp32", 1024, 256, 0, 1}));
  const OpMapping rms = map_op(op("aten::rms_norm", {tensor({4096, 4096}, "c10::BFloat16"), scalar(),
                                                     tensor({4096}, "c10::BFloat16"), scalar()}),
                               {});
  EXPECT_DOUBLE_EQ(rms.row->bytes, 4.0 * 4096 * 4096 + 2.0 * 4096);
}

TEST(ProfileOpRules, AddNeedsTwoWholeTensors) {
  const OpMapping add = map_op(op("aten::add_", {tensor({100, 7}), tensor({100, 7}), scalar()}), {});
  EXPECT_EQ(add.row->shape, (RowShape{"add", "fp32", 100, 7, 0, 1}));
  EXPECT_DOUBLE_EQ(add.row->bytes, 3.0 * 700 * 4);
  EXPECT_FALSE(map_op(op("aten::add", {tensor({100, 7}), tensor({7}), scalar()}), {}).row);
  EXPECT_FALSE(map_op(op("aten::add", {tensor({100, 7}), scalar("1"), scalar()}), {}).row);
}

TEST(ProfileOpRules, CopiesAndFusedAdam) {
  const OpMapping copy = map_op(op("aten::copy_", {tensor({1024, 183}), tensor({1024, 183}), scalar()}), {});
  EXPECT_EQ(copy.row->shape, (RowShape{"copy_d2d", "u8", 1024 * 183 * 4, 1, 0, 1}));
  EXPECT_FALSE(map_op(op("aten::copy_", {tensor({4}, "long int"), tensor({4}, "int"), scalar()}), {}).row);
  OpInput params;
  params.type = "TensorList";
  params.list = {{128, 128}, {128}};
  const OpMapping adam = map_op(op("aten::_fused_adam_", {params, params}), {});
  EXPECT_EQ(adam.row->shape, (RowShape{"adam", "fp32", 128 * 128 + 128, 1, 0, 1}));
  GpuActivity d2d{GpuActivityKind::memcpy, "Memcpy DtoD (Device -> Device)", 13, 7, 12881920, "", 0};
  EXPECT_EQ(map_memcpy(d2d).row->shape, (RowShape{"copy_d2d", "u8", 12881920, 1, 0, 1}));
  GpuActivity pageable{GpuActivityKind::memcpy, "Memcpy DtoH (Device -> Pageable)", 2, 8, 984, "", 0};
  EXPECT_FALSE(map_memcpy(pageable).row);
}

TEST(ProfileOpRules, OpsWithoutShapesOrRulesAreNotMapped) {
  TraceOp mm = op("aten::mm", {tensor({4, 4}), tensor({4, 4})});
  mm.has_shapes = false;
  EXPECT_NE(map_op(mm, k_simt).reason.find("record_shapes"), std::string::npos);
  EXPECT_FALSE(has_rule("aten::sum"));
  EXPECT_TRUE(has_rule("aten::linear"));
  EXPECT_FALSE(map_op(op("aten::mm", {tensor({4, 4}, "double"), tensor({4, 4}, "double")}), k_simt).row);
}

}  // namespace
}  // namespace trainsim::profile
