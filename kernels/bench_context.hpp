#pragma once
// What every benchmark needs: a stream, a cuBLASLt handle with its workspace, and the
// timing policy. One per run, passed by reference (no globals).

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "gpu_timer.hpp"

namespace trainsim::kernels {

class BenchContext {
 public:
  /// 32 MiB of cuBLASLt workspace, what the cuBLAS API reference (cublasSetWorkspace)
  /// recommends for Hopper (4 MiB for earlier GPUs, for which 32 is ample). Throws
  /// std::runtime_error on a CUDA error.
  explicit BenchContext(TimingPolicy policy, std::size_t workspace_bytes = 32u << 20)
      : policy_(policy), workspace_(workspace_bytes) {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cublas(cublasLtCreate(&lt_), "cublasLtCreate");
  }
  ~BenchContext() {
    cublasLtDestroy(lt_);
    cudaStreamDestroy(stream_);
  }
  BenchContext(const BenchContext&) = delete;
  BenchContext& operator=(const BenchContext&) = delete;

  cudaStream_t stream() const { return stream_; }
  cublasLtHandle_t lt() const { return lt_; }
  void* workspace() const { return workspace_.get(); }
  std::size_t workspace_bytes() const { return workspace_.bytes(); }
  const TimingPolicy& policy() const { return policy_; }

 private:
  TimingPolicy policy_;
  DeviceBuffer workspace_;
  cudaStream_t stream_{};
  cublasLtHandle_t lt_{};
};

}  // namespace trainsim::kernels
