#include "sim/engine/algorithm_selection.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "sim/core/error.hpp"
#include "sim/engine/collnet_algorithm.hpp"
#include "sim/engine/direct_algorithm.hpp"
#include "sim/engine/domain_collective.hpp"
#include "sim/engine/double_binary_tree_algorithm.hpp"
#include "sim/engine/hierarchical_algorithm.hpp"
#include "sim/engine/kernel_rate.hpp"
#include "sim/engine/nccl_latency.hpp"
#include "sim/engine/nccl_rack_model.hpp"
#include "sim/engine/nvls_algorithm.hpp"
#include "sim/engine/nvls_tree_algorithm.hpp"
#include "sim/engine/pairwise_algorithm.hpp"
#include "sim/engine/pat_algorithm.hpp"
#include "sim/engine/ring_algorithm.hpp"
#include "sim/engine/scale_out_collective.hpp"

namespace trainsim::engine {

namespace {

void validate(const CollectiveCall& call, const Platform& platform) {
  if (call.gpus.empty()) throw InputError("", "--gpus", "0", "a collective needs at least one GPU");
  // GPUs in increasing order (every group the step and `trainsim collective` form) hold none
  // twice; the set only for others (a std::set node per GPU, each time an algorithm is chosen).
  const bool increasing = std::adjacent_find(call.gpus.begin(), call.gpus.end(),
                                             [](int a, int b) { return a >= b; }) == call.gpus.end();
  std::set<int> seen;
  for (const int g : call.gpus) {
    if (g < 0 || g >= platform.gpu_count())
      throw InputError("", "--gpus", std::to_string(g),
                       "GPU index must be in [0, " + std::to_string(platform.gpu_count()) + ")");
    if (!increasing && !seen.insert(g).second)
      throw InputError("", "--gpus", std::to_string(g), "a GPU may appear once per collective");
  }
  if (!(call.bytes >= 0)) throw InputError("", "bytes", std::to_string(call.bytes), "must be >= 0");
  if (call.root < 0 || call.root >= static_cast<int>(call.gpus.size()))
    throw InputError("", "root", std::to_string(call.root), "must index one of the collective's GPUs");
}

// The ring for the ring family, pairwise exchange for an all-to-all, one transfer for a
// send/receive.
CollectiveAlgo plain_algorithm(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_to_all:
      return CollectiveAlgo::pairwise;
    case CollectiveOp::send_recv:
      return CollectiveAlgo::direct;
    default:
      return CollectiveAlgo::ring;
  }
}

// The scale-out tier of the user's calibration runs `call` with `algo` (the plain plan that
// choose_algorithm picks for it).
bool scale_out_calibrated(CollectiveAlgo algo, const CollectiveCall& call, const Platform& platform) {
  return algo == plain_algorithm(call.op) && scale_out_fit(call, platform) != nullptr;
}

// The group as NCCL's model sees it across NVL72 racks (nccl_rack_model.hpp): an all-reduce,
// all-gather or reduce-scatter over 2 or more NVLink domains that each span several nodes
// (multi-node NVLink) and hold as many of its GPUs; nullopt otherwise (one domain, DGX/HGX
// nodes, uneven domains: nccl_latency.hpp's model decides there).
std::optional<RackGroup> rack_group(const CollectiveCall& call, const Platform& platform) {
  if (call.op != CollectiveOp::all_reduce && call.op != CollectiveOp::all_gather &&
      call.op != CollectiveOp::reduce_scatter)
    return std::nullopt;
  if (platform.cluster().nodes_per_domain() < 2 || call.gpus.size() < 2) return std::nullopt;
  const auto domains = gpus_by_node(call.gpus, platform);
  if (domains.size() < 2) return std::nullopt;
  for (const auto& d : domains)
    if (d.size() != domains.front().size()) return std::nullopt;
  // The NICs the group's GPUs have in a rack, as the preset states them per node (a GB200
  // tray: 4 GPUs, 4 NICs), at most the rack's.
  const ClusterSpec& c = platform.cluster();
  const int per_rack = static_cast<int>(domains.front().size());
  const int nics = std::min(platform.nics_per_domain(),
                            (per_rack * platform.layout().nics_per_node + c.gpus_per_node - 1) / c.gpus_per_node);
  // NCCL_MIN_CTAS (cluster.nccl_min_ctas) over every communicator's own limits (nccl_channels.hpp).
  return RackGroup{static_cast<int>(call.gpus.size()), static_cast<int>(domains.size()), c.nic_bandwidth_Bps,
                   std::max(1, nics), platform.nvls_tree_Bps() > 0, nccl_cta_limits({}, {c.nccl_min_ctas, 0})};
}

// Bus bandwidth of the group, as NCCL's model sees it: NVLink inside a node (an NVLink
// domain); across domains, one NIC per channel.
double group_bus_Bps(const CollectiveCall& call, const Platform& platform) {
  const auto nodes = gpus_by_node(call.gpus, platform);
  const double per_node = static_cast<double>(call.gpus.size()) / static_cast<double>(nodes.size());
  const double channels = std::min(per_node, static_cast<double>(platform.nics_per_domain()));
  return nodes.size() == 1 ? platform.nvlink_Bps() : std::min(platform.nvlink_Bps(), channels * platform.nic_Bps());
}

// The measured cost of `call` run by `algo` when it stays inside one NVLink domain whose
// collectives were measured (domain_collective.hpp): ring-family algorithms only.
std::optional<DomainCost> measured_domain_cost(CollectiveAlgo algo, const CollectiveCall& call,
                                               const Platform& platform) {
  // A send/receive is measured only by a fabric calibration (fabric_calibration.hpp).
  if (algo != CollectiveAlgo::ring && algo != CollectiveAlgo::pairwise && algo != CollectiveAlgo::direct)
    return std::nullopt;
  if (gpus_by_node(call.gpus, platform).size() != 1) return std::nullopt;
  return domain_cost(call.op, call.bytes, static_cast<int>(call.gpus.size()), platform);
}

// The measured per-step latency of `call`'s operation on the platform's NVLink (the bandwidth
// protocols' NVLink hop, domain_collective.hpp), or 0 where none was measured.
double measured_step_s(const CollectiveCall& call, const Platform& platform) {
  const MeasuredCollective* m = measured_in_domain(call.op, platform);
  return m != nullptr ? m->step_latency_s : 0.0;
}

// NCCL's ring model for `call`: all-reduce makes 2(n-1) steps, the others n-1.
NcclEstimate ring_estimate(const CollectiveCall& call, const Platform& platform) {
  const int n = static_cast<int>(call.gpus.size());
  const double nodes = static_cast<double>(gpus_by_node(call.gpus, platform).size());
  const double phases = call.op == CollectiveOp::all_reduce ? 2.0 : 1.0;
  return nccl_ring(call.bytes, n, phases * (n - 1), phases * (nodes - 1), group_bus_Bps(call, platform),
                   measured_step_s(call, platform));
}

NcclEstimate tree_estimate(const CollectiveCall& call, const Platform& platform) {
  return nccl_tree(call.bytes, static_cast<int>(call.gpus.size()),
                   static_cast<int>(gpus_by_node(call.gpus, platform).size()), group_bus_Bps(call, platform),
                   measured_step_s(call, platform));
}

// The protocol's bytes on the wire per data byte (LL: 8-byte stores of 4 data bytes; LL128: 120
// data bytes a 128-byte line; tuning.cc at 5067397c).
double wire_factor(NcclProtocol p) {
  return p == NcclProtocol::ll ? 1.0 / k_nccl_ll_efficiency : p == NcclProtocol::ll128 ? 128.0 / 120.0 : 1.0;
}

// Across racks, the time the simulation charges each algorithm and protocol of NCCL's model
// (nccl_rack_model.hpp), uncontended: NCCL's latency, the pipeline fill, and the bytes at the
// slower of NCCL's rate on the channels it runs (channel_algo_Bps) and the plan's busiest port
// alone (its bytes in the protocol's wire format), as plan_collective() charges them. The one
// of `algo` (every algorithm where `automatic`) whose charged time is least, time_s set to it;
// nullopt off racks or where NCCL's model has no estimate for `algo`. Choosing by NCCL's own time
// instead (which leaves out the fill and the links) let a larger buffer run faster where the
// two disagree (576 GPUs: the LL tree charged 201 us at 128 KiB, NVLS-tree 154 us at 256 KiB).
// NVLS-tree's in-rack stages are NVLS in each rack: where one rack of the group's size would
// itself run NVLS at this size on a measured NVLink (large buffers), they pay at least the
// one-rack NVLS latency (nvls_algorithm.hpp; 0.81 ms on 72 GPUs, fitted on the full rack's
// sweep) in place of NCCL's 25 us, so that racks are never faster than one rack; below that size
// NCCL's 25 us and the fill (the measured latency would charge 0.8 ms to 8 bytes).
//
// `built`, where given, is `algo`'s plan already built for `call` (not planned again); `kept`,
// where given, receives the winner's plan where this built it (plan_collective() runs it rather
// than planning it a second time).
std::optional<RackEstimate> charged_rack_estimate(CollectiveAlgo algo, const CollectiveCall& call,
                                                  const Platform& platform, const CommPlan* built = nullptr,
                                                  CommPlan* kept = nullptr) {
  const auto group = rack_group(call, platform);
  if (!group) return std::nullopt;
  const int per_rack = group->ranks / group->racks;
  const auto one_rack = domain_cost(CollectiveOp::all_reduce, call.bytes, per_rack, platform);
  const double nvls_fill_s = one_rack && nvls_all_reduce_s(call.bytes, per_rack, platform) < one_rack->time_s
                                 ? nvls_latency_s(per_rack, platform) - k_nccl_nvls_latency_s
                                 : 0.0;
  // The plan's busiest port alone, per algorithm (its Simple bytes; estimates come grouped by protocol).
  struct Planned {
    CollectiveAlgo algo;
    CommPlan plan;
    double alone_s = 0;
  };
  std::vector<Planned> planned;
  const auto alone_s = [&](CollectiveAlgo a) {
    for (const Planned& p : planned)
      if (p.algo == a) return p.alone_s;
    Planned p{a, built && a == algo ? CommPlan{} : make_algorithm(a)->plan(call, platform)};
    for (const CommPhase& phase : (built && a == algo ? *built : p.plan).phases)
      p.alone_s += endpoint_bound_s(phase, platform);
    planned.push_back(std::move(p));
    return planned.back().alone_s;
  };
  // Each candidate's time before its plan is built (latency, fill and channels: a lower bound on
  // what it is charged, the wire factor being at least 1), in NCCL's order of estimates.
  struct Candidate {
    RackEstimate estimate;
    double channel_s = 0;
    double bound_s = 0;
    size_t order = 0;
  };
  std::vector<Candidate> candidates;
  for (RackEstimate e : nccl_rack_estimates(call.op, call.bytes, *group)) {
    if (algo != CollectiveAlgo::automatic && e.algo != algo) continue;
    if (e.algo == CollectiveAlgo::nvls_tree) e.fill_s = std::max(e.fill_s, nvls_fill_s);
    const double channel_s = e.channel_algo_Bps > 0 ? call.bytes / e.channel_algo_Bps : 0.0;
    candidates.push_back({e, channel_s, e.latency_s + e.fill_s + channel_s, candidates.size()});
  }
  // The least charged time, the earlier estimate on a tie. Candidates are priced cheapest bound
  // first, and a plan is built only for one whose bound could still win (planning the busiest
  // port of a ring over thousands of GPUs is the expensive part): the same choice as pricing all.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.bound_s < b.bound_s; });
  std::optional<Candidate> best;
  for (Candidate c : candidates) {
    if (best && c.bound_s > best->estimate.time_s) break;
    c.estimate.time_s = c.estimate.latency_s + c.estimate.fill_s +
                        std::max(c.channel_s, wire_factor(c.estimate.protocol) * alone_s(c.estimate.algo));
    if (!best || c.estimate.time_s < best->estimate.time_s ||
        (c.estimate.time_s == best->estimate.time_s && c.order < best->order))
      best = c;
  }
  if (!best) return std::nullopt;
  if (kept)
    for (Planned& p : planned)
      if (p.algo == best->estimate.algo && !(built && p.algo == algo)) *kept = std::move(p.plan);
  return best->estimate;
}

CollectiveAlgo nccl_all_reduce_choice(const CollectiveCall& call, const Platform& platform) {
  const int nodes = static_cast<int>(gpus_by_node(call.gpus, platform).size());
  // Inside a measured domain the measurement stands for NCCL's ring and tree alike.
  if (const auto measured = measured_domain_cost(CollectiveAlgo::ring, call, platform)) {
    // The user's own measurement (a fabric calibration) already is whatever NCCL ran, NVLS included.
    if (!measured_in_domain(call.op, platform)->user_measured && nvls_possible(call.gpus, platform) &&
        nvls_all_reduce_s(call.bytes, static_cast<int>(call.gpus.size()), platform) < measured->time_s)
      return CollectiveAlgo::nvls;
    return CollectiveAlgo::ring;
  }
  const double ring_s = ring_estimate(call, platform).time_s;
  const double tree_s = tree_estimate(call, platform).time_s;
  // NVLink SHARP inside one domain that has it (NCCL disables NVLS across nodes without
  // CollNet: tuning.cc at 5067397c; across domains it runs NVLS-tree, below).
  if (nvls_possible(call.gpus, platform) &&
      nvls_all_reduce_s(call.bytes, static_cast<int>(call.gpus.size()), platform) < std::min(ring_s, tree_s))
    return CollectiveAlgo::nvls;
  CollectiveAlgo best = tree_s < ring_s ? CollectiveAlgo::double_binary_tree : CollectiveAlgo::ring;
  double best_s = std::min(ring_s, tree_s);
  const int per_domain = static_cast<int>(call.gpus.size()) / nodes;
  // Across NVLink domains: IB SHARP (CollNet) where the switches reduce and NCCL loads the
  // plugin (cluster.sharp), when NCCL's model makes it faster.
  if (nodes > 1 && collnet_possible(call.gpus, platform)) {
    const double collnet_s = collnet_all_reduce_s(call.bytes, per_domain, nodes, platform);
    if (collnet_s < best_s) {
      best = CollectiveAlgo::collnet;
      best_s = collnet_s;
    }
  }
  // NVLS-tree across domains (NCCL 2.18+), DGX nodes and NVL72 racks alike, when NCCL's view of
  // it is faster: on 2 domains each head's NIC carries S/h each way and NVLS-tree wins large
  // buffers (2 DGX H100 or B200 nodes: public.md D2 measures it above the NICs' line rate);
  // beyond 2 it carries up to 2 S/h, the ring's volume, and the ring takes large buffers back.
  if (nodes > 1 && nvls_tree_possible(call.gpus, platform) &&
      nvls_tree_all_reduce_s(call.bytes, per_domain, nodes, platform) < best_s)
    best = CollectiveAlgo::nvls_tree;
  return best;
}

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_algorithm(CollectiveAlgo algo) {
  switch (algo) {
    case CollectiveAlgo::ring:
      return std::make_unique<RingAlgorithm>();
    case CollectiveAlgo::double_binary_tree:
      return std::make_unique<DoubleBinaryTreeAlgorithm>();
    case CollectiveAlgo::hierarchical:
      return std::make_unique<HierarchicalAlgorithm>();
    case CollectiveAlgo::pairwise:
      return std::make_unique<PairwiseAlgorithm>();
    case CollectiveAlgo::direct:
      return std::make_unique<DirectAlgorithm>();
    case CollectiveAlgo::nvls:
      return std::make_unique<NvlsAlgorithm>();
    case CollectiveAlgo::nvls_tree:
      return std::make_unique<NvlsTreeAlgorithm>();
    case CollectiveAlgo::collnet:
      return std::make_unique<CollnetAlgorithm>();
    case CollectiveAlgo::pat:
      return std::make_unique<PatAlgorithm>();
    case CollectiveAlgo::automatic:
      break;
  }
  throw Error("make_algorithm: no implementation for 'auto'");
}

namespace {

// choose_algorithm(); across racks `kept` (where given) receives the chosen algorithm's plan
// where the choice built it (charged_rack_estimate()).
CollectiveAlgo choose_keeping(const CollectiveCall& call, const Platform& platform, CommPlan* kept) {
  validate(call, platform);
  if (call.algo != CollectiveAlgo::automatic) {
    if (!make_algorithm(call.algo)->supports(call.op))
      throw InputError("", "--algo", algo_name(call.algo), "does not implement " + op_name(call.op));
    // The in-switch reductions need hardware the cluster may lack: refuse them here, before a
    // simulation starts (their plans throw InputError saying what is missing).
    const bool needs_hardware = call.algo == CollectiveAlgo::nvls || call.algo == CollectiveAlgo::nvls_tree ||
                                call.algo == CollectiveAlgo::collnet || call.algo == CollectiveAlgo::pat;
    if (needs_hardware && call.gpus.size() >= 2) make_algorithm(call.algo)->plan(call, platform);
    return call.algo;
  }
  // Across NVLink domains as the user measured them (scale_out_collective.hpp): the plain plan.
  if (scale_out_fit(call, platform) != nullptr) return plain_algorithm(call.op);
  if (const auto group = rack_group(call, platform)) {
    // Across NVL72 racks: the algorithm and protocol of NCCL's model (nccl_rack_model.hpp) that
    // the simulation charges least (charged_rack_estimate()); IB SHARP where the cluster has it
    // and NCCL's view of it is faster still.
    CommPlan winner;
    const RackEstimate best = *charged_rack_estimate(CollectiveAlgo::automatic, call, platform, nullptr, &winner);
    if (call.op == CollectiveOp::all_reduce && collnet_possible(call.gpus, platform) &&
        collnet_all_reduce_s(call.bytes, group->ranks / group->racks, group->racks, platform) < best.time_s)
      return CollectiveAlgo::collnet;
    if (kept) *kept = std::move(winner);
    return best.algo;
  }
  if (call.op == CollectiveOp::all_reduce && call.gpus.size() >= 2) return nccl_all_reduce_choice(call, platform);
  return plain_algorithm(call.op);
}

}  // namespace

CollectiveAlgo choose_algorithm(const CollectiveCall& call, const Platform& platform) {
  return choose_keeping(call, platform, nullptr);
}

namespace {

double base_latency_s(CollectiveAlgo algo, const CollectiveCall& call, const Platform& platform) {
  switch (algo) {
    case CollectiveAlgo::nvls:
    case CollectiveAlgo::nvls_tree:
    case CollectiveAlgo::collnet:
      return 0.0;  // their plans carry their own latency already
    case CollectiveAlgo::double_binary_tree:
      return tree_estimate(call, platform).base_latency_s;
    default:
      // Ring-based, hierarchical and point-to-point collectives: the ring protocol NCCL picks
      // for this size (its p2p operations use the same protocols).
      return ring_estimate(call, platform).base_latency_s;
  }
}

// Inside a measured NVLink domain: the measured (or NCCL's LL) latency and rate in place of the
// links' hop latencies and NCCL's base latency (domain_collective.hpp).
void pay_measured_cost(CommPlan& plan, const DomainCost& cost) {
  for (CommPhase& phase : plan.phases) {
    phase.latency_s = 0;
    for (Transfer& t : phase.transfers) t.bytes *= cost.byte_scale;
  }
  plan.phases.front().latency_s = cost.latency_s;
}

// Across domains of a measured NVLink, the ring and the tree: with LL, its wire format (the
// plan's bytes doubled, as inside a domain); with a bandwidth protocol, the ring's steps and the
// tree's chain hops take at least the measured NVLink step (the links' hop latencies are LL's).
void pay_measured_nvlink_steps(CommPlan& plan, CollectiveAlgo algo, const CollectiveCall& call,
                               const Platform& platform) {
  const double step_s = measured_step_s(call, platform);
  const bool ring = algo == CollectiveAlgo::ring;
  if (!(step_s > 0) || !(ring || algo == CollectiveAlgo::double_binary_tree)) return;
  CommPhase& phase = plan.phases.front();
  if ((ring ? ring_estimate(call, platform) : tree_estimate(call, platform)).protocol == NcclProtocol::ll) {
    for (Transfer& t : phase.transfers) t.bytes /= k_nccl_ll_efficiency;
  } else if (ring) {
    const double steps =
        (call.op == CollectiveOp::all_reduce ? 2.0 : 1.0) * (static_cast<double>(call.gpus.size()) - 1);
    phase.latency_s = std::max(phase.latency_s, steps * step_s);
  } else {
    const double chain = static_cast<double>(gpus_by_node(call.gpus, platform).front().size()) - 1;
    phase.latency_s += 2 * chain * std::max(0.0, step_s - platform.cluster().nvlink_latency_s);
  }
}

}  // namespace

NcclProtocol chosen_protocol(const CollectiveCall& call, const Platform& platform) {
  return call.gpus.size() < 2 ? NcclProtocol::simple : protocol_of(choose_algorithm(call, platform), call, platform);
}

NcclProtocol protocol_of(CollectiveAlgo algo, const CollectiveCall& call, const Platform& platform) {
  if (call.gpus.size() < 2 || scale_out_calibrated(algo, call, platform)) return NcclProtocol::simple;
  if (const auto rack = charged_rack_estimate(algo, call, platform)) return rack->protocol;
  switch (algo) {
    case CollectiveAlgo::nvls:
    case CollectiveAlgo::nvls_tree:
    case CollectiveAlgo::collnet:
      return NcclProtocol::simple;
    case CollectiveAlgo::double_binary_tree:
      return tree_estimate(call, platform).protocol;
    default:
      break;
  }
  if (const auto measured = measured_domain_cost(algo, call, platform))
    return measured->byte_scale * k_nccl_ll_efficiency == 1.0 ? NcclProtocol::ll : NcclProtocol::simple;
  return ring_estimate(call, platform).protocol;
}

double nccl_base_latency_s(const CollectiveCall& call, const Platform& platform) {
  if (call.gpus.size() < 2) return 0.0;
  const CollectiveAlgo algo = choose_algorithm(call, platform);
  if (scale_out_calibrated(algo, call, platform)) return scale_out_latency_s(call, platform);
  if (const auto rack = charged_rack_estimate(algo, call, platform)) return rack->latency_s;
  return base_latency_s(algo, call, platform);
}

namespace {

// `plan` (`algo`'s for `call`) with the costs plan_collective() charges; the estimate across
// NVL72 racks where that is what priced it.
std::optional<RackEstimate> pay_costs(CommPlan& plan, CollectiveAlgo algo, const CollectiveCall& call,
                                      const Platform& platform) {
  if (plan.phases.empty()) return std::nullopt;
  if (call.op == CollectiveOp::all_to_all && algo == CollectiveAlgo::pairwise && call.kernel_Bps > 0) {
    pay_kernel_rate(plan, call, platform);
    return std::nullopt;
  }
  if (const auto measured = measured_domain_cost(algo, call, platform)) {
    pay_measured_cost(plan, *measured);
    return std::nullopt;
  }
  if (scale_out_calibrated(algo, call, platform)) {
    if (call.remote_share == 1.0) {
      pay_scale_out_cost(plan, call, platform);
    } else {
      CollectiveCall even = call;
      even.remote_share = 1.0;
      const CommPlan reference = make_algorithm(algo)->plan(even, platform);
      pay_scale_out_cost(plan, call, platform, &reference);
    }
    return std::nullopt;
  }
  if (const auto rack = charged_rack_estimate(algo, call, platform, &plan)) {
    // Across racks: NCCL's latency and the tree's pipeline fill in place of the links' hop
    // latencies, and the protocol's wire format on the bytes (LL: 8-byte stores of 4 data
    // bytes; LL128: 120 data bytes a 128-byte line).
    const double wire = wire_factor(rack->protocol);
    double alone_s = 0;
    for (CommPhase& phase : plan.phases) {
      phase.latency_s = 0;
      for (Transfer& t : phase.transfers) t.bytes *= wire;
      alone_s += endpoint_bound_s(phase, platform);
    }
    // No faster than NCCL's model at the channels it runs on (nccl_channels.hpp): where the
    // links alone would move the bytes sooner (a ring through every GPU's NIC, where NCCL's
    // search takes one NIC per channel), the bytes grow until the busiest port alone takes
    // bytes / that bandwidth; contention slows them further, as it would NCCL's.
    const double channel_s = call.bytes / rack->channel_algo_Bps;
    if (alone_s > 0 && channel_s > alone_s)
      for (CommPhase& phase : plan.phases)
        for (Transfer& t : phase.transfers) t.bytes *= channel_s / alone_s;
    plan.phases.front().latency_s = rack->latency_s + rack->fill_s;
    return rack;
  }
  pay_measured_nvlink_steps(plan, algo, call, platform);
  // NCCL's base latency before the first byte moves (public.md D1): the floor of a small
  // collective, which per-hop latencies alone leave out.
  plan.phases.front().latency_s += base_latency_s(algo, call, platform);
  return std::nullopt;
}

}  // namespace

CommPlan plan_collective(const CollectiveCall& call, const Platform& platform) {
  CommPlan plan;
  const CollectiveAlgo algo = choose_keeping(call, platform, &plan);
  if (call.gpus.size() < 2) return {};
  if (plan.phases.empty()) plan = make_algorithm(algo)->plan(call, platform);
  pay_costs(plan, algo, call, platform);
  return plan;
}

ChosenPlan plan_chosen_collective(const CollectiveCall& call, const Platform& platform) {
  ChosenPlan c;
  c.algo = choose_keeping(call, platform, &c.plan);
  if (call.gpus.size() < 2) return {c.algo, NcclProtocol::simple, 0, {}};
  if (c.plan.phases.empty()) c.plan = make_algorithm(c.algo)->plan(call, platform);
  if (const auto rack = pay_costs(c.plan, c.algo, call, platform)) {
    c.protocol = rack->protocol;
    c.channels = rack->channels;
  } else {
    c.protocol = protocol_of(c.algo, call, platform);
    const auto other = charged_rack_estimate(c.algo, call, platform);
    c.channels = other ? other->channels : 0;
  }
  return c;
}

}  // namespace trainsim::engine
