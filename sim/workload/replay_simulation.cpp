#include "sim/workload/replay_simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/comm_plan.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/workload/comm_types.hpp"

namespace trainsim::workload {

namespace {

namespace sg4 = simgrid::s4u;
namespace eng = trainsim::engine;

using Interval = std::pair<double, double>;
using Member = std::pair<int, std::uint32_t>;  // rank, node index

std::string node_key(const ChakraNode& n) {
  return "node " + std::to_string(n.id);
}

// Everything the rank actors share. SimGrid runs actors one at a time, so no locking.
struct Replay {
  Replay(const Workload& workload, const eng::Platform& on, std::size_t timeline_events,
         std::vector<std::vector<double>> node_durations)
      : w(workload), platform(on), max_events(timeline_events), durations(std::move(node_durations)) {}

  const Workload& w;
  const eng::Platform& platform;
  std::map<std::string, std::vector<int>> groups;
  std::vector<sg4::SemaphorePtr> wake;               // per rank: a communication of its completed
  std::vector<std::vector<std::uint32_t>> finished;  // per rank: nodes whose communication completed
  std::map<std::pair<std::string, std::uint64_t>, std::vector<Member>> coll_arrivals;  // (pg, seq)
  struct Message {
    bool arrived = false;
    std::optional<Member> receiver;  // the receive, once reached
  };
  // (src, dst, tag, seq) -> a message sent or awaited
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::uint64_t>, Message> messages;
  std::vector<std::vector<Interval>> compute, comm;   // per rank
  std::vector<std::map<std::string, double>> comm_s;  // per rank
  std::vector<CommRecord> records;
  std::vector<ReplayEvent> events;
  std::size_t max_events = 0;  // 0: no timeline
  std::size_t events_dropped = 0;
  std::vector<double> finish;
  std::vector<bool> ended;  // per rank: played to its last node
  // per rank: the collectives and receives reached and not yet completed (node -> sequence
  // number), what a deadlock leaves the rank waiting for
  std::vector<std::map<std::uint32_t, std::uint64_t>> waiting_at;
  std::vector<std::vector<double>> durations;  // per rank and node: a compute node's seconds

  // A played node on the timeline (named `name`, else `fallback`), while there is room.
  void add_event(int rank, const char* stream, const std::string& name, const std::string& fallback, double start,
                 double end, double bytes) {
    if (max_events == 0) return;  // no timeline asked for
    if (events.size() < max_events)
      events.push_back({rank, stream, name.empty() ? fallback : name, start, end, bytes});
    else
      ++events_dropped;
  }

  void deliver(const std::vector<Member>& members) {
    for (const auto& [rank, node] : members) {
      waiting_at[static_cast<size_t>(rank)].erase(node);
      finished[static_cast<size_t>(rank)].push_back(node);
      wake[static_cast<size_t>(rank)]->release();
    }
  }

  // Starts a communication of `members` (`activity` empty: it takes no time).
  void launch(CommRecord record, std::vector<Member> members, std::optional<eng::CommActivity> activity,
              double bus_factor, std::function<void()> after = {}) {
    record.start_s = sg4::Engine::get_clock();
    const size_t at = records.size();
    records.push_back(record);
    if (!activity) {
      deliver(members);
      return;
    }
    sg4::Actor::create("watch", platform.host(0), [this, at, members, a = *activity, bus_factor, after]() {
      a.wait();
      CommRecord& r = records[at];
      r.time_s = sg4::Engine::get_clock() - r.start_s;
      r.busbw_GBps = r.time_s > 0 ? r.bytes / r.time_s / 1e9 * bus_factor : 0;
      for (const auto& m : members) {
        comm[static_cast<size_t>(m.first)].push_back({r.start_s, r.start_s + r.time_s});
        comm_s[static_cast<size_t>(m.first)][r.kind] += r.time_s;
        add_event(m.first, r.kind == "p2p" ? "pp_comm" : "comm",
                  w.ranks[static_cast<size_t>(m.first)].nodes[m.second].name, r.kind, r.start_s, r.start_s + r.time_s,
                  r.bytes);
      }
      deliver(members);
      if (after) after();
    });
  }

