#include "models/moe_dispatch.hpp"

namespace trainsim {

double expected_destination_ranks(int experts, int top_k, int ranks) {
  if (ranks <= 1) return 1.0;
  const int per_rank = experts / ranks;
  // P(a rank holds none of the token's experts) = C(E - e, k) / C(E, k) = prod (E - e - i) / (E - i).
  double none = 1.0;
  for (int i = 0; i < top_k; ++i) {
    const double outside = static_cast<double>(experts - per_rank - i);
    none *= outside > 0 ? outside / (experts - i) : 0.0;
  }
  return ranks * (1.0 - none);
}

double dispatched_rows_per_token(const ModelSpec& m, const ParallelSpec& p) {
  if (p.moe_dispatcher == MoeDispatcher::alltoall) return m.top_k;
  return expected_destination_ranks(m.experts, m.top_k, p.ep);
}

double remote_peer_share(const ModelSpec& m, const ParallelSpec& p, int local) {
  if (p.moe_dispatcher == MoeDispatcher::alltoall || local <= 1 || local >= p.ep || p.ep % local != 0) return 1.0;
  return expected_destination_ranks(m.experts, m.top_k, p.ep / local) /
         expected_destination_ranks(m.experts, m.top_k, p.ep);
}

}  // namespace trainsim
