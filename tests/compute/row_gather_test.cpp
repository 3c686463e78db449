// MoE token permutation timed as the row movers it is (sim/compute/row_gather.hpp): the
// permute's scatter of rows at vLLM's measured Triton rate (0.40 of HBM bandwidth on H200,
// tile-ai/TileOPs#2125), the unpermute's gather-and-sum at 0.61 (TileOPs#608), each gradient at
// its inverse map's rate; every other memory-bound op as before.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/compute/compute_model_factory.hpp"
#include "sim/compute/roofline_compute_model.hpp"
#include "sim/compute/row_gather.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

const std::string k_tables = std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration";
constexpr double k_bytes = 302e6;  // Qwen3 30B-A3B's permute at MBS 2, EP 8: 8,192 tokens to 65,536 rows
constexpr double k_scatter = 1.922 / 4.8;
constexpr double k_gather_sum = 2.93 / 4.8;

Op memory(const std::string& name, double bytes = k_bytes) {
  Op op;
  op.name = name;
  op.kind = OpKind::elementwise;
  op.bytes = bytes;
  return op;
}

TEST(RowGather, EachMapAndItsGradientAtTheirMeasuredRate) {
  EXPECT_DOUBLE_EQ(row_gather_bandwidth_fraction(memory("moe.permute")), k_scatter);
  EXPECT_DOUBLE_EQ(row_gather_bandwidth_fraction(memory("moe.permute.bwd")), k_gather_sum);
  EXPECT_DOUBLE_EQ(row_gather_bandwidth_fraction(memory("moe.unpermute")), k_gather_sum);
  EXPECT_DOUBLE_EQ(row_gather_bandwidth_fraction(memory("moe.unpermute.bwd")), k_scatter);
  EXPECT_DOUBLE_EQ(row_gather_bandwidth_fraction(memory("experts.sort")), k_scatter);
  EXPECT_DOUBLE_EQ(row_gather_bandwidth_fraction(memory("experts.unsort.bwd")), k_scatter);
}

TEST(RowGather, StreamingOpsAndReshapesAreNotRowMovers) {
  for (const char* name : {"mlp.residual", "experts.activation", "experts.reshape", "experts.unreshape.bwd",
                           "router.topk", "experts.up.quantize"})
    EXPECT_EQ(row_gather_bandwidth_fraction(memory(name)), 0) << name;
  Op gemm = memory("moe.permute");
  gemm.kind = OpKind::gemm;
  EXPECT_EQ(row_gather_bandwidth_fraction(gemm), 0);
}

TEST(RowGather, NeverFasterThanStreaming) {
  const Op op = memory("moe.permute");
  EXPECT_DOUBLE_EQ(row_gather_time_s(op, 1.0, 3.35e12), 1.0);
  EXPECT_DOUBLE_EQ(row_gather_time_s(op, 1e-6, 3.35e12), k_bytes / (k_scatter * 3.35e12));
  EXPECT_DOUBLE_EQ(row_gather_time_s(memory("mlp.residual"), 1e-6, 3.35e12), 1e-6);
}

// Without a table: the roofline's kernel time plus the bytes at the row mover's rate, where a
// streaming op of the same bytes runs at 0.85 of the bandwidth.
TEST(RowGather, RooflineTimesPermutationAtItsRate) {
  const GpuSpec gpu = *gpu_preset("h100-sxm");
  const RooflineComputeModel model(datasheet_roofline(gpu, Precision::bf16));
  EXPECT_NEAR(model.op_time_s(memory("moe.permute")), 3e-6 + k_bytes / (k_scatter * gpu.hbm_bandwidth_Bps), 1e-12);
  EXPECT_NEAR(model.op_time_s(memory("mlp.residual")), 3e-6 + k_bytes / (0.85 * gpu.hbm_bandwidth_Bps), 1e-12);
}

// The shipped tables time streaming kernels at up to ~90 % of HBM bandwidth (H100: Vidur's adds;
// B200: derived rows): a permute of the same bytes now takes its measured rate's time on every
// GPU, and a residual add keeps the table's.
TEST(RowGather, ShippedTablesTimePermutationAtTheRowMoversRate) {
  for (const char* name : {"h100-sxm", "h200", "b200", "gb200"}) {
    const GpuSpec gpu = *gpu_preset(name);
    const auto model = make_compute_model(gpu, Precision::bf16, calibration_choice("auto", k_tables));
    const double permute = model->op_time_s(memory("moe.permute"));
    const double residual = model->op_time_s(memory("mlp.residual"));
    EXPECT_NEAR(permute, k_bytes / (k_scatter * gpu.hbm_bandwidth_Bps), 1e-9) << name;
    EXPECT_LT(residual, 0.6 * permute) << name;
    EXPECT_NEAR(model->op_time_s(memory("moe.unpermute")), k_bytes / (k_gather_sum * gpu.hbm_bandwidth_Bps), 1e-9)
        << name;
  }
}

}  // namespace
}  // namespace trainsim