  void arrive_collective(int rank, std::uint32_t node, std::uint64_t seq) {
    const ChakraNode& n = w.ranks[static_cast<size_t>(rank)].nodes[node];
    const std::vector<int>& group = groups.at(n.pg_name);
    waiting_at[static_cast<size_t>(rank)][node] = seq;
    std::vector<Member>& arrived = coll_arrivals[{n.pg_name, seq}];
    arrived.push_back({rank, node});
    if (arrived.size() < group.size()) return;
    eng::CollectiveCall call;
    call.op = *engine_op(*n.comm_type);
    call.bytes = n.comm_type == CommType::barrier ? 4 : n.comm_bytes;
    for (const auto& [r, i] : arrived)  // the largest size any member recorded
      call.bytes = std::max(call.bytes, w.ranks[static_cast<size_t>(r)].nodes[i].comm_bytes);
    // An all-gather's comm_size is each rank's input (ASTRA-sim's convention, which the
    // export follows: astra-sim/system/collective/Ring.cc, All_Gather's final_data_size =
    // data_size x nodes_in_ring); the engine takes the gathered output, as nccl-tests does.
    if (call.op == eng::CollectiveOp::all_gather) call.bytes *= static_cast<double>(group.size());
    call.gpus = group;
    const CommRecord record{eng::op_name(call.op), call.bytes, static_cast<int>(group.size()), 0, 0, 0};
    std::vector<Member> members = std::move(arrived);
    coll_arrivals.erase({n.pg_name, seq});
    if (group.size() < 2 || call.bytes == 0)
      launch(record, std::move(members), std::nullopt, 0);
    else
      launch(record, std::move(members), eng::start_collective(platform, call),
             eng::bus_bandwidth_factor(call.op, static_cast<int>(group.size())));
  }

  // Sends are eager, as ASTRA-sim's sim_send is: the transfer starts when the send is reached
  // and the send completes when it has arrived; the receive completes once it is reached and
  // the transfer has arrived (the custom ring's ranks all send before they receive).
  void arrive_p2p(int rank, std::uint32_t node, std::uint64_t seq) {
    const ChakraNode& n = w.ranks[static_cast<size_t>(rank)].nodes[node];
    const bool is_send = n.kind == NodeKind::send;
    const std::int64_t src = is_send ? rank : *n.comm_src;
    const std::int64_t dst = is_send ? *n.comm_dst : rank;
    const auto key = std::make_tuple(src, dst, n.comm_tag, seq);
    Message& m = messages[key];
    if (!is_send) {
      waiting_at[static_cast<size_t>(rank)][node] = seq;
      if (m.arrived) {
        messages.erase(key);
        deliver({{rank, node}});
      } else {
        m.receiver = Member{rank, node};
      }
      return;
    }
    const double bytes = n.comm_bytes;
    const CommRecord record{"p2p", bytes, 2, 0, 0, 0};
    auto arrived = [this, key]() {
      Message& msg = messages[key];
      msg.arrived = true;
      if (msg.receiver) {
        const Member receiver = *msg.receiver;
        messages.erase(key);
        deliver({receiver});
      }
    };
    if (bytes == 0) {
      launch(record, {{rank, node}}, std::nullopt, 1);
      arrived();
      return;
    }
    // One transfer, as a pipeline send is (step/stage_actor.cpp: send_output).
    eng::CommPlan plan;
    plan.phases.resize(1);
    const int s = static_cast<int>(src);
    const int d = static_cast<int>(dst);
    plan.phases[0].transfers.push_back({s, d, bytes});
    plan.phases[0].latency_s = platform.latency_s(s, d);
    launch(record, {{rank, node}}, eng::start_plan(platform, std::move(plan), "p2p"), 1, arrived);
  }

