#include "sim/engine/collective.hpp"

#include <array>
#include <utility>

namespace trainsim::engine {

namespace {

constexpr std::array<std::pair<CollectiveOp, std::string_view>, 6> k_ops{{
    {CollectiveOp::all_reduce, "allreduce"},
    {CollectiveOp::all_gather, "allgather"},
    {CollectiveOp::reduce_scatter, "reducescatter"},
    {CollectiveOp::broadcast, "broadcast"},
    {CollectiveOp::all_to_all, "alltoall"},
    {CollectiveOp::send_recv, "sendrecv"},
}};

constexpr std::array<std::pair<CollectiveAlgo, std::string_view>, 10> k_algos{{
    {CollectiveAlgo::automatic, "auto"},
    {CollectiveAlgo::ring, "ring"},
    {CollectiveAlgo::double_binary_tree, "tree"},
    {CollectiveAlgo::hierarchical, "hierarchical"},
    {CollectiveAlgo::pairwise, "pairwise"},
    {CollectiveAlgo::direct, "direct"},
    {CollectiveAlgo::nvls, "nvls"},
    {CollectiveAlgo::nvls_tree, "nvls-tree"},
    {CollectiveAlgo::collnet, "collnet"},
    {CollectiveAlgo::pat, "pat"},
}};

}  // namespace

std::string op_name(CollectiveOp op) {
  for (const auto& [o, name] : k_ops)
    if (o == op) return std::string(name);
  return "?";
}

std::string algo_name(CollectiveAlgo algo) {
  for (const auto& [a, name] : k_algos)
    if (a == algo) return std::string(name);
  return "?";
}

std::optional<CollectiveOp> parse_op(std::string_view text) {
  for (const auto& [o, name] : k_ops)
    if (name == text) return o;
  return std::nullopt;
}

std::optional<CollectiveAlgo> parse_algo(std::string_view text) {
  for (const auto& [a, name] : k_algos)
    if (name == text) return a;
  return std::nullopt;
}

std::vector<std::string> op_names() {
  std::vector<std::string> v;
  for (const auto& [o, name] : k_ops) v.emplace_back(name);
  return v;
}

std::vector<std::string> algo_names() {
  std::vector<std::string> v;
  for (const auto& [a, name] : k_algos) v.emplace_back(name);
  return v;
}

double bus_bandwidth_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all:
      return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::send_recv:
      return 1;
  }
  return 1;
}

}  // namespace trainsim::engine
