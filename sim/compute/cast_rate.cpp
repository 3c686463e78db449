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
// Grouped expert casts run one kernel per expert: Transformer Engine's split_quantize bulk-allocates
// MXFP8 splits but quantizes them one by one (pytorch/csrc/extensions/cast.cpp @ 006b3360,
// multi_tensor_quantize_impl: a fused kernel for delayed-scaling FP8 only), as models/cast_ops.hpp
// counts them. These kernels are not small at the MXFP8 checks' shapes: Qwen3 30B-A3B at micro-batch
// 4 x 4,096, top-8, EP 8 gives each of a GPU's 16 experts 8,192 rows, so 8,192 x 2,048 (68 MB moved)
// and 8,192 x 768 (26 MB) casts, 1/4 and 3/32 of the 8192^2 measurement above, and the memory rows'
// per-kernel floor already charges 2.4 and 4.3 us a kernel beyond the fraction (8 B200, `trainsim layer`:
// experts.up.quantize 250.5 us against 210 us at the fraction alone, experts.down.quantize 152.0 us
// against 79 us). No B200 timing of TE's cast between 512 rows (TransformerEngine#2634: 8.4-9.3 us,
// stated launch-bound) and 8192^2 was found to price a size curve from; the MXFP8 check's +16.7 %
// (scenarios/validation/README.md, "FP8 on fine-grained experts") is not a small-tensor cast effect.

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
