#include "models/expert_load.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "sim/core/portable_math.hpp"
#include "sim/core/portable_random.hpp"

namespace trainsim {

namespace {

// `load` held to `cap` where a cap is set (> 0).
double capped(double load, double cap) {
  return cap > 0 ? std::min(load, cap) : load;
}

// A stated busiest-rank load (model.router_balance; 1: balanced): the other ranks' loads are
// not known, so they share the rest evenly; each rank keeps its load within the caps.
ExpertLoads stated_loads(const ModelSpec& m, const ParallelSpec& p, double busiest) {
  const auto held = [&](double load) { return capped(capped(load, m.capacity_factor), m.rank_capacity_factor); };
  const int ep = std::max(1, p.ep);
  const double others = ep > 1 ? std::max(0.0, (ep - busiest) / (ep - 1)) : busiest;
  return {held(busiest), (held(busiest) + (ep - 1) * held(others)) / ep};
}

// Expert loads drawn from a log-normal of coefficient of variation `cv` (sigma^2 = ln(1 + cv^2),
// mean 1) for each of `draws` layers, seeded by `seed`; each rank's load is its experts' mean
// within the caps, and the result the layers' mean busiest and kept shares.
ExpertLoads drawn_loads(const ModelSpec& m, const ParallelSpec& p, double cv, int draws, std::uint64_t seed) {
  const double sigma = std::sqrt(portable::log1p(cv * cv));
  std::mt19937_64 rng(seed);
  portable::NormalDraws normal;
  const int experts = m.experts;
  const int per_rank = experts / p.ep;
  double busiest_sum = 0, kept_sum = 0;
  for (int layer = 0; layer < draws; ++layer) {
    std::vector<double> load(static_cast<size_t>(experts));
    for (double& l : load) l = portable::exp(sigma * normal.next(rng) - sigma * sigma / 2);
    const double mean = std::accumulate(load.begin(), load.end(), 0.0) / experts;
    for (double& l : load) l = capped(l / mean, m.capacity_factor);  // 1 = the balanced share
    double busiest = 0, kept = 0;
    for (int r = 0; r < p.ep; ++r) {
      const auto first = load.begin() + static_cast<long>(r) * per_rank;
      const double rank = capped(std::accumulate(first, first + per_rank, 0.0) / per_rank, m.rank_capacity_factor);
      busiest = std::max(busiest, rank);
      kept += rank / p.ep;
    }
    busiest_sum += busiest;
    kept_sum += kept;
  }
  return {busiest_sum / draws, kept_sum / draws};
}

}  // namespace

ExpertLoads expert_loads(const ModelSpec& m, const ParallelSpec& p, std::uint64_t seed) {
  if (!m.is_moe()) return {};
  if (m.router_aux_loss) return drawn_loads(m, p, k_aux_loss_expert_cv, k_aux_loss_draws, k_aux_loss_seed);
  if (m.router_load > 1.0) return stated_loads(m, p, m.router_load);
  if (m.expert_imbalance <= 0) return stated_loads(m, p, 1.0);
  return drawn_loads(m, p, m.expert_imbalance, m.layers, seed);
}

double busiest_expert_rank_load(const ModelSpec& m, const ParallelSpec& p, std::uint64_t seed) {
  return expert_loads(m, p, seed).busiest_rank;
}

}  // namespace trainsim
