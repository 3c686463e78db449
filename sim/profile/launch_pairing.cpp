#include "sim/profile/launch_pairing.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace trainsim::profile {

namespace {

constexpr std::size_t k_none = static_cast<std::size_t>(-1);

// The ops of one thread sorted by start (longest first on ties), each with its parent: the
// innermost op that contains it.
struct ThreadOps {
  std::vector<std::size_t> order;  ///< op indices by start
  std::vector<double> starts;      ///< their starts, for binary search
};

struct OpForest {
  std::map<std::string, ThreadOps> threads;
  std::vector<std::size_t> parent;  ///< by op index; k_none at the top
};

bool contains(const TraceOp& outer, const TraceOp& inner) {
  return outer.start_us <= inner.start_us && inner.end_us <= outer.end_us;
}

OpForest build_forest(const ProfilerTrace& trace) {
  OpForest f;
  f.parent.assign(trace.ops.size(), k_none);
  for (std::size_t i = 0; i < trace.ops.size(); ++i) f.threads[trace.ops[i].thread].order.push_back(i);
  for (auto& [thread, t] : f.threads) {
    std::stable_sort(t.order.begin(), t.order.end(), [&](std::size_t a, std::size_t b) {
      const TraceOp& x = trace.ops[a];
      const TraceOp& y = trace.ops[b];
      return x.start_us != y.start_us ? x.start_us < y.start_us : x.end_us > y.end_us;
    });
    std::vector<std::size_t> open;
    for (std::size_t i : t.order) {
      while (!open.empty() && !contains(trace.ops[open.back()], trace.ops[i])) open.pop_back();
      if (!open.empty()) f.parent[i] = open.back();
      open.push_back(i);
      t.starts.push_back(trace.ops[i].start_us);
    }
  }
  return f;
}

// The innermost op of `thread` open at time `t` (start <= t <= end), or k_none.
std::size_t innermost_at(const ProfilerTrace& trace, const OpForest& f, const std::string& thread, double t) {
  const auto it = f.threads.find(thread);
  if (it == f.threads.end()) return k_none;
  const ThreadOps& ops = it->second;
  const auto after = std::upper_bound(ops.starts.begin(), ops.starts.end(), t);
  if (after == ops.starts.begin()) return k_none;
  std::size_t op = ops.order[static_cast<std::size_t>(after - ops.starts.begin()) - 1];
  while (op != k_none && trace.ops[op].end_us < t) op = f.parent[op];
  return op;
}

}  // namespace

std::vector<LaunchedWork> pair_launches(const ProfilerTrace& trace) {
  const OpForest forest = build_forest(trace);
  std::unordered_map<std::int64_t, std::size_t> launch_of;
  for (std::size_t i = 0; i < trace.runtime_calls.size(); ++i) launch_of.emplace(trace.runtime_calls[i].correlation, i);
  // External ids of operators (not annotations), for launches made outside any open op.
  std::unordered_map<std::int64_t, std::size_t> op_of_external_id;
  for (std::size_t i = 0; i < trace.ops.size(); ++i)
    if (!trace.ops[i].annotation && trace.ops[i].external_id) op_of_external_id.emplace(*trace.ops[i].external_id, i);

  std::vector<LaunchedWork> work;
  work.reserve(trace.gpu.size());
  for (std::size_t g = 0; g < trace.gpu.size(); ++g) {
    LaunchedWork w;
    w.activity = g;
    const auto& correlation = trace.gpu[g].correlation;
    const auto launch = correlation ? launch_of.find(*correlation) : launch_of.end();
    if (launch != launch_of.end()) {
      w.launch_found = true;
      const RuntimeCall& call = trace.runtime_calls[launch->second];
      std::size_t op = innermost_at(trace, forest, call.thread, call.start_us);
      if (op == k_none && call.external_id) {
        const auto by_id = op_of_external_id.find(*call.external_id);
        if (by_id != op_of_external_id.end()) op = by_id->second;
      }
      for (; op != k_none; op = forest.parent[op]) w.op_chain.push_back(op);
      std::reverse(w.op_chain.begin(), w.op_chain.end());
    }
    work.push_back(std::move(w));
  }
  return work;
}

}  // namespace trainsim::profile
