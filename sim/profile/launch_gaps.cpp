#include "sim/profile/launch_gaps.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace trainsim::profile {

LaunchGaps measure_launch_gaps(const ProfilerTrace& trace) {
  std::map<std::int64_t, double> launch_end_us;  // by correlation id
  for (const RuntimeCall& r : trace.runtime_calls) launch_end_us[r.correlation] = r.end_us;
  std::map<std::string, std::vector<const GpuActivity*>> streams;
  for (const GpuActivity& g : trace.gpu)
    if (g.kind == GpuActivityKind::kernel) streams[g.stream].push_back(&g);
  std::vector<double> gaps_us;
  for (auto& [stream, kernels] : streams) {
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const GpuActivity* a, const GpuActivity* b) { return a->start_us < b->start_us; });
    for (std::size_t i = 1; i < kernels.size(); ++i) {
      const GpuActivity& before = *kernels[i - 1];
      const GpuActivity& next = *kernels[i];
      if (!next.correlation) continue;
      const auto launch = launch_end_us.find(*next.correlation);
      const double before_end = before.start_us + before.duration_us;
      if (launch == launch_end_us.end() || launch->second > before_end) continue;  // not queued
      const double gap = next.start_us - before_end;
      if (gap >= 0) gaps_us.push_back(gap);
    }
  }
  LaunchGaps result;
  result.pairs = gaps_us.size();
  if (gaps_us.empty()) return result;
  std::sort(gaps_us.begin(), gaps_us.end());
  const std::size_t n = gaps_us.size();
  const double median_us = n % 2 == 1 ? gaps_us[n / 2] : 0.5 * (gaps_us[n / 2 - 1] + gaps_us[n / 2]);
  result.median_s = median_us * 1e-6;
  return result;
}

}  // namespace trainsim::profile
