#include "models/moe_dispatch.hpp"

#include <algorithm>
#include <vector>

namespace trainsim {

namespace {

// P(a token's `top_k` experts, drawn uniformly without replacement from `pool`, all miss a
// set of `inside` of them) = C(pool - inside, k) / C(pool, k).
double all_miss(int pool, int inside, int top_k) {
  double none = 1.0;
  for (int i = 0; i < top_k; ++i) {
    const double outside = static_cast<double>(pool - inside - i);
    none *= outside > 0 ? outside / (pool - i) : 0.0;
  }
  return none;
}

// P(M groups drawn uniformly from G include a given `c` of `n` named groups and none of the
// other n - c): (M/G)((M-1)/(G-1))... for the c, then ((G-M)/(G-c))... for the rest; 0 when
// impossible.
double exactly_these(int c, int n, int groups, int group_topk) {
  if (c > group_topk || n - c > groups - group_topk) return 0.0;
  double p = 1.0;
  for (int i = 0; i < c; ++i) p *= static_cast<double>(group_topk - i) / (groups - i);
  for (int i = 0; i < n - c; ++i) p *= static_cast<double>(groups - group_topk - i) / (groups - c - i);
  return p;
}

// P(no expert of the unit [first, first + size) is among a group-limited token's): over the
// groups overlapping the unit, the ways to have chosen c of them covering s of its experts
// (a small knapsack count), each times the chance exactly those c were chosen and the token's
// top_k experts, drawn from the M chosen groups' experts, missed those s.
double unit_missed(const ModelSpec& m, int first, int size) {
  const int per_group = m.experts / m.router_num_groups;
  const int pool = m.router_group_topk * per_group;
  std::vector<int> overlaps;
  for (int g = first / per_group; g * per_group < first + size; ++g)
    overlaps.push_back(std::min(first + size, (g + 1) * per_group) - std::max(first, g * per_group));
  const int n = static_cast<int>(overlaps.size());
  // ways[c][s]: subsets of c overlapping groups covering s of the unit's experts.
  std::vector<std::vector<double>> ways(static_cast<size_t>(n) + 1, std::vector<double>(static_cast<size_t>(size) + 1));
  ways[0][0] = 1.0;
  for (int o : overlaps)
    for (int c = n; c >= 1; --c)
      for (int s = size; s >= o; --s) ways[c][s] += ways[c - 1][s - o];
  double missed = 0.0;
  for (int c = 0; c <= n; ++c) {
    const double chosen = exactly_these(c, n, m.router_num_groups, m.router_group_topk);
    if (chosen == 0.0) continue;
    for (int s = 0; s <= size; ++s)
      if (ways[c][s] > 0) missed += ways[c][s] * chosen * all_miss(pool, s, m.top_k);
  }
  return missed;
}

}  // namespace

double expected_destination_ranks(int experts, int top_k, int ranks) {
  if (ranks <= 1) return 1.0;
  const int per_rank = experts / ranks;
  // P(a rank holds none of the token's experts) = C(E - e, k) / C(E, k) = prod (E - e - i) / (E - i).
  return ranks * (1.0 - all_miss(experts, per_rank, top_k));
}

double expected_destination_units(const ModelSpec& m, int units) {
  if (!m.group_limited() || units <= 1) return expected_destination_ranks(m.experts, m.top_k, units);
  const int size = m.experts / units;
  double reached = 0.0;
  for (int u = 0; u < units; ++u) reached += 1.0 - unit_missed(m, u * size, size);
  return reached;
}

double dispatched_rows_per_token(const ModelSpec& m, const ParallelSpec& p) {
  if (p.moe_dispatcher == MoeDispatcher::alltoall) return m.top_k;
  return expected_destination_units(m, p.ep);
}

double remote_peer_share(const ModelSpec& m, const ParallelSpec& p, int local) {
  if (p.moe_dispatcher == MoeDispatcher::alltoall || local <= 1 || local >= p.ep || p.ep % local != 0) return 1.0;
  return expected_destination_units(m, p.ep / local) / expected_destination_units(m, p.ep);
}

}  // namespace trainsim
