#include <cstdint>
#include <stdexcept>

#include "cuda_check.hpp"
#include "gemm_plan.hpp"

namespace trainsim::kernels {

namespace {

cudaDataType_t input_type(GemmType t) {
  switch (t) {
    case GemmType::bf16:
      return CUDA_R_16BF;
    case GemmType::fp16:
      return CUDA_R_16F;
    case GemmType::fp8:
      return CUDA_R_8F_E4M3;
    default:
      return CUDA_R_32F;
  }
}

cudaDataType_t output_type(GemmType t) {
  return t == GemmType::fp8 ? CUDA_R_16BF : input_type(t);
}

cublasComputeType_t compute_type(GemmType t) {
  return t == GemmType::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

cublasLtMatrixLayout_t make_layout(cudaDataType_t type, long long rows, long long cols, long long batch) {
  cublasLtMatrixLayout_t layout = nullptr;
  check_cublas(cublasLtMatrixLayoutCreate(&layout, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols),
                                          static_cast<int64_t>(rows)),
               "cublasLtMatrixLayoutCreate");
  if (batch > 1) {
    const auto count = static_cast<int32_t>(batch);
    const auto stride = static_cast<int64_t>(rows * cols);
    check_cublas(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
                 "batch count");
    check_cublas(
        cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
        "batch stride");
  }
  return layout;
}

}  // namespace

GemmType gemm_type(const std::string& name) {
  if (name == "bf16") return GemmType::bf16;
  if (name == "fp16") return GemmType::fp16;
  if (name == "fp8") return GemmType::fp8;
  if (name == "tf32") return GemmType::tf32;
  if (name == "fp32") return GemmType::fp32;
  throw std::invalid_argument("unknown dtype '" + name + "' (bf16, fp16, fp8, tf32, fp32)");
}

const char* gemm_type_name(GemmType type) {
  switch (type) {
    case GemmType::bf16:
      return "bf16";
    case GemmType::fp16:
      return "fp16";
    case GemmType::fp8:
      return "fp8";
    case GemmType::tf32:
      return "tf32";
    case GemmType::fp32:
      return "fp32";
  }
  return "?";
}

std::size_t input_bytes(GemmType type) {
  switch (type) {
    case GemmType::fp8:
      return 1;
    case GemmType::bf16:
    case GemmType::fp16:
      return 2;
    default:
      return 4;
  }
}

std::size_t output_bytes(GemmType type) {
  return type == GemmType::fp8 ? 2 : input_bytes(type);
}

GemmPlan::GemmPlan(cublasLtHandle_t handle, GemmType type, const GemmShape3& s, std::size_t workspace_bytes)
    : handle_(handle), type_(type), workspace_bytes_(workspace_bytes) {
  check_cublas(cublasLtMatmulDescCreate(&desc_, compute_type(type), CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t ta = s.transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = s.transb ? CUBLAS_OP_T : CUBLAS_OP_N;
  check_cublas(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "transa");
  check_cublas(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "transb");
  a_ = s.transa ? make_layout(input_type(type), s.k, s.m, s.batch) : make_layout(input_type(type), s.m, s.k, s.batch);
  b_ = s.transb ? make_layout(input_type(type), s.n, s.k, s.batch) : make_layout(input_type(type), s.k, s.n, s.batch);
  d_ = make_layout(output_type(type), s.m, s.n, s.batch);

  cublasLtMatmulPreference_t preference = nullptr;
  check_cublas(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const auto ws = static_cast<uint64_t>(workspace_bytes);
  check_cublas(
      cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
      "workspace preference");
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, d_, d_, preference, 1, &result, &returned);
  cublasLtMatmulPreferenceDestroy(preference);
  if (status != CUBLAS_STATUS_SUCCESS || returned == 0) {
    this->~GemmPlan();
    throw std::runtime_error(std::string("cuBLASLt has no algorithm for this ") + gemm_type_name(type) + " GEMM");
  }
  algo_ = result.algo;
}

GemmPlan::~GemmPlan() {
  if (d_ != nullptr) cublasLtMatrixLayoutDestroy(d_);
  if (b_ != nullptr) cublasLtMatrixLayoutDestroy(b_);
  if (a_ != nullptr) cublasLtMatrixLayoutDestroy(a_);
  if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
  d_ = b_ = a_ = nullptr;
  desc_ = nullptr;
}

void GemmPlan::run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  check_cublas(cublasLtMatmul(handle_, desc_, &alpha, a, a_, b, b_, &beta, d, d_, d, d_, &algo_, workspace,
                              workspace_bytes_, stream),
               "cublasLtMatmul");
}

}  // namespace trainsim::kernels
