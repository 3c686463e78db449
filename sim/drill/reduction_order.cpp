#include "sim/drill/reduction_order.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace trainsim::drill {

std::string order_name(ReductionOrder order) {
  switch (order) {
    case ReductionOrder::ring:
      return "ring";
    case ReductionOrder::tree:
      return "tree";
    case ReductionOrder::hierarchical:
      return "hierarchical";
    case ReductionOrder::nvls:
      return "nvls";
  }
  return "?";
}

namespace {

// Chunk of element e when `size` elements are split into `n` contiguous chunks (the first
// size % n chunks one element longer).
int chunk_of(Eigen::Index e, Eigen::Index size, int n) {
  const Eigen::Index base = size / n, extra = size % n;
  const Eigen::Index boundary = extra * (base + 1);
  if (e < boundary) return static_cast<int>(e / (base + 1));
  return static_cast<int>(extra + (e - boundary) / std::max<Eigen::Index>(base, 1));
}

// Ring sum of `values` (one per ring position) for chunk c: starts at c+1, ends at c.
float ring_sum(const std::vector<float>& values, int c, NumberFormat f) {
  const int n = static_cast<int>(values.size());
  float acc = values[static_cast<size_t>((c + 1) % n)];
  for (int k = 2; k <= n; ++k) acc = round_to(f, acc + values[static_cast<size_t>((c + k) % n)]);
  return acc;
}

struct TreeLinks {
  std::vector<int> child0, child1;
  int root = 0;
};

// NCCL's in-order binary tree (trees.cc ncclGetBtree): rank 0 is the root with one child.
TreeLinks btree(int n) {
  TreeLinks t{std::vector<int>(static_cast<size_t>(n), -1), std::vector<int>(static_cast<size_t>(n), -1), 0};
  for (int rank = 0; rank < n; ++rank) {
    int bit = 1;
    for (; bit < n; bit <<= 1)
      if (bit & rank) break;
    if (rank == 0) {
      t.child1[0] = n > 1 ? bit >> 1 : -1;
      continue;
    }
    int lowbit = bit >> 1;
    t.child0[static_cast<size_t>(rank)] = lowbit == 0 ? -1 : rank - lowbit;
    int down1 = lowbit == 0 ? -1 : rank + lowbit;
    while (down1 >= n) {
      lowbit >>= 1;
      down1 = lowbit == 0 ? -1 : rank + lowbit;
    }
    t.child1[static_cast<size_t>(rank)] = down1;
  }
  return t;
}

// The second tree (trees.cc ncclGetDtree): mirrored for even n, shifted by one for odd n;
// tree positions mapped back to ranks.
TreeLinks dtree(int n) {
  const TreeLinks first = btree(n);
  auto rank_at = [n](int position) { return n % 2 == 0 ? n - 1 - position : (position + 1) % n; };
  TreeLinks t{std::vector<int>(static_cast<size_t>(n), -1), std::vector<int>(static_cast<size_t>(n), -1), rank_at(0)};
  for (int p = 0; p < n; ++p) {
    const int r = rank_at(p);
    const int c0 = first.child0[static_cast<size_t>(p)], c1 = first.child1[static_cast<size_t>(p)];
    t.child0[static_cast<size_t>(r)] = c0 < 0 ? -1 : rank_at(c0);
    t.child1[static_cast<size_t>(r)] = c1 < 0 ? -1 : rank_at(c1);
  }
  return t;
}

float tree_sum(const TreeLinks& t, int rank, const std::vector<float>& values, NumberFormat f) {
  float acc = values[static_cast<size_t>(rank)];
  for (const int child : {t.child0[static_cast<size_t>(rank)], t.child1[static_cast<size_t>(rank)]})
    if (child >= 0) acc = round_to(f, acc + tree_sum(t, child, values, f));
  return acc;
}

}  // namespace

Eigen::VectorXf reduce(const std::vector<Eigen::VectorXf>& parts, ReductionOrder order, NumberFormat format,
                       int ranks_per_node) {
  if (parts.empty()) throw Error("reduce: no ranks");
  const int n = static_cast<int>(parts.size());
  const Eigen::Index size = parts.front().size();
  Eigen::VectorXf out(size);
  std::vector<float> values(static_cast<size_t>(n));
  const TreeLinks first = btree(n), second = dtree(n);
  const int per_node = std::clamp(ranks_per_node, 1, n);
  const int nodes = (n + per_node - 1) / per_node;
  std::vector<float> node_values(static_cast<size_t>(nodes));
  for (Eigen::Index e = 0; e < size; ++e) {
    for (int r = 0; r < n; ++r) values[static_cast<size_t>(r)] = parts[static_cast<size_t>(r)][e];
    switch (order) {
      case ReductionOrder::ring:
        out[e] = ring_sum(values, chunk_of(e, size, n), format);
        break;
      case ReductionOrder::tree: {
        const TreeLinks& t = e < size / 2 ? first : second;
        out[e] = tree_sum(t, t.root, values, format);
        break;
      }
      case ReductionOrder::hierarchical:
        for (int node = 0; node < nodes; ++node) {
          const int begin = node * per_node, end = std::min(n, begin + per_node);
          const std::vector<float> local(values.begin() + begin, values.begin() + end);
          node_values[static_cast<size_t>(node)] = ring_sum(local, chunk_of(e, size, end - begin), format);
        }
        out[e] = ring_sum(node_values, chunk_of(e, size, nodes), format);
        break;
      case ReductionOrder::nvls: {
        float acc = 0.0f;
        for (const float v : values) acc += v;
        out[e] = round_to(format, acc);
        break;
      }
    }
  }
  return out;
}

Eigen::VectorXd sum_error_bound(const std::vector<Eigen::VectorXf>& parts, NumberFormat format) {
  const double n = static_cast<double>(parts.size());
  // fp32 accumulation inside the nvls order: at least fp32's roundoff whatever the format.
  const double u = std::max(unit_roundoff(format), unit_roundoff(NumberFormat::fp32));
  const double gamma = n * u / (1.0 - n * u);
  Eigen::VectorXd abs_sum = Eigen::VectorXd::Zero(parts.front().size());
  for (const Eigen::VectorXf& p : parts) abs_sum += p.cast<double>().cwiseAbs();
  return gamma * abs_sum;
}

}  // namespace trainsim::drill
