#pragma once
// One cuBLASLt matrix multiply, planned once (descriptors, layouts, the heuristic's best
// algorithm) and run many times. Column-major, as cuBLAS counts:
//   D[m x n] = op(A) op(B), op(A) m x k, op(B) k x n, `batch` times with strided operands.
// Precisions: bf16 / fp16 (fp32 accumulate), fp8 e4m3 inputs with bf16 output (TN only,
// compute capability >= 8.9), tf32 (fp32 data on TF32 tensor cores), fp32 (no tensor cores).

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace trainsim::kernels {

enum class GemmType { bf16, fp16, fp8, tf32, fp32 };

/// "bf16" -> GemmType::bf16, ...; throws std::invalid_argument for another name.
GemmType gemm_type(const std::string& name);
const char* gemm_type_name(GemmType type);
/// Bytes per element of A and B, and of D.
std::size_t input_bytes(GemmType type);
std::size_t output_bytes(GemmType type);

struct GemmShape3 {
  long long m = 0, n = 0, k = 0, batch = 1;
  bool transa = true;   ///< A stored k x m (op T), else m x k
  bool transb = false;  ///< B stored n x k (op T), else k x n
};

class GemmPlan {
 public:
  /// Throws std::runtime_error if cuBLASLt has no algorithm for the shape and type.
  GemmPlan(cublasLtHandle_t handle, GemmType type, const GemmShape3& shape, std::size_t workspace_bytes);
  ~GemmPlan();
  GemmPlan(const GemmPlan&) = delete;
  GemmPlan& operator=(const GemmPlan&) = delete;

  /// Enqueues D = op(A) op(B) on `stream`; `workspace` holds workspace_bytes.
  void run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const;

 private:
  cublasLtHandle_t handle_;
  GemmType type_;
  std::size_t workspace_bytes_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace trainsim::kernels
