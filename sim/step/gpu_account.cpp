#include "sim/step/gpu_account.hpp"

#include <algorithm>

namespace trainsim {

double GpuAccount::comm_time(double end_s) const {
  std::vector<std::pair<double, double>> spans = comm_intervals_;
  std::sort(spans.begin(), spans.end());
  double total = 0;
  double covered_to = 0;
  for (auto [start, end] : spans) {
    end = std::min(end, end_s);
    start = std::max(start, covered_to);
    if (end > start) {
      total += end - start;
      covered_to = end;
    }
  }
  return total;
}

}  // namespace trainsim
