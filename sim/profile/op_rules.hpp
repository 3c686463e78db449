#pragma once
// Which calibration row a PyTorch op is: the rules from an operator's name, its recorded
// input shapes and types, and the kernels it launched, to a row of kernels/README.md's
// table ("Calibration table format": what each kernel puts in m, n, k, batch, and how its
// FLOPs and bytes are counted). Operator signatures (which input holds what) are PyTorch's
// aten/src/ATen/native/native_functions.yaml.
//
//   aten::mm, addmm, linear, matmul, _scaled_mm   gemm: m = output rows (all leading dims
//                                                  of the input), n = output features, k
//   aten::bmm, baddbmm, matmul (batched)           batched_gemm: m, n, k per matrix, batch
//   aten::_scaled_dot_product_{flash,efficient}_attention[_backward]
//                                                  attention_fwd / attention_bwd: seq q,
//                                                  seq k, head_dim, batch x heads (fused
//                                                  kernels; is_causal from "Concrete Inputs")
//   aten::layer_norm, native_layer_norm, rms_norm  layernorm / rmsnorm: rows, columns
//   aten::native_layer_norm_backward               layernorm_bwd
//   aten::softmax, _softmax / _softmax_backward_data   softmax / softmax_bwd (last dim)
//   aten::gelu / gelu_backward, silu / silu_backward   gelu, silu / gelu_bwd, silu_bwd
//   aten::add, add_ (two tensors of one shape)     add: rows, columns
//   aten::copy_ (same dtype, a kernel)             copy_d2d (u8): bytes copied
//   aten::_fused_adam_, _fused_adamw_              adam: parameters (fp32 states)
//   memcpy events (no op needed)                   copy_d2d, memcpy_h2d, memcpy_d2h (pinned): bytes
//
// dtypes: "c10::BFloat16" bf16, "c10::Half" fp16, "c10::Float8_e4m3fn" fp8, "float" fp32,
// except for GEMMs, where fp32 data is tf32 when a kernel the op launched runs on TF32
// tensor cores (its name says "tf32" or "tensorop", as cuBLAS's sm80_xmma_gemm_*tf32* and
// CUTLASS's *tensorop_s1688gemm* do; PyTorch chooses by torch.backends.cuda.matmul.allow_tf32,
// which the trace does not record) and fp32 otherwise (SIMT kernels: ampere_sgemm_*, gemv).
// Backward rows of memory-bound ops (_bwd) count the workload's convention
// (models/layer_workload.cpp, memory_backward): saved input and output gradient read,
// input gradient written.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/profile/profiler_trace.hpp"

namespace trainsim::profile {

/// A calibration row's identity: kernel, dtype and shape fields.
struct RowShape {
  std::string kernel;  ///< "gemm", "layernorm", ...
  std::string dtype;   ///< "bf16", "tf32", "u8", ...
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  auto operator<=>(const RowShape&) const = default;
};

/// An op instance as a row, with its work per call.
struct MappedOp {
  RowShape shape;
  double flops = 0;  ///< FLOP per call
  double bytes = 0;  ///< HBM bytes per call (PCIe bytes for host copies)
};

/// A mapping: the row, or why there is none.
struct OpMapping {
  std::optional<MappedOp> row;
  std::string reason;  ///< set when `row` is empty
};

/// True when a rule above maps ops named `op_name` (whether or not a given instance's
/// shapes allow it).
bool has_rule(const std::string& op_name);

/// Maps one op instance; `kernel_names` are the GPU kernels it launched (for the tf32 or
/// fp32 choice of fp32 GEMMs).
OpMapping map_op(const TraceOp& op, const std::vector<std::string>& kernel_names);

/// A memcpy event as a row by its own name and args.bytes: "Memcpy DtoD" copy_d2d (bytes =
/// 2 x copied, read and written), "Memcpy HtoD" memcpy_h2d and "Memcpy DtoH" memcpy_d2h
/// (bytes = copied, over PCIe); others (peer-to-peer) have no row.
OpMapping map_memcpy(const GpuActivity& copy);

}  // namespace trainsim::profile
