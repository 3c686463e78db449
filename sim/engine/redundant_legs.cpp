#include "sim/engine/redundant_legs.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>

#include "sim/core/error.hpp"

namespace trainsim::engine {

namespace {

// Pairs, legs, link slots and elements are numbered in 32 bits: at 4,096 GPUs the arrays
// below were two thirds of a lone collective's planning heap in 64-bit numbers, and that
// planning set the process' peak resident memory (issue 59.4, docs/engineering/full-speed.md).
// A phase has at most RouteLinks' 6 elements per leg (checked in redundant_legs).
using Index = std::uint32_t;

// The host pairs of a phase's tasks: per task, its legs between the same two endpoints are
// one pair, whose bytes are the legs' summed in leg order, as the task's byte matrix sums
// them; pairs are numbered task by task, each task's in the matrix' row-major order, as
// SimGrid expands them (L07Action's constructor).
struct Pairs {
  std::vector<Index> task;       ///< per pair
  std::vector<double> bytes;     ///< per pair
  std::vector<Index> first_leg;  ///< per pair: a leg of it (its route)
  std::vector<Index> of_leg;     ///< per leg: its pair
  std::size_t size() const { return first_leg.size(); }
};

Pairs pairs_of(const std::vector<Leg>& legs, const std::vector<TaskLegs>& tasks, int endpoints) {
  Pairs out;
  out.of_leg.resize(legs.size());
  // At most a pair per leg: reserved so that the arrays do not grow past it by doubling.
  out.task.reserve(legs.size());
  out.bytes.reserve(legs.size());
  out.first_leg.reserve(legs.size());
  std::vector<int> slot(static_cast<std::size_t>(endpoints), -1);  // endpoint -> row in the task
  std::vector<int> local_of_cell;                                  // cell -> pair within the task
  std::vector<std::size_t> cells;                                  // per pair within the task
  std::vector<double> bytes;
  std::vector<Index> first_leg, rank;
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const TaskLegs& task = tasks[t];
    const std::size_t k = task.endpoints.size();
    for (std::size_t i = 0; i < k; ++i) slot[static_cast<std::size_t>(task.endpoints[i])] = static_cast<int>(i);
    if (local_of_cell.size() < k * k) local_of_cell.assign(k * k, -1);
    cells.clear();
    bytes.clear();
    first_leg.clear();
    for (std::size_t l = task.first; l < task.last; ++l) {
      const std::size_t cell = static_cast<std::size_t>(slot.at(static_cast<std::size_t>(legs[l].src))) * k +
                               static_cast<std::size_t>(slot.at(static_cast<std::size_t>(legs[l].dst)));
      int& local = local_of_cell[cell];
      if (local < 0) {
        local = static_cast<int>(cells.size());
        cells.push_back(cell);
        bytes.push_back(0.0);
        first_leg.push_back(static_cast<Index>(l));
      }
      bytes[static_cast<std::size_t>(local)] += legs[l].bytes;
      out.of_leg[l] = static_cast<Index>(local);  // renumbered below
    }
    // Row-major order: the task's pairs sorted by cell.
    std::vector<std::size_t> order(cells.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cells[a] < cells[b]; });
    rank.assign(cells.size(), 0);
    const std::size_t base = out.size();
    for (std::size_t r = 0; r < order.size(); ++r) {
      rank[order[r]] = static_cast<Index>(base + r);
      out.task.push_back(static_cast<Index>(t));
      out.bytes.push_back(bytes[order[r]]);
      out.first_leg.push_back(first_leg[order[r]]);
    }
    for (std::size_t l = task.first; l < task.last; ++l) out.of_leg[l] = rank[out.of_leg[l]];
    for (const std::size_t cell : cells) local_of_cell[cell] = -1;
    for (const int e : task.endpoints) slot[static_cast<std::size_t>(e)] = -1;
  }
  return out;
}

