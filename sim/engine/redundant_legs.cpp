#include "sim/engine/redundant_legs.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

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

namespace sg4 = simgrid::s4u;

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

std::vector<bool> redundant_legs(const Platform& platform, const std::vector<Leg>& legs,
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
  std::unordered_map<const sg4::Link*, std::vector<Element>> elements;
  std::unordered_map<const sg4::Link*, std::size_t> first_pair;  // a pair crossing the link
  std::vector<std::vector<const sg4::Link*>> links_of(pairs.size());
  std::vector<double> latency(pairs.size(), 0.0);
  std::vector<double> max_latency(tasks.size(), 0.0), max_latency_bytes(tasks.size(), 0.0);
  std::vector<std::size_t> parent(pairs.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const Leg& leg = legs[pairs[p].legs.front()];
    std::vector<sg4::Link*> route;
    platform.host(leg.src)->route_to(platform.host(leg.dst), route, &latency[p]);
    const std::size_t t = pairs[p].task;
    max_latency[t] = std::max(max_latency[t], latency[p]);
    max_latency_bytes[t] = std::max(max_latency_bytes[t], latency[p] * pairs[p].bytes);
    for (const sg4::Link* link : route) {
      links_of[p].push_back(link);
      std::vector<Element>& e = elements[link];
      if (e.empty() || e.back().task != t) e.push_back({t, 0.0});
      e.back().weight += pairs[p].bytes;
      const auto [it, first] = first_pair.emplace(link, p);
      if (!first) parent[root(parent, p)] = root(parent, it->second);
    }
  }

  // A link's identity for the solve: bound, sharing policy, elements.
  std::unordered_map<const sg4::Link*, std::string> signatures;
  const auto signature = [&](const sg4::Link* link) -> const std::string& {
    auto [it, added] = signatures.try_emplace(link);
    if (!added) return it->second;
    std::string& key = it->second;
    const double bandwidth = link->get_bandwidth();
    const auto policy = link->get_sharing_policy();
    append_bits(key, &bandwidth, sizeof bandwidth);
    append_bits(key, &policy, sizeof policy);
    for (const Element& e : elements.at(link)) {
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
      for (const sg4::Link* link : links_of[q]) keep = keep || kept_links.count(signature(link)) == 0;
    }
    if (keep) {
      for (const std::size_t q : component)
        for (const sg4::Link* link : links_of[q]) kept_links.insert(signature(link));
      continue;
    }
    for (const std::size_t q : component)
      for (const std::size_t l : pairs[q].legs) redundant[l] = true;
  }
  return redundant;
}

}  // namespace trainsim::engine
