#include "sim/step/nccl_overlap.hpp"

namespace trainsim {

double nccl_overlap_slowdown(int sms, int ctas, double fallback) {
  if (sms <= 0 || ctas <= 0 || ctas >= sms) return fallback;
  return static_cast<double>(ctas) / (sms - ctas);
}

double nccl_overlap_slowdown(const Scenario& s) {
  return nccl_overlap_slowdown(s.cluster.gpu.sms, s.cluster.nccl_min_ctas, s.training.overlap_slowdown);
}

}  // namespace trainsim