// Union-find over pairs.
Index root(std::vector<Index>& parent, Index i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// Frees a vector's memory (clear() keeps it).
template <typename T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// The links a phase crosses ("slots", in the order first crossed) and each one's elements:
// (task, weight) in task order, the weights summed pair by pair as SimGrid sums them.
struct CrossedLinks {
  std::vector<int> slot_of_link;  ///< per link number (-1: not crossed)
  std::vector<int> link;          ///< per slot
  std::vector<Index> offset;      ///< per slot: its first element (size: slots + 1)
  std::vector<Index> count;       ///< per slot: its elements
  std::vector<Index> element_task;
  std::vector<double> element_weight;
  std::vector<std::size_t> hash;  ///< per slot: its bandwidth's and elements' hash (ConstraintSet)

  std::size_t slots() const { return link.size(); }
};

// Whether two crossed links are the same constraint for the solve: bound and elements.
// Every link is one direction of a split-duplex cable (platform.cpp), so all share one
// sharing policy.
struct SameConstraint {
  const FabricRoutes* routes;
  const CrossedLinks* crossed;
  bool operator()(int a, int b) const {
    const CrossedLinks& c = *crossed;
    const auto sa = static_cast<std::size_t>(a), sb = static_cast<std::size_t>(b);
    const double ba = routes->bandwidth_Bps(c.link[sa]), bb = routes->bandwidth_Bps(c.link[sb]);
    if (std::memcmp(&ba, &bb, sizeof ba) != 0 || c.count[sa] != c.count[sb]) return false;
    for (std::size_t i = 0; i < c.count[sa]; ++i) {
      const std::size_t ea = c.offset[sa] + i, eb = c.offset[sb] + i;
      if (c.element_task[ea] != c.element_task[eb] ||
          std::memcmp(&c.element_weight[ea], &c.element_weight[eb], sizeof(double)) != 0)
        return false;
    }
    return true;
  }
};

// A crossed link's bandwidth and elements, hashed; computed once per link (a lookup per
// pair and link re-hashed every element: a quarter of the time on a 262,144-GPU ring).
std::size_t constraint_hash(const FabricRoutes& routes, const CrossedLinks& c, std::size_t s) {
  const auto mix = [](std::size_t h, std::uint64_t v) { return (h ^ v) * 0x100000001b3ULL; };
  const double bandwidth = routes.bandwidth_Bps(c.link[s]);
  std::uint64_t bits = 0;
  std::memcpy(&bits, &bandwidth, sizeof bits);
  std::size_t h = mix(0xcbf29ce484222325ULL, bits);
  for (std::size_t i = 0; i < c.count[s]; ++i) {
    std::memcpy(&bits, &c.element_weight[c.offset[s] + i], sizeof bits);
    h = mix(mix(h, c.element_task[c.offset[s] + i]), bits);
  }
  return h;
}

// The kept links, as a set of constraints: a link is found when a kept link is the same
// constraint. Open addressing over at most `most` slots, in one array (a node-based set held
// a block per kept link: half a megabyte at 4,096 GPUs, issue 59.4); it is only asked and
// added to, never walked, so its layout reaches no result.
class ConstraintSet {
 public:
  ConstraintSet(const FabricRoutes& routes, const CrossedLinks& crossed, std::size_t most)
      : same_{&routes, &crossed}, hash_(&crossed.hash) {
    std::size_t size = 16;
    while (size < most + most / 2) size *= 2;  // at most two thirds full
    table_.assign(size, -1);
    while ((std::size_t{1} << bits_) < size) ++bits_;
  }
  bool contains(int slot) const { return table_[find(slot)] >= 0; }
  void insert(int slot) {
    int& entry = table_[find(slot)];
    if (entry < 0) entry = slot;
  }

 private:
  // The entry that holds `slot`'s constraint, or the empty one where it would go.
  std::size_t find(int slot) const {
    const std::size_t mask = table_.size() - 1;
    // Fibonacci hashing: the product's high bits, as the hash's low bits may repeat.
    const std::vector<std::size_t>& hash = *hash_;
    const std::size_t h = hash[static_cast<std::size_t>(slot)];
    std::size_t i = static_cast<std::size_t>((h * 0x9e3779b97f4a7c15ULL) >> (64 - bits_));
    // The hashes compared first: the elements only when they are equal.
    while (table_[i] >= 0 && (hash[static_cast<std::size_t>(table_[i])] != h || !same_(table_[i], slot)))
      i = (i + 1) & mask;
    return i;
  }

  SameConstraint same_;
  const std::vector<std::size_t>* hash_;
  std::vector<int> table_;  ///< slots, -1: empty
  int bits_ = 0;
};

}  // namespace

