#include "sim/engine/redundant_tasks.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <string_view>
#include <unordered_map>

namespace trainsim::engine {

namespace {

// One element of a task's variable: a link it crosses, with the bytes of its pairs that do.
struct Element {
  int link = 0;
  double weight = 0;
};

// The phase's tasks as SimGrid's solve sees them: per task, its latency, its bound's key (the
// largest latency x bytes) and its elements in the order its pairs first cross them.
struct TaskSystems {
  std::vector<double> latency_s, latency_bytes;
  std::vector<std::size_t> first;  ///< per task, its first element (size: tasks + 1)
  std::vector<Element> elements;
};

// Builds the tasks as start_task() (plan_runner.cpp) hands them to SimGrid: the kept legs'
// endpoints in the task's order, each cell of the byte matrix the kept legs' bytes summed in
// leg order, the pairs in row-major order, each pair's route expanded link by link onto the
// task's elements (System::expand adds to an element the task has).
TaskSystems task_systems(const FabricRoutes& routes, const std::vector<Leg>& legs, const std::vector<TaskLegs>& tasks,
                         const std::vector<bool>& left_out) {
  TaskSystems out;
  out.latency_s.assign(tasks.size(), 0.0);
  out.latency_bytes.assign(tasks.size(), 0.0);
  out.first.assign(tasks.size() + 1, 0);
  std::vector<int> slot(static_cast<std::size_t>(routes.endpoints), -1);
  std::vector<int> element_of_link(static_cast<std::size_t>(routes.link_count()), -1);
  std::vector<int> kept_endpoints;
  std::vector<int> local_of_cell;
  std::vector<std::size_t> cells;
  std::vector<double> bytes;
  std::vector<std::size_t> order;
  const auto kept = [&](std::size_t l) { return left_out.empty() || !left_out[l]; };
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const TaskLegs& task = tasks[t];
    out.first[t] = out.elements.size();
    for (std::size_t l = task.first; l < task.last; ++l)
      if (kept(l)) slot[static_cast<std::size_t>(legs[l].src)] = slot[static_cast<std::size_t>(legs[l].dst)] = 0;
    kept_endpoints.clear();
    for (const int e : task.endpoints) {
      int& s = slot[static_cast<std::size_t>(e)];
      if (s < 0) continue;
      s = static_cast<int>(kept_endpoints.size());
      kept_endpoints.push_back(e);
    }
    const std::size_t k = kept_endpoints.size();
    if (local_of_cell.size() < k * k) local_of_cell.assign(k * k, -1);
    cells.clear();
    bytes.clear();
    for (std::size_t l = task.first; l < task.last; ++l) {
      if (!kept(l)) continue;
      const std::size_t cell = static_cast<std::size_t>(slot[static_cast<std::size_t>(legs[l].src)]) * k +
                               static_cast<std::size_t>(slot[static_cast<std::size_t>(legs[l].dst)]);
      int& local = local_of_cell[cell];
      if (local < 0) {
        local = static_cast<int>(cells.size());
        cells.push_back(cell);
        bytes.push_back(0.0);
      }
      bytes[static_cast<std::size_t>(local)] += legs[l].bytes;
    }
    order.resize(cells.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cells[a] < cells[b]; });
    for (const std::size_t p : order) {
      if (!(bytes[p] > 0)) continue;  // SimGrid skips the matrix' empty cells
      RouteLinks route;
      routes.route(kept_endpoints[cells[p] / k], kept_endpoints[cells[p] % k], route);
      out.latency_s[t] = std::max(out.latency_s[t], route.latency_s);
      out.latency_bytes[t] = std::max(out.latency_bytes[t], route.latency_s * bytes[p]);
      for (int i = 0; i < route.count; ++i) {
        const int link = route.links[static_cast<std::size_t>(i)];
        int& e = element_of_link[static_cast<std::size_t>(link)];
        if (e < 0) {
          e = static_cast<int>(out.elements.size());
          out.elements.push_back({link, bytes[p]});
        } else {
          out.elements[static_cast<std::size_t>(e)].weight += bytes[p];
        }
      }
    }
    for (std::size_t i = out.first[t]; i < out.elements.size(); ++i)
      element_of_link[static_cast<std::size_t>(out.elements[i].link)] = -1;
    for (const std::size_t cell : cells) local_of_cell[cell] = -1;
    for (const int e : task.endpoints) slot[static_cast<std::size_t>(e)] = -1;
  }
  out.first[tasks.size()] = out.elements.size();
  return out;
}

