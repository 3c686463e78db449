// Reduction orders: every order adds every rank once; orders differ in bits, within Higham's
// bound for the format.

#include <gtest/gtest.h>

#include "sim/drill/counter_rng.hpp"
#include "sim/drill/reduction_order.hpp"

namespace trainsim::drill {
namespace {

const ReductionOrder k_orders[] = {ReductionOrder::ring, ReductionOrder::tree, ReductionOrder::hierarchical,
                                   ReductionOrder::nvls};

std::vector<Eigen::VectorXf> random_parts(int ranks, Eigen::Index size, NumberFormat f) {
  std::vector<Eigen::VectorXf> parts;
  for (int r = 0; r < ranks; ++r) {
    Eigen::VectorXf p(size);
    for (Eigen::Index i = 0; i < size; ++i) {
      const double u = unit_interval(hash_words(11, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(i)));
      p[i] = round_to(f, static_cast<float>((u - 0.5) * std::exp2(static_cast<double>(i % 7) - 3.0)));
    }
    parts.push_back(p);
  }
  return parts;
}

TEST(ReductionOrder, EveryOrderAddsEveryRankOnce) {
  for (int n = 1; n <= 8; ++n)
    for (const ReductionOrder order : k_orders) {
      // Rank r contributes 2^r: the sum shows which ranks were added, and how often.
      std::vector<Eigen::VectorXf> parts;
      for (int r = 0; r < n; ++r) parts.push_back(Eigen::VectorXf::Constant(37, std::exp2(static_cast<float>(r))));
      const Eigen::VectorXf sum = reduce(parts, order, NumberFormat::fp32, 2);
      EXPECT_TRUE((sum.array() == std::exp2(static_cast<float>(n)) - 1.0f).all()) << order_name(order) << " n=" << n;
    }
}

TEST(ReductionOrder, OrdersChangeBitsWithinHighamsBound) {
  for (const NumberFormat f : {NumberFormat::fp32, NumberFormat::bf16}) {
    const auto parts = random_parts(8, 4096, f);
    const Eigen::VectorXd bound = sum_error_bound(parts, f);
    const Eigen::VectorXf ring = reduce(parts, ReductionOrder::ring, f);
    for (const ReductionOrder order : k_orders) {
      const Eigen::VectorXf other = reduce(parts, order, f, 4);
      if (order != ReductionOrder::ring) {
        EXPECT_NE(other, ring) << order_name(order) << " " << format_name(f);
      }
      const Eigen::VectorXd diff = (other.cast<double>() - ring.cast<double>()).cwiseAbs();
      EXPECT_TRUE((diff.array() <= 2.0 * bound.array()).all()) << order_name(order) << " " << format_name(f);
    }
  }
}

TEST(ReductionOrder, Bf16DiffersFromFp32) {
  const auto parts = random_parts(8, 1024, NumberFormat::bf16);
  EXPECT_NE(reduce(parts, ReductionOrder::ring, NumberFormat::bf16),
            reduce(parts, ReductionOrder::ring, NumberFormat::fp32));
}

TEST(ReductionOrder, Fp16OverflowsToInfinity) {
  std::vector<Eigen::VectorXf> parts(2, Eigen::VectorXf::Constant(4, 40000.0f));
  EXPECT_FALSE(reduce(parts, ReductionOrder::ring, NumberFormat::fp16).allFinite());
  EXPECT_TRUE(reduce(parts, ReductionOrder::ring, NumberFormat::fp32).allFinite());
}

}  // namespace
}  // namespace trainsim::drill
