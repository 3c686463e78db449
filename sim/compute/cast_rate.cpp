#include "sim/compute/cast_rate.hpp"

#include <algorithm>

namespace trainsim {

namespace {

// Transformer Engine's B300 layer (NVIDIA/TransformerEngine @ 8f2e6357
// docs/examples/gemm_profiling/gemm_profiling.rst; public.md D6): hidden 4096, FFN 16384,
// 15,872 tokens, the 12 te.Linear calls of a layer timed under autocast and pre-quantized; the
// difference is their casts, 1.823 ms MXFP8 and 2.689 ms NVFP4. Their bytes as
// models/cast_ops.hpp counts them (each input both ways, each weight row-wise with its scales'
// swizzle): 9.130 GB MXFP8 and 12.293 GB NVFP4. The model times a cast this large at its bytes
// over the fraction (cast_time_s: the longer of that and the streaming time, no per-op floor
// added to it) plus the step's launch gap per kernel (2 us: 36 and 60 kernels), so only the
// gaps come off: 1.751 and 2.569 ms, DERIVED 5.21 and 4.79 TB/s, 0.65 and 0.60 of the B300's
// 8 TB/s. (An earlier derivation also took 3 us an op off, a floor the bandwidth term never
// pays, and read 0.68 and 0.615.) Transformer Engine's MXFP8 cast kernel measured on a B200
// gives the same: 8192 x 8192 bf16 cast both ways in 52.34 us (ROCm/TransformerEngine#598,
// its B200 comparison column, kernel time), 272.6 MB at 2 bytes read and 2 x (1 + 1/32)
// written an element, DERIVED 5.21 TB/s, 0.65 of the B200's 8 TB/s (row-wise alone 34.84 us,
// 0.73; column-wise alone 39.61 us, 0.64). torchao's MXFP8 casts on B200 are slower still:
// 131,072 x 7,168 bf16 quantized row-wise in 580.6 us and column-wise in 670.7 us (pytorch/ao
// @ 0b1bb117 torchao/prototype/moe_training/README.md), DERIVED 0.61 and 0.53 of 8 TB/s. Every
// GPU takes these fractions of its own datasheet bandwidth (a stated assumption: the kernels
// were measured on Blackwell, where the formats run).
constexpr double k_mxfp8_fraction = 0.65;
constexpr double k_nvfp4_fraction = 0.60;

}  // namespace

double cast_bandwidth_fraction(const Op& op) {
  if (op.kind != OpKind::elementwise) return 0;
  switch (op.precision) {
    case Precision::mxfp8:
      return k_mxfp8_fraction;
    case Precision::nvfp4:
      return k_nvfp4_fraction;
    default:
      return 0;
  }
}

double cast_time_s(const Op& op, double other_s, double hbm_Bps) {
  const double fraction = cast_bandwidth_fraction(op);
  if (!(fraction > 0) || !(hbm_Bps > 0)) return other_s;
  return std::max(other_s, op.bytes / (fraction * hbm_Bps));
}

}  // namespace trainsim
