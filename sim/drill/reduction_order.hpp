#pragma once
// The order in which a data-parallel all-reduce adds the ranks' gradients, element by element,
// for each algorithm the engine can choose (sim/engine/algorithm_selection.hpp). Floating-point
// addition is not associative, so the order decides the bits of the sum. Every partial sum
// travels in the reduction's number format (rounded after each addition), as NCCL reduces
// into the buffer's own type.

#include <Eigen/Core>
#include <string>
#include <vector>

#include "sim/drill/number_format.hpp"

namespace trainsim::drill {

enum class ReductionOrder {
  /// NCCL's ring (src/device/all_reduce.h, runRing): the buffer in n chunks; chunk c starts
  /// at rank c+1, each next rank adds its own part to what it received, and rank c adds last.
  ring,
  /// NCCL's double binary tree (src/graph/trees.cc, ncclGetBtree/ncclGetDtree; Sanders,
  /// Speck and Träff 2009): the first half of the buffer up one in-order binary tree, the
  /// second half up the other (mirrored for even n, shifted by one for odd n); each rank adds
  /// its children's sums to its own, first child first.
  tree,
  /// sim/engine/hierarchical_algorithm: a ring inside each node, then a ring over the nodes.
  hierarchical,
  /// NVLink SHARP: the switch adds the ranks' values (in rank order, accumulating in fp32: an
  /// assumption, NVIDIA does not document it) and rounds the result once.
  nvls
};

std::string order_name(ReductionOrder order);

/// The sum of `parts` (one vector per rank, all the same size, each already in `format`) in
/// `order`; `ranks_per_node` groups consecutive ranks for the hierarchical order.
Eigen::VectorXf reduce(const std::vector<Eigen::VectorXf>& parts, ReductionOrder order, NumberFormat format,
                       int ranks_per_node = 1);

/// Higham's bound (op. cit., eq. 4.4, for any order of recursive summation) on how far a sum
/// of `n` terms in `format` may be from the exact one, per element: gamma_n x sum |x_i|, with
/// gamma_n = n u / (1 - n u) (n, not n - 1, covers the nvls order's final rounding). Two orders
/// differ by at most twice that.
Eigen::VectorXd sum_error_bound(const std::vector<Eigen::VectorXf>& parts, NumberFormat format);

}  // namespace trainsim::drill
