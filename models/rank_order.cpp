#include "models/rank_order.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "models/parallel_spec.hpp"
#include "models/rank_generator.hpp"

namespace trainsim {

namespace {

constexpr std::array<ParallelAxis, 5> k_all{ParallelAxis::tp, ParallelAxis::cp, ParallelAxis::pp, ParallelAxis::dp,
                                            ParallelAxis::ep};

// Megatron-Core lower-cases the order before reading it (RankGenerator.__init__).
std::optional<ParallelAxis> axis_named(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const ParallelAxis a : k_all)
    if (lower == axis_name(a)) return a;
  return std::nullopt;
}

// Ranks between two neighbours of a pipeline group, in one generator.
long long pp_stride(const ParallelSpec& p, bool experts) {
  long long stride = 1;
  for (const ParallelAxis a : p.order) {
    if (a == ParallelAxis::pp) break;
    stride *= experts ? expert_axis_size(p, a) : dense_axis_size(p, a);
  }
  return stride;
}

std::string str(long long v) {
  return std::to_string(v);
}

}  // namespace

int dense_axis_size(const ParallelSpec& p, ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::tp:
      return p.tp;
    case ParallelAxis::cp:
      return p.cp;
    case ParallelAxis::pp:
      return p.pp;
    case ParallelAxis::dp:
      return p.dp;
    case ParallelAxis::ep:
      return 1;
  }
  return 1;
}

int expert_axis_size(const ParallelSpec& p, ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::tp:
      return p.expert_tp_size();
    case ParallelAxis::cp:
      return 1;
    case ParallelAxis::pp:
      return p.pp;
    case ParallelAxis::dp:
      return p.expert_dp();
    case ParallelAxis::ep:
      return p.ep;
  }
  return 1;
}

const char* axis_name(ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::tp:
      return "tp";
    case ParallelAxis::cp:
      return "cp";
    case ParallelAxis::pp:
      return "pp";
    case ParallelAxis::dp:
      return "dp";
    case ParallelAxis::ep:
      return "ep";
  }
  return "?";
}

RankOrder::RankOrder()
    : RankOrder({ParallelAxis::tp, ParallelAxis::cp, ParallelAxis::ep, ParallelAxis::dp, ParallelAxis::pp}) {}

RankOrder::RankOrder(std::initializer_list<ParallelAxis> axes) {
  for (const ParallelAxis a : axes) {
    if (names(a) || count_ == axes_.size()) throw std::invalid_argument("RankOrder: an axis named twice");
    axes_[count_++] = a;
  }
  if (count_ == 0) throw std::invalid_argument("RankOrder: no axis");
}

RankOrder::RankOrder(const std::array<ParallelAxis, 5>& axes, std::size_t count) : axes_(axes), count_(count) {}

std::optional<RankOrder> RankOrder::parse(std::string_view text) {
  RankOrder order(std::array<ParallelAxis, 5>{}, 0);
  while (true) {
    const std::size_t dash = text.find('-');
    const auto axis = axis_named(text.substr(0, dash));
    if (!axis || order.names(*axis)) return std::nullopt;
    order.axes_[order.count_++] = *axis;
    if (dash == std::string_view::npos) return order;
    text.remove_prefix(dash + 1);
  }
}

bool RankOrder::names(ParallelAxis axis) const {
  return std::find(begin(), end(), axis) != end();
}

bool RankOrder::carves_experts_from_stages() const {
  return count_ == 4 && !names(ParallelAxis::ep);
}

std::string RankOrder::text() const {
  std::string s;
  for (const ParallelAxis a : *this) s += (s.empty() ? "" : "-") + std::string(axis_name(a));
  return s;
}

bool operator==(const RankOrder& a, const RankOrder& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// Megatron-Core's rules (parallel_state.py @ d98e8a64ddf34856e74b24714e3bedb2f5a39553):
// RankGenerator.__init__ refuses an axis left out of `order` whose size is not 1;
// initialize_model_parallel asserts that `order` ends with pp, or pp is 1, or the expert
// data parallelism equals dp, and that both generators give the same pipeline groups. The
// rule that ep and dp be adjacent (RankGenerator, 6513cde7) went with MoE parallel folding
// (7f22e210), so an order such as tp-ep-cp-dp-pp is accepted.
std::optional<std::string> rank_order_rule(const ParallelSpec& p) {
  const RankOrder& o = p.order;
  if (o.carves_experts_from_stages()) return std::nullopt;
  const std::string left_out = " (Megatron-Core's RankGenerator: an axis the order leaves out has size 1)";
  const auto missing = [&](ParallelAxis a, const std::string& key, long long size) -> std::optional<std::string> {
    if (o.names(a) || size == 1) return std::nullopt;
    return "names no " + std::string(axis_name(a)) + ", so " + key + " = " + str(size) + " must be 1" + left_out;
  };
  for (const ParallelAxis a : {ParallelAxis::tp, ParallelAxis::cp, ParallelAxis::dp, ParallelAxis::pp})
    if (auto rule = missing(a, "parallel." + std::string(axis_name(a)), dense_axis_size(p, a))) return rule;
  if (auto rule = missing(ParallelAxis::ep, "parallel.ep", p.ep)) return rule;
  if (!p.whole_expert_groups()) return std::nullopt;  // refused by its own rule (scenario_fields_parallel.cpp)
  if (auto rule = missing(ParallelAxis::tp, "parallel.expert_tp", p.expert_tp_size())) return rule;
  if (auto rule = missing(ParallelAxis::dp, "the expert data parallelism", p.expert_dp())) return rule;
  if (p.pp > 1 && o.outermost() != ParallelAxis::pp && p.expert_dp() != p.dp)
    return "must end with pp when the expert data parallelism (" + str(p.expert_dp()) + ") differs from parallel.dp (" +
           str(p.dp) + ") (Megatron-Core's initialize_model_parallel)";
  if (p.pp > 1 && pp_stride(p, false) != pp_stride(p, true))
    return "gives the dense ranks pipeline neighbours " + str(pp_stride(p, false)) + " apart and the expert ranks " +
           str(pp_stride(p, true)) +
           " apart: the pipeline groups must be the same (Megatron-Core's initialize_model_parallel)";
  return std::nullopt;
}

}  // namespace trainsim
