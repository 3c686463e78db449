#include "models/expert_load.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "sim/core/portable_math.hpp"
#include "sim/core/portable_random.hpp"

namespace trainsim {

double busiest_expert_rank_load(const ModelSpec& m, const ParallelSpec& p, std::uint64_t seed) {
  if (!m.is_moe()) return 1.0;
  // A stated load factor (model.router_balance): the busiest rank's share, within capacity.
  if (m.router_load > 1.0) return m.capacity_factor > 0 ? std::min(m.router_load, m.capacity_factor) : m.router_load;
  if (m.expert_imbalance <= 0) return 1.0;
  // Log-normal with coefficient of variation c: sigma^2 = ln(1 + c^2), mean 1.
  const double sigma = std::sqrt(portable::log1p(m.expert_imbalance * m.expert_imbalance));
  std::mt19937_64 rng(seed);
  portable::NormalDraws normal;
  const int experts = m.experts;
  const int per_rank = experts / p.ep;
  double total = 0;
  for (int layer = 0; layer < m.layers; ++layer) {
    std::vector<double> load(static_cast<size_t>(experts));
    for (double& l : load) l = portable::exp(sigma * normal.next(rng) - sigma * sigma / 2);
    const double mean = std::accumulate(load.begin(), load.end(), 0.0) / experts;
    for (double& l : load) {
      l /= mean;  // 1 = the balanced share
      if (m.capacity_factor > 0) l = std::min(l, m.capacity_factor);
    }
    double busiest = 0;
    for (int r = 0; r < p.ep; ++r) {
      const auto first = load.begin() + static_cast<long>(r) * per_rank;
      busiest = std::max(busiest, std::accumulate(first, first + per_rank, 0.0) / per_rank);
    }
    total += busiest;
  }
  return total / m.layers;
}

}  // namespace trainsim
