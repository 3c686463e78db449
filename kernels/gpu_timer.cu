#include <algorithm>
#include <cmath>

#include "cuda_check.hpp"
#include "gpu_timer.hpp"

namespace trainsim::kernels {

namespace {

class EventPair {
 public:
  EventPair() {
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  double time_s(const std::function<void()>& launch, int calls, cudaStream_t stream) {
    check_cuda(cudaEventRecord(start_, stream), "cudaEventRecord");
    for (int i = 0; i < calls; ++i) launch();
    check_cuda(cudaEventRecord(stop_, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    check_cuda(cudaGetLastError(), "kernel launch");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

}  // namespace

double time_per_call_s(const std::function<void()>& launch, cudaStream_t stream, const TimingPolicy& policy) {
  EventPair events;
  for (int i = 0; i < policy.warmup_calls; ++i) launch();
  check_cuda(cudaStreamSynchronize(stream), "warm-up");
  check_cuda(cudaGetLastError(), "kernel launch");
  const double estimate = std::max(events.time_s(launch, 1, stream), 1e-7);
  const int calls =
      std::clamp(static_cast<int>(std::ceil(policy.target_s / estimate)), policy.min_calls, policy.max_calls);
  return events.time_s(launch, calls, stream) / calls;
}

}  // namespace trainsim::kernels
