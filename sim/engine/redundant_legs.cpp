#include "sim/engine/redundant_legs.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace trainsim::engine {

namespace {

// A host pair of one task: its bytes (summed over its legs in leg order, as the task's byte
// matrix sums them) and the legs it holds.
struct Pair {
  std::size_t task = 0;
  double bytes = 0;
  std::vector<std::size_t> legs;
};

// Union-find over pairs.
std::size_t root(std::vector<std::size_t>& parent, std::size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

void append_bits(std::string& key, const void* bits, std::size_t size) {
  key.append(static_cast<const char*>(bits), size);
}

}  // namespace

std::vector<bool> redundant_legs(const FabricRoutes& routes, const std::vector<Leg>& legs,
                                 const std::vector<TaskLegs>& tasks) {
  // Each task's pairs in the byte matrix' row-major order, as SimGrid expands them.
  std::vector<Pair> pairs;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const TaskLegs& task = tasks[t];
    std::unordered_map<int, std::size_t> slot;
    for (std::size_t i = 0; i < task.endpoints.size(); ++i) slot.emplace(task.endpoints[i], i);
    std::map<std::size_t, std::size_t> index;  // row-major cell -> pair
    for (std::size_t l = task.first; l < task.last; ++l) {
      const std::size_t cell = slot.at(legs[l].src) * task.endpoints.size() + slot.at(legs[l].dst);
      auto [it, added] = index.emplace(cell, 0);
      if (added) {
        it->second = pairs.size();
        pairs.push_back({t, 0.0, {}});
      }
      pairs[it->second].bytes += legs[l].bytes;
      pairs[it->second].legs.push_back(l);
    }
    // Renumber this task's pairs in row-major order.
    std::vector<Pair> ordered;
    for (const auto& [cell, p] : index) ordered.push_back(std::move(pairs[p]));
    pairs.resize(pairs.size() - ordered.size());
    for (Pair& p : ordered) pairs.push_back(std::move(p));
  }

  // Each link's elements (task, weight), summed pair by pair as SimGrid sums them; each
  // task's largest latency and latency x bytes; the components of pairs that share links.
  struct Element {
    std::size_t task = 0;
    double weight = 0;
  };
  // Per link number: its slot among the links the phase crosses (-1: none yet).
  std::vector<int> slot_of_link(static_cast<std::size_t>(routes.link_count()), -1);
  std::vector<int> crossed;                    // per slot: the link
  std::vector<std::vector<Element>> elements;  // per slot
  std::vector<std::size_t> first_pair;         // per slot: a pair crossing the link
  std::vector<std::vector<int>> slots_of(pairs.size());
  std::vector<double> latency(pairs.size(), 0.0);
  std::vector<double> max_latency(tasks.size(), 0.0), max_latency_bytes(tasks.size(), 0.0);
  std::vector<std::size_t> parent(pairs.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const Leg& leg = legs[pairs[p].legs.front()];
    RouteLinks route;
    routes.route(leg.src, leg.dst, route);
    latency[p] = route.latency_s;
    const std::size_t t = pairs[p].task;
    max_latency[t] = std::max(max_latency[t], latency[p]);
    max_latency_bytes[t] = std::max(max_latency_bytes[t], latency[p] * pairs[p].bytes);
    for (int i = 0; i < route.count; ++i) {
      int& slot = slot_of_link[static_cast<std::size_t>(route.links[static_cast<std::size_t>(i)])];
      if (slot < 0) {
        slot = static_cast<int>(crossed.size());
        crossed.push_back(route.links[static_cast<std::size_t>(i)]);
        elements.emplace_back();
        first_pair.push_back(p);
      } else {
        parent[root(parent, p)] = root(parent, first_pair[static_cast<std::size_t>(slot)]);
      }
      slots_of[p].push_back(slot);
      std::vector<Element>& e = elements[static_cast<std::size_t>(slot)];
      if (e.empty() || e.back().task != t) e.push_back({t, 0.0});
      e.back().weight += pairs[p].bytes;
    }
  }

  // A link's identity for the solve: bound and elements. Every link is one direction of a
  // split-duplex cable (platform.cpp), so all share one sharing policy.
  std::vector<std::string> signatures(crossed.size());
  const auto signature = [&](int slot) -> const std::string& {
    std::string& key = signatures[static_cast<std::size_t>(slot)];
    if (!key.empty()) return key;
    const double bandwidth = routes.bandwidth_Bps(crossed[static_cast<std::size_t>(slot)]);
    append_bits(key, &bandwidth, sizeof bandwidth);
    for (const Element& e : elements[static_cast<std::size_t>(slot)]) {
      append_bits(key, &e.task, sizeof e.task);
      append_bits(key, &e.weight, sizeof e.weight);
    }
    return key;
  };

  // One pair per task that sets its latency, and one that sets its bound, stay.
  std::vector<bool> sets_a_maximum(pairs.size(), false);
  {
    std::vector<bool> latency_found(tasks.size(), false), bound_found(tasks.size(), false);
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const std::size_t t = pairs[p].task;
      if (!latency_found[t] && latency[p] == max_latency[t]) latency_found[t] = sets_a_maximum[p] = true;
      if (!bound_found[t] && latency[p] * pairs[p].bytes == max_latency_bytes[t]) bound_found[t] = sets_a_maximum[p] = true;
    }
  }

  // Components in order of their first pair; a component is kept when it sets a task's
  // latency or bound, or when one of its links has no twin among the links kept so far.
  std::vector<std::vector<std::size_t>> members(pairs.size());
  for (std::size_t p = 0; p < pairs.size(); ++p) members[root(parent, p)].push_back(p);
  std::unordered_set<std::string_view> kept_links;  // views of `signatures`' strings
  std::vector<bool> redundant(legs.size(), false);
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const std::vector<std::size_t>& component = members[p];
    if (component.empty()) continue;
    bool keep = false;
    for (const std::size_t q : component) {
      keep = keep || sets_a_maximum[q];
      for (const int slot : slots_of[q]) keep = keep || kept_links.count(signature(slot)) == 0;
    }
    if (keep) {
      for (const std::size_t q : component)
        for (const int slot : slots_of[q]) kept_links.insert(signature(slot));
      continue;
    }
    for (const std::size_t q : component)
      for (const std::size_t l : pairs[q].legs) redundant[l] = true;
  }
  return redundant;
}

}  // namespace trainsim::engine
