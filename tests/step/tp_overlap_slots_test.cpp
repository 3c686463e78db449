// Where a layer's TP collectives meet their GEMMs (sim/step/tp_overlap_slots.hpp): the kernel
// that sums a ring-exchange reduce-scatter's partial outputs after its last chunk.

#include <gtest/gtest.h>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/tp_overlap_slots.hpp"

namespace trainsim {
namespace {

RooflineComputeModel streaming_at(double hbm_Bps) {
  RooflineParameters p;
  p.matmul_peak_flops = 1e15;
  p.gemm_efficiency = 1;
  p.attention_efficiency = 1;
  p.hbm_bandwidth_Bps = hbm_Bps;
  p.memory_efficiency = 1;
  return RooflineComputeModel(p);
}

TEST(TpOverlapSlots, ARingReduceScatterReadsEveryPartialAndWritesItsShare) {
  const RooflineComputeModel compute = streaming_at(1e12);
  // Llama 3 70B at TP 4: one 8192 x 8192 bf16 activation (134 MB); the reduction reads the
  // four partial outputs (the whole activation) and writes a quarter of it.
  const double act = 8192.0 * 8192.0 * 2.0;
  EXPECT_NEAR(ring_reduce_s(act, 4, compute), act * 1.25 / 1e12, 1e-12);
  // At TP 8 the share written is an eighth.
  EXPECT_NEAR(ring_reduce_s(act, 8, compute), act * 1.125 / 1e12, 1e-12);
  // Nothing to reduce without a TP group.
  EXPECT_DOUBLE_EQ(ring_reduce_s(act, 1, compute), 0.0);
  EXPECT_DOUBLE_EQ(ring_reduce_s(0, 4, compute), 0.0);
}

}  // namespace
}  // namespace trainsim