std::vector<bool> redundant_legs(const FabricRoutes& routes, const std::vector<Leg>& legs,
                                 const std::vector<TaskLegs>& tasks, const std::vector<bool>& never_left_out) {
  if (legs.size() > std::numeric_limits<Index>::max() / std::tuple_size_v<decltype(RouteLinks::links)>)
    throw Error("redundant_legs: " + std::to_string(legs.size()) +
                " legs in one phase, more than 32-bit numbers count");
  Pairs pairs = pairs_of(legs, tasks, routes.endpoints);
  const auto route_of = [&](std::size_t p) {
    RouteLinks r;
    const Leg& leg = legs[pairs.first_leg[p]];
    routes.route(leg.src, leg.dst, r);
    return r;
  };

  // Each link crossed, each task's largest latency and latency x bytes, and the components
  // of pairs that share links (joined in pair and route order).
  CrossedLinks crossed;
  crossed.slot_of_link.assign(static_cast<std::size_t>(routes.link_count()), -1);
  std::vector<Index> parent(pairs.size());
  std::iota(parent.begin(), parent.end(), Index{0});
  // One pair per task that sets its latency, and one that sets its bound, stay.
  std::vector<bool> sets_a_maximum(pairs.size(), false);
  {
    std::vector<Index> first_pair;  // per slot: the first pair crossing the link
    std::vector<double> latency(pairs.size(), 0.0);
    std::vector<double> max_latency(tasks.size(), 0.0), max_latency_bytes(tasks.size(), 0.0);
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const RouteLinks route = route_of(p);
      latency[p] = route.latency_s;
      const std::size_t t = pairs.task[p];
      max_latency[t] = std::max(max_latency[t], latency[p]);
      max_latency_bytes[t] = std::max(max_latency_bytes[t], latency[p] * pairs.bytes[p]);
      for (int i = 0; i < route.count; ++i) {
        const int link = route.links[static_cast<std::size_t>(i)];
        int& slot = crossed.slot_of_link[static_cast<std::size_t>(link)];
        if (slot < 0) {
          slot = static_cast<int>(crossed.slots());
          crossed.link.push_back(link);
          crossed.count.push_back(0);
          first_pair.push_back(static_cast<Index>(p));
        } else {
          parent[root(parent, static_cast<Index>(p))] = root(parent, first_pair[static_cast<std::size_t>(slot)]);
        }
        ++crossed.count[static_cast<std::size_t>(slot)];  // an upper bound of its elements
      }
    }
    std::vector<bool> latency_found(tasks.size(), false), bound_found(tasks.size(), false);
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const std::size_t t = pairs.task[p];
      if (!latency_found[t] && latency[p] == max_latency[t]) latency_found[t] = sets_a_maximum[p] = true;
      if (!bound_found[t] && latency[p] * pairs.bytes[p] == max_latency_bytes[t])
        bound_found[t] = sets_a_maximum[p] = true;
    }
  }
  crossed.offset.assign(crossed.slots() + 1, 0);
  for (std::size_t s = 0; s < crossed.slots(); ++s) crossed.offset[s + 1] = crossed.offset[s] + crossed.count[s];
  crossed.element_task.resize(crossed.offset.back());
  crossed.element_weight.resize(crossed.offset.back());
  std::fill(crossed.count.begin(), crossed.count.end(), 0);
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const RouteLinks route = route_of(p);
    for (int i = 0; i < route.count; ++i) {
      const auto s = static_cast<std::size_t>(crossed.slot_of_link[static_cast<std::size_t>(route.links[i])]);
      Index& n = crossed.count[s];
      const std::size_t last = crossed.offset[s] + n - 1;
      if (n > 0 && crossed.element_task[last] == pairs.task[p]) {
        crossed.element_weight[last] += pairs.bytes[p];
      } else {
        crossed.element_task[crossed.offset[s] + n] = pairs.task[p];
        crossed.element_weight[crossed.offset[s] + n] = pairs.bytes[p];
        ++n;
      }
    }
  }
  release(pairs.task);  // the elements hold what is read of them from here on
  release(pairs.bytes);

  crossed.hash.resize(crossed.slots());
  for (std::size_t s = 0; s < crossed.slots(); ++s) crossed.hash[s] = constraint_hash(routes, crossed, s);

  // Each component's pairs (by root, in pair order); `parent` becomes each pair's root.
  std::vector<Index>& root_of = parent;
  for (std::size_t p = 0; p < pairs.size(); ++p) root_of[p] = root(parent, static_cast<Index>(p));
  std::vector<Index> member_offset(pairs.size() + 1, 0), members(pairs.size());
  for (std::size_t p = 0; p < pairs.size(); ++p) ++member_offset[root_of[p] + 1];
  for (std::size_t p = 0; p < pairs.size(); ++p) member_offset[p + 1] += member_offset[p];
  {
    std::vector<Index> fill(member_offset.begin(), member_offset.end() - 1);
    for (std::size_t p = 0; p < pairs.size(); ++p) members[fill[root_of[p]]++] = static_cast<Index>(p);
  }

  // Components in order of their root; a component is kept when it sets a task's latency or
  // bound, or when one of its links is one others may cross or has no twin among the links
  // kept so far. Links others may cross are no twins either (their load is not all here).
  ConstraintSet kept_links(routes, crossed, crossed.slots());
  std::vector<bool> dropped(pairs.size(), false);  // per root
  std::vector<char> offered(crossed.slots(), 0);   // per slot: inserted into kept_links
  const auto slot_of = [&](int link) { return crossed.slot_of_link[static_cast<std::size_t>(link)]; };
  const auto foreign = [&](int link) {
    return !never_left_out.empty() && never_left_out[static_cast<std::size_t>(link)];
  };
  for (std::size_t c = 0; c < pairs.size(); ++c) {
    const std::size_t first = member_offset[c], last = member_offset[c + 1];
    if (first == last) continue;
    bool keep = false;
    for (std::size_t m = first; m < last && !keep; ++m) {
      const std::size_t q = members[m];
      keep = sets_a_maximum[q];
      const RouteLinks route = route_of(q);
      for (int i = 0; i < route.count && !keep; ++i) {
        const int link = route.links[static_cast<std::size_t>(i)];
        keep = foreign(link) || !kept_links.contains(slot_of(link));
      }
    }
    if (!keep) {
      dropped[c] = true;
      continue;
    }
    for (std::size_t m = first; m < last; ++m) {
      const RouteLinks route = route_of(members[m]);
      for (int i = 0; i < route.count; ++i) {
        const int link = route.links[static_cast<std::size_t>(i)];
        const int slot = slot_of(link);
        // A link several of the component's pairs cross is offered once (a second insert
        // of the same slot finds it: no change to the set).
        if (foreign(link) || offered[static_cast<std::size_t>(slot)]) continue;
        offered[static_cast<std::size_t>(slot)] = 1;
        kept_links.insert(slot);
      }
    }
  }
  std::vector<bool> redundant(legs.size(), false);
  for (const TaskLegs& task : tasks)
    for (std::size_t l = task.first; l < task.last; ++l) redundant[l] = dropped[root_of[pairs.of_leg[l]]];
  return redundant;
}

}  // namespace trainsim::engine
