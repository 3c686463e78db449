#include "sim/step/layer_collectives.hpp"

#include <algorithm>
#include <string>

#include "models/moe_dispatch.hpp"
#include "sim/engine/timer_wait.hpp"
#include "sim/step/dispatcher_rates.hpp"
#include "sim/step/simulated_scope.hpp"

namespace trainsim {

using engine::CollectiveCall;
using engine::CollectiveOp;
using engine::CommActivity;

std::optional<LayerSlots> layer_slots(const PassCost& pass, const PipelineTask& t, bool with_ep) {
  const auto played = [&](const GroupCollective& c) { return c.layers > 0 && (with_ep || c.group != CommGroup::ep); };
  int layers = 0, rounds = 0;
  for (const GroupCollective& c : pass.collectives)
    if (played(c)) {
      layers = std::max(layers, c.layers);
      rounds = std::max(rounds, c.count / c.layers);
    }
  LayerSlots l;
  l.task = &t;
  for (int layer = 0; layer < layers; ++layer)
    for (int r = 0; r < rounds; ++r)
      for (const GroupCollective& c : pass.collectives)
        if (played(c) && layer < c.layers && r < c.count / c.layers) l.sequence.push_back(&c);
  if (l.sequence.empty()) return std::nullopt;
  l.slot_s = (pass.compute_s - pass.overlapped_s) / static_cast<double>(l.sequence.size());
  l.until_next = l.slot_s;
  return l;
}

LayerCollectives::LayerCollectives(StageContext& s, const StageTraffic& traffic)
    : s_(s),
      traffic_(traffic),
      slowdown_(s.replica_class.stage_slowdown[static_cast<size_t>(s.stage)]),
      tp_reuse_(s.w.options.reduce_symmetry ||
                (!s.w.isolated_tp.empty() && s.w.isolated_tp[static_cast<size_t>(s.rank)])),
      tp_group_(s.w.mapping.group_of(s.rank, GroupAxis::tp)),
      ep_group_(s.w.mapping.group_of(s.rank, GroupAxis::ep)),
      etp_group_(s.w.mapping.group_of(s.rank, GroupAxis::etp)),
      cp_group_(s.w.mapping.group_of(s.rank, GroupAxis::cp)) {
  const StepWorld& world = s.w;
  // The stage actors' ranks of this stage, and how many of them each of this GPU's groups holds.
  std::vector<int> actor_ranks;
  for (const ReplicaClass& c : world.simulated.classes)
    actor_ranks.push_back(rank_of(world.mapping, c.representative, s.stage));
  std::sort(actor_ranks.begin(), actor_ranks.end());
  const auto actors_in = [&](const std::vector<int>& group) {
    return static_cast<int>(std::count_if(group.begin(), group.end(), [&](int r) {
      return std::binary_search(actor_ranks.begin(), actor_ranks.end(), r);
    }));
  };
  group_actors_ = {actors_in(ep_group_), actors_in(etp_group_), actors_in(cp_group_)};
  const std::vector<int> ep_gpus = world.mapping.gpus_of(ep_group_);
  const int domain = world.platform.domain_of(world.mapping.gpu_of(s.rank));
  const auto local =
      std::count_if(ep_gpus.begin(), ep_gpus.end(), [&](int gpu) { return world.platform.domain_of(gpu) == domain; });
  ep_remote_share_ = remote_peer_share(world.scenario.model, world.scenario.parallel, static_cast<int>(local));
  ep_kernel_Bps_ = dispatcher_kernel_Bps(world.scenario, static_cast<int>(local));
  ep_across_domains_ = static_cast<size_t>(local) < ep_gpus.size();
  ep_overlap_slowdown_ = trainsim::ep_overlap_slowdown(world.scenario, ep_across_domains_);
  const double peers = static_cast<double>(ep_gpus.size()) - 1;
  if (peers > 0) ep_sent_share_ = (static_cast<double>(local) - 1 + (peers + 1 - local) * ep_remote_share_) / peers;
}

// The GEMM collective `c` is pipelined with: its seconds beside it (GroupCollective::beside_s:
// the SMs and HBM bandwidth the userbuffers kernels take, sim/step/tp_overlap_cost.hpp),
// slower still on a slow GPU. 0 when `c` blocks compute.
double LayerCollectives::overlapped_gemm_s(const GroupCollective& c) const {
  return c.overlap_s > 0 ? c.beside_s * slowdown_ : 0.0;
}

// TP on the tensor-parallel group, MoE all-to-alls on the expert-parallel group, the folded
// experts' gathers on the expert-tensor-parallel group.
double LayerCollectives::run(const GroupCollective& c, int times, const PipelineTask& t) {
  StepWorld& w = s_.w;
  double computed = 0;
  const bool tp = c.group == CommGroup::tp;
  for (int i = 0; i < times; ++i) {
    const double start = s_.clock.now();
    const auto key = duration_key(c);
    const auto cached = w.duration_cache.find(key);
    const double beside = overlapped_gemm_s(c);  // compute beside it
    // A group that holds several stage actors' ranks (--full, or classes near a slow NIC)
    // runs each of its collectives once for all of them: none is reused from the cache, so
    // that every member asks for every one.
    const bool shared = !tp && actors_in(c.group == CommGroup::ep ? LayerGroup::ep : LayerGroup::etp) > 1;
    const bool beside_gradients = w.options.reduce_symmetry && traffic_.gradient_traffic_running();
    const bool reuse = (tp ? tp_reuse_ : w.options.reduce_symmetry && !shared) && !beside_gradients;
    if (reuse && cached != w.duration_cache.end()) {
      s_.clock.sleep(std::max(beside, cached->second));
    } else {
      const CollectiveCall engine_call = call(c);
      // A duration measured beside the overlapped parameter all-gather (the first forward
      // pass's only) is that moment's, not the collective's: it is not reused for the
      // later micro-batches. (Gradient reductions run beside most of every backward; a
      // collective measured beside one stays cached, as before.)
      s_.clock.settle();
      const bool beside_gather = traffic_.parameter_gather_in_flight() != nullptr;
      std::optional<CommActivity> started;
      if (tp) {
        started = engine::start_collective(w.platform, engine_call);
        if (beside > 0) engine::timer_sleep(beside);
      } else {
        // The compute beside it runs from this member's ask; the collective from the last's.
        const auto [rendezvous, actors] =
            next_group_rendezvous(c.group == CommGroup::ep ? LayerGroup::ep : LayerGroup::etp);
        w.rendezvous.arrive(rendezvous, actors, [&] { return engine::start_collective(w.platform, engine_call); });
        if (beside > 0) engine::timer_sleep(beside);
        started = *w.rendezvous.wait_started(rendezvous);
        w.rendezvous.leave(rendezvous);
      }
      const CommActivity& collective = *started;
      collective.wait();
      if ((!tp || tp_reuse_) && !beside_gather && traffic_.parameter_gather_in_flight() == nullptr &&
          !beside_gradients && !(w.options.reduce_symmetry && traffic_.gradient_traffic_running()))
        w.duration_cache[key] = collective.duration_s();
    }
    const double end = s_.clock.now();
    computed += beside;
    (tp ? s_.account().tp_comm : s_.account().ep_comm) += end - start - beside;
    if (c.amax) s_.account().fixed.amax_reductions += end - start - beside;
    record(c, t, start, end, beside);
  }
  return computed;
}

DurationKey LayerCollectives::duration_key(const GroupCollective& c) const {
  return std::make_tuple(static_cast<int>(c.group), static_cast<int>(c.op), c.bytes,
                         s_.replica_class.stage_slow_nic[static_cast<size_t>(s_.stage)] ? s_.rank : -1);
}

const std::vector<int>& LayerCollectives::group(const GroupCollective& c) const {
  return c.group == CommGroup::tp ? tp_group_ : c.group == CommGroup::ep ? ep_group_ : etp_group_;
}

CollectiveCall LayerCollectives::call(const GroupCollective& c) const {
  CollectiveCall engine_call;
  engine_call.op = c.op;
  engine_call.gpus = s_.w.mapping.gpus_of(group(c));
  engine_call.bytes = c.bytes;
  if (c.group == CommGroup::ep && c.op == CollectiveOp::all_to_all) {
    engine_call.remote_share = ep_remote_share_;
    // DeepEP's and HybridEP's dispatch and combine at their measured rates; the alltoall
    // dispatcher's probabilities' all-to-all is NCCL's (c.tokens false).
    if (c.tokens) engine_call.kernel_Bps = ep_kernel_Bps_;
  }
  return engine_call;
}

void LayerCollectives::record(const GroupCollective& c, const PipelineTask& t, double start, double end,
                              double beside) {
  const bool tp = c.group == CommGroup::tp;
  (tp ? s_.account().tp_bytes : s_.account().ep_bytes) +=
      bus_bytes(c.op, c.bytes, static_cast<int>(group(c).size())) *
      (c.group == CommGroup::ep && c.op == CollectiveOp::all_to_all ? ep_sent_share_ : 1.0);
  s_.account().add_comm_interval(start, end);
  // Without an observer (no trace, no Chakra export) observe() drops the record: not built
  // then (a vector and a string each, 220,000 at 1,024 GPUs under --full).
  if (!s_.w.options.observer) return;
  const char* prefix = tp ? "tp_" : c.group == CommGroup::ep ? "ep_" : "etp_";
  ActivityComm comm;
  comm.collectives.push_back({c.op,
                              tp                         ? ActivityGroup::tp
                              : c.group == CommGroup::ep ? ActivityGroup::ep
                                                         : ActivityGroup::etp,
                              GradientScope::whole, c.bytes, 0});
  comm.beside_s = beside;
  s_.observe(tp ? ActivityStream::tp_comm : ActivityStream::dp_comm, prefix + engine::op_name(c.op), &t, start, end,
             c.bytes, 0, std::move(comm));
}

std::pair<ReplicaRendezvous::Key, int> LayerCollectives::next_group_rendezvous(LayerGroup g) {
  const auto i = static_cast<size_t>(g);
  const std::vector<int>& ranks = g == LayerGroup::ep ? ep_group_ : g == LayerGroup::etp ? etp_group_ : cp_group_;
  return {{static_cast<int>(i), ranks.front(), s_.step, group_index_[i]++}, group_actors_[i]};
}

// Under --full an EP group's member replicas would otherwise each run the whole all-to-all;
// waiting for it to start is waiting for the slowest.
CommActivity LayerCollectives::start_group_collective(LayerGroup g, const CollectiveCall& engine_call) {
  const auto [key, actors] = next_group_rendezvous(g);
  s_.clock.settle();
  s_.w.rendezvous.arrive(key, actors, [&] { return engine::start_collective(s_.w.platform, engine_call); });
  const CommActivity c = *s_.w.rendezvous.wait_started(key);
  s_.w.rendezvous.leave(key);
  return c;
}

CommActivity LayerCollectives::start_cp(CollectiveOp op, double bytes) {
  CollectiveCall engine_call;
  engine_call.op = op;
  engine_call.gpus = s_.w.mapping.gpus_of(cp_group_);
  engine_call.bytes = bytes;
  s_.account().cp_bytes += bus_bytes(op, bytes, static_cast<int>(cp_group_.size()));
  return start_group_collective(LayerGroup::cp, engine_call);
}

void LayerCollectives::exposed_cp(const PipelineTask& t, CollectiveOp op, double bytes, const char* name) {
  const double asked = s_.clock.now();
  const CommActivity c = start_cp(op, bytes);
  c.wait();
  s_.account().cp_comm += s_.clock.now() - asked;
  s_.account().add_comm_interval(c.start_s(), c.end_s());
  s_.observe(ActivityStream::dp_comm, name, &t, c.start_s(), c.end_s(), bytes, 0,
             {{{op, ActivityGroup::cp, GradientScope::whole, bytes, 0}}});
}

}  // namespace trainsim
