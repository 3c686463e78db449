#pragma once
// The sections of a calibration run. Each allocates what it needs (cudaMalloc), measures
// its shapes of calibration_grid.hpp, frees, and returns one MeasuredRow per shape. Each
// throws std::runtime_error on a CUDA or cuBLASLt error (the caller skips that section and
// says so in the table's header). Row conventions: README.md, "Calibration table format".

#include <string>
#include <vector>

#include "bench_context.hpp"
#include "calibration_grid.hpp"
#include "measured_row.hpp"

namespace trainsim::kernels {

/// 'gemm' rows of `dtype` over gemm_axis^3: row m = tokens (output rows), n = output
/// features, k = reduction; issued as PyTorch's Linear does (TN in cuBLAS's column-major
/// terms, weight [n, k] row-major).
std::vector<MeasuredRow> bench_gemm(const BenchContext& ctx, const CalibrationGrid& grid, const std::string& dtype);
/// 'batched_gemm' rows of `dtype`: strided batches of the same shape.
std::vector<MeasuredRow> bench_batched_gemm(const BenchContext& ctx, const CalibrationGrid& grid,
                                            const std::string& dtype);
/// 'attention_unfused_fwd' and 'attention_unfused_bwd' rows (bf16, unfused_attention.hpp).
std::vector<MeasuredRow> bench_attention(const BenchContext& ctx, const CalibrationGrid& grid);
/// 'layernorm', 'rmsnorm', 'softmax', 'gelu', 'swiglu', 'add' and 'adam' rows.
std::vector<MeasuredRow> bench_memory_kernels(const BenchContext& ctx, const CalibrationGrid& grid);
/// 'copy_d2d', 'memcpy_h2d' and 'memcpy_d2h' rows (pinned host memory).
std::vector<MeasuredRow> bench_copies(const BenchContext& ctx, const CalibrationGrid& grid);

/// A Llama-style decoder layer (RMSNorm, GQA attention, SwiGLU MLP; Touvron et al. 2023).
struct LayerShape {
  long long hidden = 4096;
  long long heads = 32;
  long long kv_heads = 8;
  long long ffn = 14336;
  long long seq = 4096;
  long long micro_batch = 1;
};

/// Parses "h=4096,heads=32,kv_heads=8,ffn=14336,seq=4096,mb=1" (any subset; the rest keep
/// the defaults above, Llama 3 8B). Throws std::invalid_argument naming a bad key or value.
LayerShape parse_layer_shape(const std::string& spec);

/// The shape with every key: "h=4096,heads=32,kv_heads=8,ffn=14336,seq=4096,mb=1" (the
/// table's `# layer:` header, which `trainsim layer --measured` checks the scenario against).
std::string layer_spec(const LayerShape& shape);

/// One row per op of the layer's forward and backward ('layer.<op>', timed alone) and the
/// totals 'layer_fwd' and 'layer_bwd' (the whole sequence timed back to back), bf16.
std::vector<MeasuredRow> bench_layer(const BenchContext& ctx, const LayerShape& shape);

}  // namespace trainsim::kernels
