#include "sim/compute/roofline_compute_model.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/compute/cast_rate.hpp"
#include "sim/compute/row_gather.hpp"

namespace trainsim {

namespace {

// Maximum achievable matmul FLOP/s measured with PyTorch (stas00/ml-engineering
// compute/accelerator "MAMF" table, ../shared/validation/public.md D3): A100 SXM bf16
// 271.2 of 312 (86.9 %), H100 SXM bf16 794.5 of 989 (80.3 %, "H200 is the same"),
// fp8 H100 1402.6 of 1979 (70.9 %), H200 1453.4 (73.4 %).
// By the GPU whose measurements stand for this one (GpuSpec::table_gpu, a preset's kernel_table).
double gemm_efficiency(const GpuSpec& gpu, Precision precision) {
  if (gpu.table_gpu() == "a100-80g") return 0.869;
  // mxfp8 and nvfp4: no public MAMF measurement yet; fp8's efficiency is a stated assumption.
  if (is_quantized(precision)) return gpu.table_gpu() == "h200" ? 0.734 : 0.709;
  return 0.803;
}

}  // namespace

RooflineParameters datasheet_roofline(const GpuSpec& gpu, Precision precision) {
  RooflineParameters p;
  p.matmul_peak_flops = gpu.peak_flops(precision);  // fp32 matmuls run on TF32 tensor cores
  p.gemm_efficiency = gemm_efficiency(gpu, precision);
  if (is_quantized(precision)) {
    p.bf16_peak_flops = gpu.peak_bf16_flops;
    p.bf16_gemm_efficiency = gemm_efficiency(gpu, Precision::bf16);
  }
  // FlashAttention-2 reaches 50-73 % of the A100's peak (Dao 2023, abstract); FlashAttention-3
  // up to 75 % of the H100's (Shah et al. 2024, abstract). We take 0.6 until kernels/
  // calibration tables measure it.
  p.attention_efficiency = 0.6;
  p.hbm_bandwidth_Bps = gpu.hbm_bandwidth_Bps;
  // Stated assumption until measured: streaming kernels reach ~85 % of datasheet HBM bandwidth.
  p.memory_efficiency = 0.85;
  // Stated assumption until measured: a few microseconds of launch and tail per kernel.
  p.kernel_overhead_s = 3e-6;
  return p;
}

RooflineComputeModel::RooflineComputeModel(RooflineParameters parameters) : parameters_(parameters) {}

double RooflineComputeModel::op_time_s(const Op& op) const {
  const RooflineParameters& p = parameters_;
  // Under fp8 (mxfp8, nvfp4) training the ops Transformer Engine leaves in bf16 run at the
  // bf16 peak.
  const bool bf16_op = p.bf16_peak_flops > 0 && !is_quantized(op.precision);
  const double peak = bf16_op ? p.bf16_peak_flops : p.matmul_peak_flops;
  double efficiency = 0;
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::batched_gemm:
      efficiency = bf16_op ? p.bf16_gemm_efficiency : p.gemm_efficiency;
      break;
    case OpKind::attention:
      efficiency = p.attention_efficiency;
      break;
    default:
      efficiency = 0;  // memory-bound ops: their FLOPs are not the limit
  }
  const double compute_s = efficiency > 0 ? op.flops / (peak * efficiency) : 0.0;
  // Token permutation's row movers and block-scaled casts at their measured rates
  // (sim/compute/row_gather.hpp, cast_rate.hpp).
  const double memory_s = cast_time_s(
      op, row_gather_time_s(op, op.bytes / (p.hbm_bandwidth_Bps * p.memory_efficiency), p.hbm_bandwidth_Bps),
      p.hbm_bandwidth_Bps);
  return p.kernel_overhead_s + std::max(compute_s, memory_s);
}

std::string RooflineComputeModel::description() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "datasheet roofline (no calibration table): %.0f TFLOP/s x %.3f, %.0f GB/s x %.2f",
                parameters_.matmul_peak_flops / 1e12, parameters_.gemm_efficiency, parameters_.hbm_bandwidth_Bps / 1e9,
                parameters_.memory_efficiency);
  return buf;
}

}  // namespace trainsim
