// A memory-bound op of several kernels pays each kernel at its own size: the calibration
// table's memory rows time one kernel, its fixed floor included, so an op of k kernels over B
// bytes costs k kernels of B / k, not one kernel of B (sim/compute/calibrated_compute_model.cpp).

#include <gtest/gtest.h>

#include <string>

#include "sim/compute/calibrated_compute_model.hpp"
#include "sim/compute/compute_model_factory.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {
namespace {

const std::string k_tables = std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration";

CalibratedComputeModel h100_table_model() {
  const GpuSpec gpu = *gpu_preset("h100-sxm");
  return CalibratedComputeModel(read_calibration_table(calibration_table_path(k_tables, "h100-sxm")), Precision::bf16,
                                datasheet_roofline(gpu, Precision::bf16));
}

Op memory_op(double bytes, int kernels) {
  Op op;
  op.name = "router.topk";
  op.kind = OpKind::elementwise;
  op.bytes = bytes;
  op.kernels = kernels;
  return op;
}

TEST(MemoryKernelSplit, TwoKernelsPayTwoMeasuredKernelsOfHalfTheBytes) {
  const CalibratedComputeModel model = h100_table_model();
  // vidur's measured H100 adds (kernels/calibration/h100-sxm.csv, measured:vidur): 3 MiB moved
  // in 2 us, 6 MiB in 3 us. Two kernels of 3 MiB pay two floors: 4 us, not 3.
  const double half = 3145728, whole = 6291456;
  EXPECT_DOUBLE_EQ(model.op_time_s(memory_op(half, 1)), 2e-6);
  EXPECT_DOUBLE_EQ(model.op_time_s(memory_op(whole, 1)), 3e-6);
  EXPECT_DOUBLE_EQ(model.op_time_s(memory_op(whole, 2)), 4e-6);
}

TEST(MemoryKernelSplit, AnOpOfKKernelsCostsKTimesOneKernelOfItsShare) {
  const CalibratedComputeModel model = h100_table_model();
  for (const int k : {3, 16, 48}) {
    const double bytes = 335.5e6;
    EXPECT_NEAR(model.op_time_s(memory_op(bytes, k)), k * model.op_time_s(memory_op(bytes / k, 1)),
                1e-12 * k);
  }
}

TEST(MemoryKernelSplit, ZeroKernelsCountAsOne) {
  const CalibratedComputeModel model = h100_table_model();
  EXPECT_DOUBLE_EQ(model.op_time_s(memory_op(1e7, 0)), model.op_time_s(memory_op(1e7, 1)));
}

}  // namespace
}  // namespace trainsim
