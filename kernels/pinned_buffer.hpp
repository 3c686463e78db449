#pragma once
// An owning pinned host buffer (cudaMallocHost): host <-> device copies from pageable
// memory go through a staging copy and would not measure the link. Throws
// std::runtime_error if the allocation fails.

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.hpp"

namespace trainsim::kernels {

class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
    check_cuda(cudaMallocHost(&data_, bytes), "cudaMallocHost");
  }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace trainsim::kernels