std::size_t root(std::vector<std::size_t>& parent, std::size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

std::uint64_t bits(double v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// A component's system with its tasks and links renamed by order of appearance: equal for two
// components exactly when they are the same system (redundant_tasks.hpp).
void signature(const FabricRoutes& routes, const TaskSystems& systems, const std::size_t* tasks, std::size_t count,
               std::vector<int>& canonical, std::vector<int>& links, std::vector<std::uint64_t>& out) {
  out.clear();
  links.clear();
  out.push_back(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t t = tasks[i];
    out.push_back(bits(systems.latency_s[t]));
    out.push_back(bits(systems.latency_bytes[t]));
    out.push_back(systems.first[t + 1] - systems.first[t]);
    for (std::size_t e = systems.first[t]; e < systems.first[t + 1]; ++e) {
      int& c = canonical[static_cast<std::size_t>(systems.elements[e].link)];
      if (c < 0) {
        c = static_cast<int>(links.size());
        links.push_back(systems.elements[e].link);
      }
      out.push_back(static_cast<std::uint64_t>(c));
      out.push_back(bits(systems.elements[e].weight));
    }
  }
  for (const int link : links) {
    out.push_back(bits(routes.bandwidth_Bps(link)));
    canonical[static_cast<std::size_t>(link)] = -1;
  }
}

}  // namespace

std::vector<bool> redundant_tasks(const FabricRoutes& routes, const std::vector<Leg>& legs,
                                  const std::vector<TaskLegs>& tasks, const std::vector<bool>& left_out) {
  std::vector<bool> redundant(tasks.size(), false);
  if (tasks.size() < 2) return redundant;
  const TaskSystems systems = task_systems(routes, legs, tasks, left_out);

  // Components: tasks joined by the links they share.
  std::vector<std::size_t> parent(tasks.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  {
    std::vector<std::size_t> owner(static_cast<std::size_t>(routes.link_count()), tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
      for (std::size_t e = systems.first[t]; e < systems.first[t + 1]; ++e) {
        std::size_t& o = owner[static_cast<std::size_t>(systems.elements[e].link)];
        if (o == tasks.size()) o = t;
        else parent[root(parent, t)] = root(parent, o);
      }
  }
  // Each component's tasks in order, components by their first task.
  std::vector<std::size_t> offset(tasks.size() + 1, 0), members(tasks.size()), root_of(tasks.size());
  for (std::size_t t = 0; t < tasks.size(); ++t) ++offset[(root_of[t] = root(parent, t)) + 1];
  for (std::size_t t = 0; t < tasks.size(); ++t) offset[t + 1] += offset[t];
  {
    std::vector<std::size_t> fill(offset.begin(), offset.end() - 1);
    for (std::size_t t = 0; t < tasks.size(); ++t) members[fill[root_of[t]]++] = t;
  }

  // The first component of each system stays; the others repeat it.
  std::vector<int> canonical(static_cast<std::size_t>(routes.link_count()), -1);
  std::vector<int> links;
  std::vector<std::uint64_t> sig;
  std::vector<std::vector<std::uint64_t>> kept;  // one signature per system seen
  std::unordered_multimap<std::size_t, std::size_t> kept_by_hash;
  std::vector<bool> component_seen(tasks.size(), false);
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const std::size_t r = root_of[t];
    if (component_seen[r]) continue;
    component_seen[r] = true;
    const std::size_t count = offset[r + 1] - offset[r];
    signature(routes, systems, members.data() + offset[r], count, canonical, links, sig);
    const std::size_t hash = std::hash<std::string_view>{}(
        std::string_view(reinterpret_cast<const char*>(sig.data()), sig.size() * sizeof(std::uint64_t)));
    bool repeat = false;
    const auto range = kept_by_hash.equal_range(hash);
    for (auto it = range.first; it != range.second && !repeat; ++it) repeat = kept[it->second] == sig;
    if (repeat) {
      for (std::size_t m = offset[r]; m < offset[r + 1]; ++m) redundant[members[m]] = true;
    } else {
      kept_by_hash.emplace(hash, kept.size());
      kept.push_back(sig);
    }
  }
  return redundant;
}

}  // namespace trainsim::engine
