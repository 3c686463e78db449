#pragma once
// Scenarios for step tests, written as `section.key = value` settings.

#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/scenario_loader.hpp"

namespace trainsim::testing {

using Settings = std::vector<std::pair<std::string, std::string>>;

/// `base` with `extra` on top (a key in both takes extra's value).
inline Settings merged(Settings base, const Settings& extra) {
  for (const auto& kv : extra) {
    bool replaced = false;
    for (auto& s : base) {
      if (s.first == kv.first) {
        s.second = kv.second;
        replaced = true;
      }
    }
    if (!replaced) base.push_back(kv);
  }
  return base;
}

/// Llama 3 8B cut to 4 layers on two GB200 trays: TP 2 with sequence parallelism, FP8, the
/// distributed optimizer with its gradient reduce-scatters and parameter all-gathers overlapped
/// (public.md A4's 512-GPU layout, shrunk).
inline Settings small_gb200_llama3_8b() {
  return {{"model.preset", "llama3-8b"},
          {"model.layers", "4"},
          {"model.seq_len", "4096"},
          {"training.precision", "fp8"},
          {"training.grad_precision", "bf16"},
          {"training.dp_bucket", "100MB"},
          {"parallel.tp", "2"},
          {"parallel.sequence_parallel", "true"},
          {"parallel.zero", "1"},
          {"parallel.overlap_grad_reduce", "true"},
          {"parallel.overlap_param_gather", "true"},
          {"cluster.preset", "gb200-nvl72"},
          {"cluster.nodes", "2"}};
}

/// Mixtral 8x7B cut to 4 layers of 2,048 tokens, TP 2, PP 2, two micro-batches, with `ep`
/// expert-parallel ranks on `nodes` nodes: a small MoE step with expert traffic.
inline Settings small_mixtral(int ep, int nodes) {
  return {{"model.preset", "mixtral-8x7b"},
          {"model.layers", "4"},
          {"model.seq_len", "2048"},
          {"training.grad_accum", "2"},
          {"parallel.tp", "2"},
          {"parallel.ep", std::to_string(ep)},
          {"parallel.pp", "2"},
          {"cluster.nodes", std::to_string(nodes)}};
}

/// `settings` with `extra` applied on top (a key in both takes extra's value), loaded and
/// validated as a scenario named "test".
inline Scenario scenario(const Settings& settings, const Settings& extra = {}) {
  std::vector<IniEntry> entries;
  for (const auto& [k, v] : merged(settings, extra)) entries.push_back({k, v, "test"});
  return load_scenario(entries, "test");
}

/// A scenario and what it is, for messages.
struct NamedScenario {
  std::string what;
  Scenario scenario;
};

/// Layouts that put a step's traffic on the network, each `base` with a change: the base
/// (rail-optimized), interleaved, fat-tree, oversubscribed (every replica's pipeline
/// transfers and every TP member's reductions run), 4 NICs per node (GPUs share a rail),
/// data parallelism inside nodes (reductions mix local indices: PXN), HSDP, context
/// parallelism across nodes, GB200 NVL72 racks; and Mixtral's experts across `expert_nodes`
/// nodes. `base` sets TP 8 or less and whole nodes.
inline std::vector<NamedScenario> network_layouts(const Settings& base, int expert_nodes) {
  std::vector<NamedScenario> out;
  const auto add = [&](const std::string& what, const Settings& change) {
    out.push_back({what, scenario(base, change)});
  };
  add("rail-optimized", {});
  add("interleaved", {{"parallel.schedule", "interleaved"}, {"parallel.virtual_stages", "2"}});
  add("fat-tree", {{"cluster.fabric", "fat-tree"}});
  add("oversubscribed", {{"cluster.fabric", "fat-tree"}, {"cluster.oversubscription", "2"}});
  add("4 nics per node", {{"cluster.nics_per_node", "4"}});
  add("tp-cp-dp-pp", {{"parallel.tp", "2"}, {"parallel.order", "tp-cp-dp-pp"}});
  add("hsdp", {{"parallel.zero", "3"}, {"parallel.zero_shard_size", "4"}});
  add("context parallel across nodes", {{"model.seq_len", "8192"}, {"parallel.cp", "2"}, {"parallel.tp", "8"}});
  add("gb200-nvl72",
      {{"cluster.preset", "gb200-nvl72"}, {"cluster.nodes", "36"}, {"parallel.tp", "4"}, {"parallel.pp", "4"}});
  out.push_back(
      {"experts across nodes", scenario(small_mixtral(8, expert_nodes), {{"cluster.fabric", "rail-optimized"}})});
  return out;
}

}  // namespace trainsim::testing