  void play(int rank);
  std::string waits(int rank) const;
};

// What a rank left waiting by a deadlock waits for: each collective or receive it reached and
// that did not complete, with the ranks that never reached the other end.
std::string Replay::waits(int rank) const {
  const RankTrace& t = w.ranks[static_cast<size_t>(rank)];
  std::string out = "rank " + std::to_string(rank) + " waits at";
  bool first = true;
  for (const auto& [node, seq] : waiting_at[static_cast<size_t>(rank)]) {
    const ChakraNode& n = t.nodes[node];
    out += std::string(first ? " " : " and ") + node_key(n);
    first = false;
    if (n.kind == NodeKind::recv) {
      out += " for a receive from rank " + std::to_string(*n.comm_src) + " with tag " + std::to_string(n.comm_tag) +
             ", which rank " + std::to_string(*n.comm_src) + " has not sent";
      continue;
    }
    const std::vector<int>& group = groups.at(n.pg_name);
    const auto it = coll_arrivals.find({n.pg_name, seq});
    std::string absent;
    for (const int r : group) {
      const bool came = it != coll_arrivals.end() && std::any_of(it->second.begin(), it->second.end(),
                                                                 [r](const Member& m) { return m.first == r; });
      if (!came) absent += (absent.empty() ? "" : ", ") + std::to_string(r);
    }
    out += " for collective " + std::to_string(seq + 1) + " of process group " +
           (n.pg_name.empty() ? std::string("(every rank)") : "'" + n.pg_name + "'") + ", not reached by rank " +
           absent;
  }
  return first ? out + " nothing it could name" : out;
}

void Replay::play(int rank) {
  const RankTrace& t = w.ranks[static_cast<size_t>(rank)];
  const size_t n = t.nodes.size();
  std::vector<std::uint32_t> waiting(n, 0);
  std::vector<std::vector<std::uint32_t>> dependents(n);
  for (size_t i = 0; i < n; ++i)
    for (const std::uint32_t d : t.nodes[i].deps) {
      ++waiting[i];
      dependents[d].push_back(static_cast<std::uint32_t>(i));
    }
  // Sequence numbers: a collective's within its process group, a send's or receive's within
  // its (source, destination, tag), in file order, as check_workload matched them.
  std::vector<std::uint64_t> seq(n, 0);
  std::map<std::string, std::uint64_t> coll_count;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::uint64_t> p2p_count;
  for (size_t i = 0; i < n; ++i) {
    const ChakraNode& c = t.nodes[i];
    if (c.kind == NodeKind::collective) seq[i] = coll_count[c.pg_name]++;
    if (c.kind == NodeKind::send) seq[i] = p2p_count[{rank, *c.comm_dst, c.comm_tag}]++;
    if (c.kind == NodeKind::recv) seq[i] = p2p_count[{*c.comm_src, rank, c.comm_tag}]++;
  }
  std::set<std::uint32_t> ready;  // in file order, so the replay is deterministic
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.insert(static_cast<std::uint32_t>(i));
  size_t done = 0;
  auto complete = [&](std::uint32_t i) {
    ++done;
    for (const std::uint32_t j : dependents[i])
      if (--waiting[j] == 0) ready.insert(j);
  };
  std::deque<std::uint32_t> queued;  // compute nodes ready, waiting for the stream
  std::optional<std::uint32_t> running;
  double running_end = 0;
  sg4::SemaphorePtr& my_wake = wake[static_cast<size_t>(rank)];
  std::vector<std::uint32_t>& my_finished = finished[static_cast<size_t>(rank)];
  const std::vector<double>& my_durations = durations[static_cast<size_t>(rank)];
  while (done < n) {
    while (!ready.empty()) {
      const std::uint32_t i = *ready.begin();
      ready.erase(ready.begin());
      const ChakraNode& c = t.nodes[i];
      switch (c.kind) {
        case NodeKind::compute:
          if (my_durations[i] > 0)
            queued.push_back(i);
          else
            complete(i);
          break;
        case NodeKind::collective:
          arrive_collective(rank, i, seq[i]);
          break;
        case NodeKind::send:
        case NodeKind::recv:
          arrive_p2p(rank, i, seq[i]);
          break;
        case NodeKind::skipped:
          complete(i);
          break;
      }
    }
    if (!my_finished.empty()) {
      const std::vector<std::uint32_t> got = std::move(my_finished);
      my_finished.clear();
      for (const std::uint32_t i : got) complete(i);
      continue;
    }
    if (!running && !queued.empty()) {
      running = queued.front();
      queued.pop_front();
      const double now = sg4::Engine::get_clock();
      running_end = now + my_durations[*running];
      compute[static_cast<size_t>(rank)].push_back({now, running_end});
    }
    if (running) {
      const double now = sg4::Engine::get_clock();
      const bool timed_out = now >= running_end || my_wake->acquire_timeout(running_end - now);
      if (timed_out || sg4::Engine::get_clock() >= running_end) {
        const std::uint32_t i = *running;
        add_event(rank, "compute", t.nodes[i].name, "compute", running_end - my_durations[i], running_end, 0);
        running.reset();
        complete(i);
      }
    } else if (done < n) {
      my_wake->acquire();
    }
  }
  finish[static_cast<size_t>(rank)] = sg4::Engine::get_clock();
  ended[static_cast<size_t>(rank)] = true;
}

// Each compute node's seconds: recorded, or `compute`'s for its recorded work.
std::vector<std::vector<double>> compute_durations(const Workload& w, const ComputeModel* compute) {
  std::vector<std::vector<double>> out;
  for (const RankTrace& t : w.ranks) {
    std::vector<double>& d = out.emplace_back();
    for (const ChakraNode& n : t.nodes) {
      if (compute == nullptr || n.kind != NodeKind::compute || (n.num_ops <= 0 && n.tensor_bytes <= 0)) {
        d.push_back(n.duration_s);
        continue;
      }
      Op op;
      op.name = n.name;
      op.kind = n.num_ops > 0 ? OpKind::gemm : OpKind::elementwise;
      op.flops = n.num_ops;
      op.bytes = n.tensor_bytes;
      d.push_back(compute->time_s(op));
    }
  }
  return out;
}

// Measure of the union of `a` minus the union of `b` (both lists of [start, end]).
double exposed(std::vector<Interval> a, std::vector<Interval> b) {
  auto merge = [](std::vector<Interval>& v) {
    std::sort(v.begin(), v.end());
    std::vector<Interval> out;
    for (const Interval& i : v) {
      if (!out.empty() && i.first <= out.back().second)
        out.back().second = std::max(out.back().second, i.second);
      else
        out.push_back(i);
    }
    v = std::move(out);
  };
  merge(a);
  merge(b);
  double total = 0;
  size_t k = 0;
  for (const auto& [s, e] : a) {
    double covered = 0;
    while (k < b.size() && b[k].second <= s) ++k;
    for (size_t j = k; j < b.size() && b[j].first < e; ++j)
      covered += std::min(e, b[j].second) - std::max(s, b[j].first);
    total += (e - s) - covered;
  }
  return total;
}

}  // namespace

ReplayResult replay_workload(const Workload& w, const ClusterSpec& cluster, const ReplayOptions& options) {
  const int ranks = static_cast<int>(w.ranks.size());
  if (cluster.total_gpus() < ranks)
    throw InputError(
        "", "--cluster", cluster.preset,
        std::to_string(cluster.total_gpus()) + " GPUs, fewer than the workload's " + std::to_string(ranks) + " ranks");
  for (const RankTrace& t : w.ranks)
    for (const ChakraNode& n : t.nodes)
      if (n.kind == NodeKind::collective && !engine_op(*n.comm_type))
        throw InputError(t.path, node_key(n), "comm_type = " + std::to_string(static_cast<int>(*n.comm_type)),
                         "REDUCE, GATHER and SCATTER have no counterpart in the collective engine (all-reduce, "
                         "all-gather, reduce-scatter, broadcast, all-to-all)");
  eng::Simulation sim;
  const eng::Platform platform(cluster);
  Replay r(w, platform, options.timeline ? options.max_events : 0, compute_durations(w, options.compute));
  for (const RankTrace& t : w.ranks)
    for (const ChakraNode& n : t.nodes)
      if (n.kind == NodeKind::collective && !r.groups.count(n.pg_name)) r.groups[n.pg_name] = w.group_ranks(n.pg_name);
  const auto size = static_cast<size_t>(ranks);
  for (int i = 0; i < ranks; ++i) r.wake.push_back(sg4::Semaphore::create(0));
  r.finished.resize(size);
  r.compute.resize(size);
  r.comm.resize(size);
  r.comm_s.resize(size);
  r.finish.assign(size, 0);
  r.ended.assign(size, false);
  r.waiting_at.resize(size);
  for (int rank = 0; rank < ranks; ++rank)
    sg4::Actor::create("rank" + std::to_string(rank), platform.host(rank), [&r, rank]() { r.play(rank); });
  sim.run();
  std::vector<int> stuck;
  for (int rank = 0; rank < ranks; ++rank)
    if (!r.ended[static_cast<size_t>(rank)]) stuck.push_back(rank);
  if (!stuck.empty()) {
    // One line, however many ranks: the first few named.
    constexpr size_t k_named = 4;
    std::string why;
    for (size_t k = 0; k < std::min(stuck.size(), k_named); ++k) why += (k ? "; " : "") + r.waits(stuck[k]);
    if (stuck.size() > k_named) why += "; and " + std::to_string(stuck.size() - k_named) + " more ranks";
    throw InputError(w.prefix, "", "", "the replay deadlocks: " + why);
  }

  ReplayResult out;
  out.replay_time_s = *std::max_element(r.finish.begin(), r.finish.end());
  for (size_t k = 0; k < size; ++k) {
    RankReplay rr;
    // Lengths end - start are rounded: a kernel of 2^64 - 1 us that starts at 15 us has the
    // length of its end, so the 15 us before it count twice, in it and in the nodes that ran
    // then, and compute + exposed_comm passed the replay time by them (idle -7 us). Idle is
    // what is left, never below 0; where nothing rounds away, the subtraction as it was.
    for (const auto& [s, e] : r.compute[k]) rr.compute_s += e - s;
    rr.exposed_comm_s = exposed(r.comm[k], r.compute[k]);
    rr.idle_s = std::max(0.0, out.replay_time_s - rr.compute_s - rr.exposed_comm_s);
    rr.finish_s = r.finish[k];
    rr.comm_s = r.comm_s[k];
    out.ranks.push_back(rr);
  }
  out.comms = r.records;
  out.events = std::move(r.events);
  out.events_dropped = r.events_dropped;
  return out;
}

}  // namespace trainsim::workload
