#pragma once
// The rank order (parallel.order): which parallel axis varies fastest as the rank grows, read
// as Megatron-Core reads its `order` string (RankGenerator in megatron/core/parallel_state.py,
// NVIDIA/Megatron-LM @ d98e8a64ddf34856e74b24714e3bedb2f5a39553).
//
// The string names some of tp, cp, ep, dp and pp, each once, innermost (fastest-varying)
// first, joined by '-'. Megatron-Core's default is tp-cp-ep-dp-pp (initialize_model_parallel's
// `order`), and trainsim's. Two rank generators read the same string: the dense one with ep
// of size 1 (tp, cp, dp, pp), the expert one with cp of size 1 (expert_tp at tp's place, ep,
// expert data parallel at dp's place, pp). An axis the string leaves out goes outermost and
// must have size 1 in both.
//
// Before trainsim read Megatron-Core's strings, parallel.order was a permutation of tp, cp,
// pp and dp, and the expert axes were carved out of each pipeline stage's ranks (expert_tp
// fastest, then ep, then expert data parallel, over the stage index tp + TP (cp + CP dp)).
// Such a string keeps that meaning (carves_experts_from_stages), so an old scenario gives
// the same groups; with pp last it gives the groups of the same string with ep before dp.

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace trainsim {

enum class ParallelAxis { tp, cp, pp, dp, ep };

struct ParallelSpec;

class RankOrder {
 public:
  /// Megatron-Core's default, tp-cp-ep-dp-pp.
  RankOrder();
  /// `axes` innermost first; each at most once (std::invalid_argument otherwise).
  RankOrder(std::initializer_list<ParallelAxis> axes);

  /// Reads "tp-cp-ep-dp-pp"-style text (lower case, as Megatron-Core lower-cases it);
  /// nullopt for an unknown or repeated axis or an empty string.
  static std::optional<RankOrder> parse(std::string_view text);

  const ParallelAxis* begin() const { return axes_.data(); }
  const ParallelAxis* end() const { return axes_.data() + count_; }
  std::size_t size() const { return count_; }
  bool names(ParallelAxis axis) const;
  /// The last (outermost) axis named.
  ParallelAxis outermost() const { return axes_[count_ - 1]; }
  /// True for trainsim's former orders, a permutation of tp, cp, pp and dp without ep: the
  /// expert axes decompose each stage's ranks (see the file comment).
  bool carves_experts_from_stages() const;
  std::string text() const;

 private:
  RankOrder(const std::array<ParallelAxis, 5>& axes, std::size_t count);

  std::array<ParallelAxis, 5> axes_{};
  std::size_t count_ = 0;
};

bool operator==(const RankOrder& a, const RankOrder& b);

/// The name of `axis` in an order string ("tp", "cp", "pp", "dp", "ep").
const char* axis_name(ParallelAxis axis);

/// The rule `p.order` breaks for `p`'s sizes, as Megatron-Core's initialize_model_parallel
/// would refuse it, or nullopt: an axis left out of the string with a size above 1; pp not
/// last while pipelining and the expert data parallelism differs from dp; pipeline groups
/// that differ between the dense and the expert ranks. The former orders are never refused.
std::optional<std::string> rank_order_rule(const ParallelSpec& p);

}  // namespace trainsim
