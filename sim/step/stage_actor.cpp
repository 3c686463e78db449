#include "sim/step/stage_actor.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <deque>
#include <tuple>
#include <utility>

#include "models/moe_dispatch.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/timer_wait.hpp"
#include "sim/schedule/combined_1f1b.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/dispatcher_rates.hpp"
#include "sim/step/simulated_scope.hpp"

namespace trainsim {

namespace sg4 = simgrid::s4u;
using engine::CollectiveCall;
using engine::CollectiveOp;
using engine::CommActivity;
using engine::CommPlan;

namespace {

// Activity records shorter than this are not reported (observe).
constexpr double k_shortest_record_s = 1e-12;

}  // namespace

StageActor::StageActor(StepWorld& world, int stage, int replica_class, int account)
    : w_(world),
      stage_(stage),
      class_(world.simulated.classes[static_cast<size_t>(replica_class)]),
      replica_(class_.representative),
      account_(account),
      rank_(rank_of(world.mapping, replica_, stage)),
      leader_rank_(rank_of(world.mapping, 0, stage)),
      slowdown_(class_.stage_slowdown[static_cast<size_t>(stage)]),
      tp_reuse_(world.options.reduce_symmetry ||
                (!world.isolated_tp.empty() && world.isolated_tp[static_cast<size_t>(rank_)])),
      tp_group_(world.mapping.group_of(rank_, GroupAxis::tp)),
      ep_group_(world.mapping.group_of(rank_, GroupAxis::ep)),
      etp_group_(world.mapping.group_of(rank_, GroupAxis::etp)),
      cp_group_(world.mapping.group_of(rank_, GroupAxis::cp)),
      costs_(world.costs.stages[static_cast<size_t>(stage)]),
      loader_(world.scenario.training.sample_load_time_s * world.scenario.training.micro_batch,
              world.scenario.training.prefetch),
      clock_(world.options.lazy_sleeps) {
  // The stage actors' ranks of this stage, and how many of them each of this GPU's groups holds.
  std::vector<int> actor_ranks;
  for (const ReplicaClass& c : world.simulated.classes)
    actor_ranks.push_back(rank_of(world.mapping, c.representative, stage));
  std::sort(actor_ranks.begin(), actor_ranks.end());
  const auto actors_in = [&](const std::vector<int>& group) {
    return static_cast<int>(std::count_if(group.begin(), group.end(), [&](int r) {
      return std::binary_search(actor_ranks.begin(), actor_ranks.end(), r);
    }));
  };
  group_actors_ = {actors_in(ep_group_), actors_in(etp_group_), actors_in(cp_group_)};
  const std::vector<int> ep_gpus = world.mapping.gpus_of(ep_group_);
  const int domain = world.platform.domain_of(world.mapping.gpu_of(rank_));
  const auto local =
      std::count_if(ep_gpus.begin(), ep_gpus.end(), [&](int gpu) { return world.platform.domain_of(gpu) == domain; });
  ep_remote_share_ = remote_peer_share(world.scenario.model, world.scenario.parallel, static_cast<int>(local));
  ep_kernel_Bps_ = dispatcher_kernel_Bps(world.scenario, static_cast<int>(local));
  ep_overlap_slowdown_ = ep_overlap_slowdown(world.scenario, static_cast<size_t>(local) < ep_gpus.size());
  const double peers = static_cast<double>(ep_gpus.size()) - 1;
  if (peers > 0) ep_sent_share_ = (static_cast<double>(local) - 1 + (peers + 1 - local) * ep_remote_share_) / peers;
}

void StageActor::operator()() {
  const int m = w_.costs.microbatches;
  const int pp = w_.scenario.parallel.pp;
  const int v = w_.scenario.parallel.virtual_stages;
  const std::vector<PipelineTask> order = w_.schedule.order(stage_, pp, m, v);
  const std::vector<ScheduledUnit> units =
      combined_units(order, [&](const PipelineTask& t) { return w_.scenario.parallel.moe_a2a_overlap && pairable(t); });
  // The job plays run.steps steps; a neighbour beside it steps until the job is done.
  for (int step = 0; w_.foreground ? step == 0 || w_.another_step : step < w_.scenario.run.steps; ++step) {
    step_ = step;
    step_start_ = clock_.now();
    rendezvous_index_ = 0;
    group_index_ = {};
    start_overlapped_parameter_gather();
    std::deque<PipelineTask> deferred;
    for (const ScheduledUnit& u : units) {
      const PipelineTask& t = u.task;
      if (u.beside) {
        wait_inputs(t);
        wait_inputs(*u.beside);
        const bool forward_first = t.pass == TaskPass::forward;
        run_pair(forward_first ? t : *u.beside, forward_first ? *u.beside : t);
        continue;
      }
      if (w_.schedule.defers_weight_gradients()) {
        const auto ready = [&] {
          clock_.settle();  // a transfer's state is read at the engine's clock
          return inputs_ready(t);
        };
        while (!deferred.empty() && !ready()) {
          run_weight(deferred.front());
          deferred.pop_front();
        }
      }
      wait_inputs(t);
      run_task(t);
      if (t.pass == TaskPass::backward && w_.schedule.defers_weight_gradients())
        deferred.push_back({t.microbatch, t.chunk, TaskPass::weight});
    }
    for (const PipelineTask& t : deferred) run_weight(t);
    finish_step();
  }
}

GpuAccount& StageActor::account() {
  return w_.accounts[static_cast<size_t>(account_)];
}

void StageActor::observe(ActivityStream stream, std::string kind, const PipelineTask* t, double start, double end,
                         double bytes, double flops, ActivityComm comm, double hbm_bytes) {
  // Shorter than a picosecond is a rounding remainder (a pass's last slot leaves its
  // compute split to the last bit), not an activity.
  if (!w_.options.observer || end - start < k_shortest_record_s) return;
  ActivityRecord r;
  r.rank = rank_;
  r.stage = stage_;
  r.replica = replica_;
  r.stream = stream;
  r.kind = std::move(kind);
  r.chunk = t ? t->chunk : -1;
  r.microbatch = t ? t->microbatch : -1;
  r.step = step_;
  r.start_s = start;
  r.end_s = end;
  r.bytes = bytes;
  r.flops = flops;
  r.hbm_bytes = hbm_bytes;
  r.comm = std::move(comm);
  w_.options.observer->on_activity(r);
}

std::vector<ActivityCollective> StageActor::group_collectives(CollectiveOp op, double bytes, double expert_bytes,
                                                              GradientScope scope) const {
  return plan_collectives({rank_, op, bytes, expert_bytes, scope, false}, w_.scenario.parallel);
}

namespace {

// The FLOPs and HBM bytes a pass executes per second of its compute: its records' rate.
StageActor::WorkRate work_rate(const PassCost& pass) {
  if (pass.compute_s <= 0) return {};
  return {pass.executed_flops / pass.compute_s, pass.executed_bytes / pass.compute_s};
}

}  // namespace

// Runs one pass's compute, accounts it and reports it. ZeRO-3 gathers the pass's
// parameters unit by unit (forward and backward), and Megatron FSDP reduces a backward's
// gradients unit by unit; context parallelism exchanges K/V blocks during the attention
// kernels.
double StageActor::compute_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets) {
  const ParallelSpec& par = w_.scenario.parallel;
  const bool gathers = par.zero >= 3 && par.gradient_group() > 1 &&
                       costs_.zero3_unit_bytes + costs_.zero3_unit_expert_bytes > 0 && t.pass != TaskPass::weight &&
                       std::string(kind) != "recompute";
  const bool by_units =
      gathers || (par.megatron_fsdp() && with_buckets && costs_.zero3_units[static_cast<size_t>(t.chunk)] > 0);
  // What runs beside overlapped TP collectives runs in run_collective; with context
  // parallelism the attention kernels run beside the K/V exchange.
  const double before_attention =
      pass.compute_s - pass.overlapped_s - (pass.cp_gather_bytes > 0 ? pass.attention_s : 0.0);
  // The pass's FLOPs in proportion to the compute time each record covers.
  const WorkRate rate = work_rate(pass);
  if (by_units) {
    // Each unit's compute is its own record: the gathers waited for lie between them.
    double spent = compute_by_units(kind, t, before_attention, with_buckets, rate, gathers);
    if (pass.cp_gather_bytes > 0) {
      open_record(kind, t, rate);
      spent += compute_attention_with_cp(kind, t, pass, rate);
      close_record();
    }
    return spent;
  }
  open_record(kind, t, rate);
  double spent = 0;
  std::function<double(double)> attention;
  if (pass.cp_gather_bytes > 0)
    attention = [&](double share) { return compute_attention_with_cp(kind, t, pass, rate, share); };
  if (with_buckets) {
    // Each bucket's reduction is issued once its share of the whole pass, attention included,
    // has run: the last one when the pass ends.
    spent = compute_with_buckets(t, before_attention, 1.0, attention);
  } else if (!gather_shares_.empty() && t.pass == TaskPass::forward && std::string(kind) == "forward") {
    spent = compute_with_gathers(kind, t, before_attention, rate, attention);
  } else {
    spent = compute(before_attention);
    if (pass.cp_gather_bytes > 0) spent += compute_attention_with_cp(kind, t, pass, rate);
  }
  close_record();
  return spent;
}

// The attention kernels of a pass under context parallelism, with the K/V exchange the
// scenario's cp_algo makes. Called with a compute record open; leaves one open.
double StageActor::compute_attention_with_cp(const char* kind, const PipelineTask& t, const PassCost& pass,
                                             WorkRate rate, double share) {
  if (w_.scenario.parallel.cp_algo == CpAlgo::ring) return compute_with_ring_exchange(t, pass, share);
  // All-gather CP (Llama 3 §3.3.2): the whole sequence's K and V are gathered before the
  // attention kernels and, in the backward, their gradients reduce-scattered after them;
  // neither overlaps compute. Each stops the compute record.
  close_record();
  exposed_cp_collective(t, CollectiveOp::all_gather, share * pass.cp_gather_bytes, "cp_allgather");
  open_record(kind, t, rate);
  const double spent = compute(share * pass.attention_s);
  if (pass.cp_reduce_bytes > 0) {
    close_record();
    exposed_cp_collective(t, CollectiveOp::reduce_scatter, share * pass.cp_reduce_bytes, "cp_reducescatter");
    open_record(kind, t, rate);
  }
  return spent;
}

// Starts `op` of `bytes` on this GPU's context-parallel group and accounts its bytes.
CommActivity StageActor::start_cp_collective(CollectiveOp op, double bytes) {
  CollectiveCall call;
  call.op = op;
  call.gpus = w_.mapping.gpus_of(cp_group_);
  call.bytes = bytes;
  account().cp_bytes += bus_bytes(op, bytes, static_cast<int>(cp_group_.size()));
  return start_group_collective(LayerGroup::cp, call);
}

// A collective on the CP group that the GPU waits for: its whole time is cp_comm.
void StageActor::exposed_cp_collective(const PipelineTask& t, CollectiveOp op, double bytes, const char* name) {
  const double asked = clock_.now();
  const CommActivity c = start_cp_collective(op, bytes);
  c.wait();
  account().cp_comm += clock_.now() - asked;
  account().add_comm_interval(c.start_s(), c.end_s());
  observe(ActivityStream::dp_comm, name, &t, c.start_s(), c.end_s(), bytes, 0,
          {{{op, ActivityGroup::cp, GradientScope::whole, bytes, 0}}});
}

void StageActor::open_record(const char* kind, const PipelineTask& t, WorkRate rate) {
  const double now = clock_.now();
  record_ = ComputeRecord{kind, &t, now, now, rate, 0};
}

void StageActor::observe_record() {
  observe(ActivityStream::compute, record_->kind, record_->task, record_->start_s, record_->end_s, 0,
          record_->rate.flops_per_s * record_->seconds, {}, record_->rate.bytes_per_s * record_->seconds);
}

void StageActor::close_record() {
  if (!record_) return;
  observe_record();
  record_.reset();
}

// ZeRO-3 / FSDP (Rajbhandari et al. 2020 §5.3; PyTorch FSDP): with `gather`, each unit's
// parameters are all-gathered before it computes, zero3_prefetch units ahead; waiting for one
// is zero_comm. With `with_buckets`, each unit's gradients are reduced as it ends. Each unit's
// compute is reported as a `kind` record of `rate` x its seconds.
double StageActor::compute_by_units(const char* kind, const PipelineTask& t, double seconds, bool with_buckets,
                                    WorkRate rate, bool gather) {
  const int units = costs_.zero3_units[static_cast<size_t>(t.chunk)];
  const int prefetch = w_.scenario.parallel.zero3_prefetch;
  const double unit_bytes = costs_.zero3_unit_bytes + costs_.zero3_unit_expert_bytes;
  int issued = 0;
  double spent = 0;
  // Each unit's gather starts when the last simulated replica asks for it (ReplicaRendezvous):
  // an all-gather over the replicas runs once, when all of them have joined.
  const auto issue_until = [&](int count) {
    for (; gather && issued < std::min(units, count); ++issued) {
      clock_.settle();
      unit_gathers_.push_back(next_rendezvous());
      w_.rendezvous.arrive(
          unit_gathers_.back(), w_.simulated.replicas(),
          [&] {
            return start_gradient_plan({leader_rank_, CollectiveOp::all_gather, costs_.zero3_unit_bytes,
                                        costs_.zero3_unit_expert_bytes, gather_scope(), false},
                                       "zero3");
          },
          replica_);
      account().zero_bytes +=
          bus_bytes(CollectiveOp::all_gather, costs_.zero3_unit_bytes, gradient_group_size(gather_scope())) +
          bus_bytes(CollectiveOp::all_gather, costs_.zero3_unit_expert_bytes,
                    gradient_group_size(gather_scope(), true));
    }
  };
  for (int u = 0; u < units; ++u) {
    issue_until(u + 1);  // this unit's, if no earlier prefetch started it
    if (!gather) {
      open_record(kind, t, rate);
      spent += compute_with_buckets(t, seconds / units, 1.0 / units);
      close_record();
      continue;
    }
    clock_.settle();
    const double asked = clock_.now();
    const ReplicaRendezvous::Key key = unit_gathers_.front();
    wait_all_started({key});
    const CommActivity unit = *w_.rendezvous.started(key);
    unit.wait();
    w_.rendezvous.leave(key);
    unit_gathers_.pop_front();
    account().zero_comm += clock_.now() - asked;
    account().add_comm_interval(unit.start_s(), unit.end_s());
    observe(ActivityStream::dp_comm, "zero3_allgather", &t, unit.start_s(), unit.end_s(), unit_bytes, 0,
            {group_collectives(CollectiveOp::all_gather, costs_.zero3_unit_bytes, costs_.zero3_unit_expert_bytes,
                               gather_scope())});
    issue_until(u + 1 + prefetch);  // while this unit computes, the next ones are gathered
    open_record(kind, t, rate);
    spent += with_buckets ? compute_with_buckets(t, seconds / units, 1.0 / units) : compute(seconds / units);
    close_record();
  }
  return spent;
}

// Ring attention (Liu et al. 2023): the K/V blocks of the other context-parallel ranks
// arrive while the attention kernels run; what they do not hide is cp_comm.
double StageActor::compute_with_ring_exchange(const PipelineTask& t, const PassCost& pass, double share) {
  const double bytes = share * pass.cp_gather_bytes;
  const CommActivity exchange = start_cp_collective(CollectiveOp::all_gather, bytes);
  beside_.push_back(exchange);
  double spent = compute(share * pass.attention_s);
  beside_.clear();
  clock_.settle();
  const double asked = clock_.now();
  exchange.wait();
  const double exposed = clock_.now() - asked;
  account().cp_comm += exposed;
  account().add_comm_interval(exchange.start_s(), exchange.end_s());
  observe(ActivityStream::dp_comm, "cp_ring_exchange", &t, exchange.start_s(), exchange.end_s(), bytes, 0,
          {{{CollectiveOp::all_gather, ActivityGroup::cp, GradientScope::whole, bytes, 0}}});
  return spent;
}

double StageActor::bus_bytes(CollectiveOp op, double bytes, int ranks) {
  return ranks > 1 ? bytes * engine::bus_bandwidth_factor(op, ranks) : 0.0;
}

int StageActor::gradient_group_size(GradientScope scope, bool experts) const {
  return static_cast<int>(gradient_group(w_.mapping, w_.scenario.parallel, rank_, experts, scope).size());
}

GradientScope StageActor::gather_scope() const {
  return trainsim::gather_scope(w_.scenario.parallel);
}

GradientGroups StageActor::gradient_groups() const {
  return {w_.mapping, w_.scenario.parallel, w_.simulated.one_transfer_per_tp_group};
}

// Starts the gradient-group plan of `key` (once `after` has completed): as prepared with the
// step's others, or with every leg (GradientPlans).
CommActivity StageActor::start_gradient_plan(const GradientPlanKey& key, const std::string& name,
                                             engine::QueuedAfter after) {
  clock_.settle();
  if (auto prepared = w_.gradient_plans.find(key))
    return engine::start_prepared_plan(w_.platform, prepared, name, {}, std::move(after));
  return engine::start_plan(w_.platform, gradient_plan(key, gradient_groups(), w_.platform), name,
                            engine::PlanSurroundings::shared, {}, std::move(after));
}

// A collective of `bytes` on `scope` of the gradient (dp x cp) group of every simulated TP
// member (and `expert_bytes` on the expert groups).
CommActivity StageActor::start_gradient_group_collective(CollectiveOp op, double bytes, const std::string& name,
                                                         double expert_bytes, GradientScope scope) {
  return start_gradient_plan({rank_, op, bytes, expert_bytes, scope, false}, name);
}

int StageActor::chunks() const {
  return w_.scenario.parallel.pp * w_.scenario.parallel.virtual_stages;
}

int StageActor::global_chunk(const PipelineTask& t) const {
  return t.chunk * w_.scenario.parallel.pp + stage_;
}

const ChunkCosts& StageActor::chunk_costs(const PipelineTask& t) const {
  return costs_.chunks[static_cast<size_t>(t.chunk)];
}

// The pass whose output `t` consumes, if it comes from another stage.
std::optional<TaskKey> StageActor::input_of(const PipelineTask& t) const {
  const int g = global_chunk(t);
  if (t.pass == TaskPass::forward && g > 0) return TaskKey{replica_, step_, t.microbatch, g - 1, TaskPass::forward};
  if (t.pass == TaskPass::backward && g < chunks() - 1)
    return TaskKey{replica_, step_, t.microbatch, g + 1, TaskPass::backward};
  return std::nullopt;
}

std::int64_t StageActor::transfer_tag(const TaskKey& key) const {
  const std::int64_t per_step = static_cast<std::int64_t>(w_.costs.microbatches) * chunks();
  return ((key.step * per_step + static_cast<std::int64_t>(key.microbatch) * chunks() + key.global_chunk) << 1) |
         (key.pass == TaskPass::backward ? 1 : 0);
}

bool StageActor::inputs_ready(const PipelineTask& t) const {
  const auto key = input_of(t);
  return !key || w_.board.ready(*key);
}

void StageActor::wait_inputs(const PipelineTask& t) {
  if (t.pass == TaskPass::forward && global_chunk(t) == 0) wait_data(t);
  const auto key = input_of(t);
  if (!key) return;
  clock_.settle();
  const double asked = clock_.now();
  const TransferBoard::Entry entry = w_.board.take(*key);
  entry.transfer.wait();
  // Waiting for the upstream pass is the bubble; waiting for its transfer is pp_comm.
  const double now = clock_.now();
  account().pp_comm += now - std::max(asked, entry.posted_s);
  account().add_comm_interval(entry.transfer.start_s(), entry.transfer.end_s());
  ActivityComm transfer;
  transfer.peer_stage = key->global_chunk % w_.scenario.parallel.pp;
  transfer.tag = transfer_tag(*key);
  observe(ActivityStream::pp_comm, "pp_transfer", &t, entry.transfer.start_s(), entry.transfer.end_s(),
          w_.costs.activation_bytes / w_.scenario.parallel.tp, 0, std::move(transfer));
  account().pp_bytes += w_.costs.activation_bytes / w_.scenario.parallel.tp;
}

void StageActor::wait_data(const PipelineTask& t) {
  const int index = step_ * w_.costs.microbatches + t.microbatch;
  const double ready = loader_.ready_time(index);
  const double now = clock_.now();
  if (ready > now) {
    clock_.sleep(ready - now);
    account().data += ready - now;
    observe(ActivityStream::data, "data_wait", &t, now, ready, 0, 0);
  }
  loader_.consumed(index, clock_.now());
}

bool StageActor::parameter_gather_running() const {
  const CommActivity* gather = parameter_gather();
  return gather && !gather->done();
}

// Whether this GPU's gradient reductions, ZeRO-3 unit gathers or overlapped parameter gather
// are in flight (started, not done). With symmetry reduced a layer collective beside one is
// simulated, not reused: the reduction shares the group's NVLink ports (every replica's, under
// --full), so a duration timed without it would make the reduced step short of --full (1.1 %
// on two DGX-H100 under Megatron-Core's order, StepSimulation.ReducedEqualsFullSimulation;
// 0.3 % with TP 2 beside the bucket gathers, StepTails.ReducedEqualsFullWithBucketGathers).
bool StageActor::gradient_traffic_running() const {
  return gradient_traffic_in_flight() != nullptr || parameter_gather_running();
}

// The first of this GPU's gradient reductions or ZeRO-3 unit gathers still in flight, if any.
const CommActivity* StageActor::gradient_traffic_in_flight() const {
  const auto first_running = [&](const auto& keys) -> const CommActivity* {
    for (const ReplicaRendezvous::Key& key : keys)
      if (const CommActivity* a = w_.rendezvous.started(key); a && !a->done()) return a;
    return nullptr;
  };
  if (const CommActivity* a = first_running(dp_inflight_)) return a;
  return first_running(unit_gathers_);
}

// A communication of this GPU's still in flight beside its compute, if any.
const CommActivity* StageActor::running_beside() const {
  if (const CommActivity* a = gradient_traffic_in_flight()) return a;
  for (const CommActivity& a : beside_)
    if (!a.done()) return &a;
  return parameter_gather_running() ? parameter_gather() : nullptr;
}

// Runs `seconds` of compute, slowed by overlap_slowdown for as long as a communication of
// this GPU runs beside it (gradient reductions, ZeRO-3 gathers, ring attention's K/V
// exchange, overlapped TP collectives: NCCL's and userbuffers' thread blocks take SMs and
// memory bandwidth from the kernels). Returns the time it took.
double StageActor::compute_slowed(double seconds) {
  const double start = clock_.now();
  double remaining = seconds * slowdown_;  // compute left, in seconds unslowed by communication
  while (remaining > 0) {
    // Nothing of this GPU's runs beside it while sleeps are pending (starting one settles).
    // A pair's collective first (run_pair): its end starts the stream's next, and its
    // dispatcher's kernels take their SMs (ep_overlap_slowdown).
    const bool pair = beside_done_ && !beside_.empty() && !beside_.front().done();
    const CommActivity* running = pair ? &beside_.front() : running_beside();
    const double slowdown = 1.0 + (pair ? ep_overlap_slowdown_ : w_.scenario.training.overlap_slowdown);
    if (running == nullptr) {
      const std::optional<ReplicaRendezvous::Key> awaited = awaited_start();
      if (!awaited) {
        clock_.sleep(remaining);
        break;
      }
      // A reduction this replica asked for starts when the slowest replica asks: the compute
      // runs unslowed until then.
      clock_.settle();
      const double before = sg4::Engine::get_clock();
      w_.rendezvous.wait_started(*awaited, remaining);
      const double elapsed = sg4::Engine::get_clock() - before;
      if (elapsed <= 0 && !w_.rendezvous.started(*awaited)) {  // too short for the clock to advance
        engine::timer_sleep(remaining);
        break;
      }
      remaining -= elapsed;
      if (beside_done_) beside_done_();  // a pair's collective may have started (run_pair)
      continue;
    }
    clock_.settle();
    const double before = sg4::Engine::get_clock();
    running->wait_for(remaining * slowdown);
    const double elapsed = sg4::Engine::get_clock() - before;
    if (elapsed <= 0 && !running->done()) {  // too short for the clock to advance
      engine::timer_sleep(remaining * slowdown);
      break;
    }
    remaining -= elapsed / slowdown;
    if (beside_done_ && running->done()) beside_done_();  // (beside_done_ may change beside_)
  }
  const double end = clock_.now();
  if (record_) {
    record_->seconds += seconds;
    record_->end_s = end;
  }
  return end - start;
}

// `seconds` of a pass's compute (compute_slowed), the layers' collectives played where
// their slots fall in it (LayerComm). Returns the compute time, the GEMMs run beside
// overlapped collectives included, the collectives' own time not.
double StageActor::compute(double seconds) {
  double spent = 0;
  while (layer_comm_ && layer_comm_->pending() && seconds >= layer_comm_->until_next) {
    const double piece = layer_comm_->until_next;
    spent += compute_slowed(piece);
    seconds -= piece;
    spent += play_layer_slot();
    if (beside_done_) beside_done_();  // a pair's collective may have ended meanwhile (run_pair)
  }
  if (layer_comm_ && layer_comm_->pending()) layer_comm_->until_next -= seconds;
  return spent + compute_slowed(seconds);
}

// Layer by layer, each of its collectives' count / layers in turn (layer l has those whose
// `layers` exceed l); what does not divide is played after the compute (finish_layer_comm).
void StageActor::start_layer_comm(const PassCost& pass, const PipelineTask& t) {
  layer_comm_ = layer_comm(pass, t, true);
}

// The pass's layer collectives as start_layer_comm plays them, its EP ones only `with_ep`;
// nothing if it has none.
std::optional<StageActor::LayerComm> StageActor::layer_comm(const PassCost& pass, const PipelineTask& t,
                                                            bool with_ep) const {
  const auto played = [&](const GroupCollective& c) { return c.layers > 0 && (with_ep || c.group != CommGroup::ep); };
  int layers = 0, rounds = 0;
  for (const GroupCollective& c : pass.collectives)
    if (played(c)) {
      layers = std::max(layers, c.layers);
      rounds = std::max(rounds, c.count / c.layers);
    }
  LayerComm l;
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

// Plays the next slot's collective; the open compute record is reported up to it and
// goes on after it. Returns the compute run beside it.
double StageActor::play_layer_slot() {
  LayerComm& l = *layer_comm_;
  const GroupCollective& c = *l.sequence[l.next++];
  l.until_next = l.slot_s;
  if (record_) {
    observe_record();
    record_->seconds = 0;
  }
  const double computed = run_collective(c, 1, *l.task);
  if (record_) record_->start_s = record_->end_s = clock_.now();
  return computed;
}

// After the pass's compute: the slots its rounding left, the collectives that do not
// divide by their layers' count, and those once per pass (embedding, output).
double StageActor::finish_layer_comm(const PassCost& pass, const PipelineTask& t) {
  double computed = 0;
  while (layer_comm_ && layer_comm_->pending()) computed += play_layer_slot();
  layer_comm_.reset();
  for (const GroupCollective& c : pass.collectives)
    computed += run_collective(c, c.layers > 0 ? c.count % c.layers : c.count, t);
  return computed;
}

// The GEMM collective `c` is pipelined with: its seconds beside it (GroupCollective::beside_s:
// the SMs and HBM bandwidth the userbuffers kernels take, sim/step/tp_overlap_cost.hpp),
// slower still on a slow GPU. 0 when `c` blocks compute.
double StageActor::overlapped_gemm_s(const GroupCollective& c) const {
  return c.overlap_s > 0 ? c.beside_s * slowdown_ : 0.0;
}

// `times` of collective `c`: TP on the tensor-parallel group, MoE all-to-alls on the
// expert-parallel group, the folded experts' gathers on the expert-tensor-parallel group;
// blocking, or beside the compute they overlap (tp_comm_overlap). With symmetry reduced,
// each distinct one is simulated once. Returns the seconds of compute run beside them (part
// of the pass's compute).
double StageActor::run_collective(const GroupCollective& c, int times, const PipelineTask& t) {
  double computed = 0;
  const bool tp = c.group == CommGroup::tp;
  for (int i = 0; i < times; ++i) {
    const double start = clock_.now();
    const auto key = duration_key(c);
    const auto cached = w_.duration_cache.find(key);
    const double beside = overlapped_gemm_s(c);  // compute beside it
    // A group that holds several stage actors' ranks (--full, or classes near a slow NIC)
    // runs each of its collectives once for all of them: none is reused from the cache, so
    // that every member asks for every one.
    const bool shared =
        !tp && group_actors_[static_cast<size_t>(c.group == CommGroup::ep ? LayerGroup::ep : LayerGroup::etp)] > 1;
    const bool beside_gradients = w_.options.reduce_symmetry && gradient_traffic_running();
    const bool reuse = (tp ? tp_reuse_ : w_.options.reduce_symmetry && !shared) && !beside_gradients;
    if (reuse && cached != w_.duration_cache.end()) {
      clock_.sleep(std::max(beside, cached->second));
    } else {
      const CollectiveCall call = layer_call(c);
      // A duration measured beside the overlapped parameter all-gather (the first forward
      // pass's only) is that moment's, not the collective's: it is not reused for the
      // later micro-batches. (Gradient reductions run beside most of every backward; a
      // collective measured beside one stays cached, as before.)
      clock_.settle();
      const bool beside_gather = parameter_gather_running();
      std::optional<CommActivity> started;
      if (tp) {
        started = engine::start_collective(w_.platform, call);
        if (beside > 0) engine::timer_sleep(beside);
      } else {
        // The compute beside it runs from this member's ask; the collective from the last's.
        const auto [rendezvous, actors] =
            next_group_rendezvous(c.group == CommGroup::ep ? LayerGroup::ep : LayerGroup::etp);
        w_.rendezvous.arrive(rendezvous, actors, [&] { return engine::start_collective(w_.platform, call); });
        if (beside > 0) engine::timer_sleep(beside);
        started = *w_.rendezvous.wait_started(rendezvous);
        w_.rendezvous.leave(rendezvous);
      }
      const CommActivity& collective = *started;
      collective.wait();
      if ((!tp || tp_reuse_) && !beside_gather && !parameter_gather_running() && !beside_gradients &&
          !(w_.options.reduce_symmetry && gradient_traffic_running()))
        w_.duration_cache[key] = collective.duration_s();
    }
    const double end = clock_.now();
    computed += beside;
    (tp ? account().tp_comm : account().ep_comm) += end - start - beside;
    if (c.amax) account().fixed.amax_reductions += end - start - beside;
    record_layer_collective(c, t, start, end, beside);
  }
  return computed;
}

// The duration cache's key of layer collective `c` (StepWorld::duration_cache). Near a slow
// NIC this stage's collectives time apart from the others' (replica_classes.hpp).
std::tuple<int, int, double, int> StageActor::duration_key(const GroupCollective& c) const {
  return std::make_tuple(static_cast<int>(c.group), static_cast<int>(c.op), c.bytes,
                         class_.stage_slow_nic[static_cast<size_t>(stage_)] ? rank_ : -1);
}

const std::vector<int>& StageActor::layer_group(const GroupCollective& c) const {
  return c.group == CommGroup::tp ? tp_group_ : c.group == CommGroup::ep ? ep_group_ : etp_group_;
}

CollectiveCall StageActor::layer_call(const GroupCollective& c) const {
  CollectiveCall call;
  call.op = c.op;
  call.gpus = w_.mapping.gpus_of(layer_group(c));
  call.bytes = c.bytes;
  if (c.group == CommGroup::ep && c.op == CollectiveOp::all_to_all) {
    call.remote_share = ep_remote_share_;
    // DeepEP's and HybridEP's dispatch and combine at their measured rates; the alltoall
    // dispatcher's probabilities' all-to-all is NCCL's (c.tokens false).
    if (c.tokens) call.kernel_Bps = ep_kernel_Bps_;
  }
  return call;
}

// Accounts the bytes of layer collective `c`, run from `start` to `end` with `beside` seconds
// of compute beside it, and reports it.
void StageActor::record_layer_collective(const GroupCollective& c, const PipelineTask& t, double start, double end,
                                         double beside) {
  const bool tp = c.group == CommGroup::tp;
  (tp ? account().tp_bytes : account().ep_bytes) +=
      bus_bytes(c.op, c.bytes, static_cast<int>(layer_group(c).size())) *
      (c.group == CommGroup::ep && c.op == CollectiveOp::all_to_all ? ep_sent_share_ : 1.0);
  account().add_comm_interval(start, end);
  const char* prefix = tp ? "tp_" : c.group == CommGroup::ep ? "ep_" : "etp_";
  ActivityComm comm;
  comm.collectives.push_back({c.op,
                              tp                         ? ActivityGroup::tp
                              : c.group == CommGroup::ep ? ActivityGroup::ep
                                                         : ActivityGroup::etp,
                              GradientScope::whole, c.bytes, 0});
  comm.beside_s = beside;
  observe(tp ? ActivityStream::tp_comm : ActivityStream::dp_comm, prefix + engine::op_name(c.op), &t, start, end,
          c.bytes, 0, std::move(comm));
}

void StageActor::add_flops(const PassCost& pass, bool recomputed) {
  GpuAccount& a = account();
  a.host_wait += pass.host_s;  // once per pass run, as its FLOPs
  a.hardware_flops += pass.executed_flops;
  a.hardware_flops_full += pass.model_flops;
  if (recomputed) return;
  a.model_flops += pass.causal_model_flops;
  a.model_flops_full += pass.model_flops;
}

// One pass: its compute with its layers' collectives between, then its once-per-pass
// collectives. Returns the compute time.
double StageActor::run_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets) {
  const double blocked = account().tp_comm + account().ep_comm;
  start_layer_comm(pass, t);
  const double spent = compute_pass(kind, t, pass, with_buckets);
  double computed = spent + finish_layer_comm(pass, t);
  computed += host_beside_collectives(kind, t, pass, account().tp_comm + account().ep_comm - blocked);
  wait_offload(t, pass);
  return computed;
}

// A pass without a host sync: the host's launches run on while its blocking collectives hold
// the stream (a NCCL kernel is one more kernel in the stream's order; the host does not wait
// for it), so of the GPU's wait for the host (PassCost::hideable_host_s) only what exceeds
// the `blocked_s` the pass spent in them is left: a run of such layers settles to the later
// of the host's time and the GPU's with its collectives. Returns the seconds it adds.
double StageActor::host_beside_collectives(const char* kind, const PipelineTask& t, const PassCost& pass,
                                           double blocked_s) {
  if (!(pass.hideable_host_s > 0)) return 0.0;
  const double left = std::max(0.0, pass.hideable_host_s - blocked_s);
  account().host_wait -= pass.hideable_host_s - left;
  if (!(left > 0)) return 0.0;
  open_record(kind, t, WorkRate{});  // the pass's, its GPU waiting for launches
  const double spent = compute(left);
  close_record();
  return spent;
}

// The copies the pass's compute did not hide (stage_costs.cpp).
void StageActor::wait_offload(const PipelineTask& t, const PassCost& pass) {
  if (pass.offload_s <= 0) return;
  const double start = clock_.now();
  clock_.sleep(pass.offload_s);
  account().offload += pass.offload_s;
  observe(ActivityStream::compute, "offload_wait", &t, start, clock_.now(), pass.offload_bytes, 0);
}

// After a forward pass's compute: its FLOPs, the first forward's parameter gather, its output.
void StageActor::forward_done(const PipelineTask& t, const PassCost& pass) {
  add_flops(pass, false);
  while (param_gather_) {  // what compute_with_gathers did not wait for (a pass not run by compute_pass)
    finish_overlapped_parameter_gather();
    dispatch_parameter_gather();
  }
  send_output(t);
}

void StageActor::run_task(const PipelineTask& t) {
  const ChunkCosts& c = chunk_costs(t);
  if (t.pass == TaskPass::forward) {
    GpuAccount& a = account();
    a.max_inflight_chunks = std::max(a.max_inflight_chunks, ++a.inflight_chunks);
    account().forward += run_pass("forward", t, c.forward, false);
    forward_done(t, c.forward);
    return;
  }
  account().recompute += run_pass("recompute", t, c.recompute, false);
  add_flops(c.recompute, true);
  const bool reduces_here = !w_.schedule.defers_weight_gradients() && reduces_after(t);
  account().backward += run_pass("backward", t, c.backward, reduces_here);
  add_flops(c.backward, false);
  --account().inflight_chunks;
  send_output(t);
}

void StageActor::run_weight(const PipelineTask& t) {
  const ChunkCosts& c = chunk_costs(t);
  account().backward += compute_pass("weight", t, c.weight, reduces_after(t));
  add_flops(c.weight, false);
  account().backward += host_beside_collectives("weight", t, c.weight, 0.0);
}

// parallel.moe_a2a_overlap: whether `t` may run beside a task of the other pass. A backward
// whose gradients are reduced bucket by bucket as it runs (the chunk's last micro-batch)
// runs alone.
bool StageActor::pairable(const PipelineTask& t) const {
  const ParallelSpec& par = w_.scenario.parallel;
  const bool reduces = par.gradient_group() > 1 && par.overlap_grad_reduce && reduces_after(t);
  return t.pass == TaskPass::forward || (t.pass == TaskPass::backward && !reduces);
}

// Pass `pass` of `t` cut as the combined 1F1B plays it (Megatron-Core's
// TransformerLayerSchedulePlan: per layer a forward runs its attention and router, dispatch,
// experts, combine; a backward its combine's gradient, experts, dispatch's gradient,
// attention): per MoE layer the compute before its first token all-to-all, the experts
// between, the rest after (PassCost::moe); the pass's other compute (dense layers, embedding,
// output) first. The forward's first group is the dispatch with the dispatcher's token-count
// all-gather and probabilities' all-to-all, its second the combine; the backward's first the
// combine's gradient, its second the dispatch's with the probabilities'.
StageActor::PairChain StageActor::pair_chain(const char* kind, const PipelineTask& t, const PassCost& pass) const {
  PairChain chain;
  chain.task = &t;
  chain.kind = kind;
  chain.pass = &pass;
  const GroupCollective* tokens = nullptr;
  std::vector<const GroupCollective*> gathers, others;
  for (const GroupCollective& c : pass.collectives) {
    // Once per pass: after the pair (run_pair); TP: on the compute stream, in its pieces.
    if (c.layers == 0 || c.group != CommGroup::ep) continue;
    if (c.tokens) {
      tokens = &c;
    } else {
      (c.op == CollectiveOp::all_gather ? gathers : others).push_back(&c);
    }
  }
  const MoeLayerSplit& m = pass.moe;
  const int layers = tokens != nullptr ? tokens->count / 2 : 0;
  const double moe_s = layers * (m.head_s + m.experts_s + m.tail_s);
  // The host's waits of a sync-free pass stay in a pair's compute (its collectives run beside).
  chain.pieces.push_back(std::max(0.0, pass.compute_s + pass.hideable_host_s - moe_s) + (layers > 0 ? m.head_s : 0.0));
  const bool forward = t.pass == TaskPass::forward;
  const double held = forward || !w_.scenario.parallel.delay_wgrad_compute ? 0.0 : m.experts_wgrad_s;
  chain.held.push_back(0.0);
  std::vector<const GroupCollective*> dispatch = gathers;
  dispatch.push_back(tokens);
  dispatch.insert(dispatch.end(), others.begin(), others.end());
  const std::vector<const GroupCollective*> combine{tokens};
  for (int l = 0; l < layers; ++l) {
    chain.groups.push_back(forward ? dispatch : combine);
    chain.pieces.push_back(m.experts_s);
    chain.held.push_back(held);
    chain.groups.push_back(forward ? combine : dispatch);
    chain.pieces.push_back(m.tail_s + (l + 1 < layers ? m.head_s : 0.0));
    chain.held.push_back(0.0);
  }
  // TP collectives overlapped with GEMMs run those GEMMs beside them (run_collective): the
  // pieces hold the rest of the compute.
  const double unoverlapped = pass.compute_s > 0 ? (pass.compute_s - pass.overlapped_s) / pass.compute_s : 1.0;
  for (std::vector<double>* v : {&chain.pieces, &chain.held})
    for (double& s : *v) s *= unoverlapped;
  // A dropless forward's sync leaves the rest of the pair's layer at the host's pace: the
  // forward's experts wait for it (host_bound_pair.hpp).
  if (forward)
    for (int l = 0; l < layers; ++l) chain.pieces[static_cast<size_t>(1 + 2 * l)] += m.paired_host_s;
  chain.tp = layer_comm(pass, t, false);
  return chain;
}

// parallel.moe_a2a_overlap: `forward` and `backward` (of another micro-batch) as one unit,
// layer by layer, as Megatron-Core's combined 1F1B runs them
// (TransformerLayerSchedulePlan.run, megatron/core/models/common/model_chunk_schedule_plan.py
// @ d98e8a64): the compute stream runs the backward's and the forward's pieces in turn, the
// backward's first (its combine gradient's unpermutation; the forward's attention; the
// backward's experts; the forward's experts; ...), the communication stream their groups of
// collectives in turn, the backward's first. A piece waits for its pass's group before it, a
// group for its pass's piece before it and for the stream's collective before it. Compute
// beside a collective runs at training.overlap_slowdown (NCCL's thread blocks take SMs);
// the compute stream's waits for the collectives are ep_comm. A selective recomputation runs
// before the pair; the passes' once-per-pass collectives and offload waits after it. A
// collective starts when its group's last member asks (ReplicaRendezvous): beside a slower
// peer (variations) the compute stream runs on until it needs it.
void StageActor::run_pair(const PipelineTask& forward, const PipelineTask& backward) {
  const ChunkCosts& fc = chunk_costs(forward);
  const ChunkCosts& bc = chunk_costs(backward);
  GpuAccount& a = account();
  a.max_inflight_chunks = std::max(a.max_inflight_chunks, ++a.inflight_chunks);
  account().recompute += run_pass("recompute", backward, bc.recompute, false);
  add_flops(bc.recompute, true);

  std::array<PairChain, 2> chains{pair_chain("backward", backward, bc.backward),
                                  pair_chain("forward", forward, fc.forward)};
  a.host_wait += fc.forward.moe.paired_host_s * static_cast<double>(chains[1].groups.size() / 2);
  struct CommItem {
    size_t chain, group;
    const GroupCollective* collective;
    bool last;  // of its group
  };
  std::vector<std::pair<size_t, size_t>> pieces;  // (chain, piece), the compute stream's order
  std::vector<CommItem> comms;                    // the communication stream's order
  for (size_t i = 0; i < std::max(chains[0].pieces.size(), chains[1].pieces.size()); ++i)
    for (size_t c = 0; c < 2; ++c) {
      if (i < chains[c].pieces.size()) pieces.emplace_back(c, i);
      if (i < chains[c].groups.size())
        for (const GroupCollective* g : chains[c].groups[i])
          comms.push_back({c, i, g, g == chains[c].groups[i].back()});
    }
  size_t next_piece = 0, next_comm = 0;
  std::optional<CommActivity> running;
  CommItem item{};
  const auto finish = [&] {
    record_layer_collective(*item.collective, *chains[item.chain].task, running->start_s(), running->end_s(), 0.0);
    if (item.last) ++chains[item.chain].groups_done;
    running.reset();
    beside_.clear();
  };
  // With symmetry reduced a collective timed before (alone on its group's actors, not
  // beside the first forward's parameter gather) runs as a timer of its duration, as
  // run_collective reuses it; the others are simulated, and timed for the next.
  bool simulated = false;  // the running collective is simulated (not a timer)
  bool measure = false;    // ... and its duration goes to the cache
  const auto take_started = [&] {
    const CommActivity* started = pair_asked_ ? w_.rendezvous.started(*pair_asked_) : nullptr;
    if (started == nullptr) return;
    running = *started;
    w_.rendezvous.leave(*pair_asked_);
    pair_asked_.reset();
    beside_.push_back(*running);
  };
  const auto advance = [&] {
    take_started();
    if (running && running->done()) {
      if (simulated && measure && !parameter_gather_running())
        w_.duration_cache[duration_key(*item.collective)] = running->duration_s();
      finish();
    }
    if (running || pair_asked_ || next_comm == comms.size() ||
        chains[comms[next_comm].chain].leads_done <= comms[next_comm].group)
      return;
    item = comms[next_comm++];
    const auto cached = w_.duration_cache.find(duration_key(*item.collective));
    const bool beside_gradients = w_.options.reduce_symmetry && gradient_traffic_running();
    simulated = !(w_.options.reduce_symmetry && group_actors_[static_cast<size_t>(LayerGroup::ep)] == 1 &&
                  cached != w_.duration_cache.end() && !beside_gradients);
    if (simulated) {
      // It starts when the group's last member asks; the compute goes on meanwhile.
      measure = !parameter_gather_running() && !beside_gradients;
      const auto [key, actors] = next_group_rendezvous(LayerGroup::ep);
      clock_.settle();
      const CollectiveCall call = layer_call(*item.collective);
      w_.rendezvous.arrive(key, actors, [&] { return engine::start_collective(w_.platform, call); });
      pair_asked_ = key;
      take_started();
      return;
    }
    CommPlan timer;
    timer.phases.resize(1);
    timer.phases[0].latency_s = cached->second;
    running = engine::start_plan(w_.platform, std::move(timer), "ep_timed");
    beside_.push_back(*running);
  };
  beside_done_ = advance;
  while (true) {
    clock_.settle();
    advance();
    if (next_piece < pieces.size() && chains[pieces[next_piece].first].groups_done >= pieces[next_piece].second) {
      PairChain& chain = chains[pieces[next_piece].first];
      const WorkRate rate = work_rate(*chain.pass);
      const size_t piece = pieces[next_piece].second;
      std::swap(layer_comm_, chain.tp);  // its TP collectives play inside its compute
      open_record(chain.kind, *chain.task, rate);
      chain.compute_s += compute(chain.pieces[piece] - chain.held[piece]);
      ++chain.leads_done;
      if (chain.held[piece] > 0) {  // the weight gradients beside the dispatch gradient
        advance();
        chain.compute_s += compute(chain.held[piece]);
      }
      if (piece + 1 == chain.pieces.size())
        while (layer_comm_ && layer_comm_->pending()) chain.compute_s += play_layer_slot();
      close_record();
      std::swap(layer_comm_, chain.tp);
      ++next_piece;
      continue;
    }
    if (running || pair_asked_) {  // the compute stream waits for the collective its next piece needs
      const double asked = clock_.now();
      if (running) {
        running->wait();
      } else {
        w_.rendezvous.wait_started(*pair_asked_);
      }
      account().ep_comm += clock_.now() - asked;
      continue;
    }
    if (next_piece == pieces.size() && next_comm == comms.size()) break;
    throw std::logic_error("combined 1F1B: neither stream of the pair can go on");
  }
  beside_done_ = nullptr;
  account().backward += chains[0].compute_s;
  account().forward += chains[1].compute_s;
  for (const auto& [task, pass] : {std::pair{&forward, &fc.forward}, std::pair{&backward, &bc.backward}}) {
    double computed = 0;
    for (const GroupCollective& c : pass->collectives)
      if (c.layers == 0) computed += run_collective(c, c.count, *task);
    (task == &forward ? account().forward : account().backward) += computed;
    wait_offload(*task, *pass);
  }
  forward_done(forward, fc.forward);
  add_flops(bc.backward, false);
  --account().inflight_chunks;
  send_output(backward);
}

void StageActor::send_output(const PipelineTask& t) {
  const int g = global_chunk(t);
  const int target = t.pass == TaskPass::forward ? g + 1 : g - 1;
  if (target < 0 || target >= chunks()) return;
  const int pp = w_.scenario.parallel.pp;
  const int target_stage = target % pp;
  // Each TP rank sends its 1/t share (Megatron-LM's scatter/gather, Narayanan et al. §4.1).
  const double bytes = w_.costs.activation_bytes / w_.scenario.parallel.tp;
  CommPlan plan;
  plan.phases.resize(1);
  // With replicate_p2p, every replica of this one's class sends at its time.
  const std::vector<int> alone{replica_};
  for (const int r : w_.simulated.replicate_p2p ? class_.members : alone) {
    for (int i = 0; i < (w_.simulated.one_transfer_per_tp_group ? 1 : w_.scenario.parallel.tp); ++i) {
      // TP rank i of replica r's stages.
      const int src = w_.mapping.gpu_of(rank_of(w_.mapping, r, stage_, i));
      const int dst = w_.mapping.gpu_of(rank_of(w_.mapping, r, target_stage, i));
      plan.phases[0].transfers.push_back({src, dst, bytes});
      plan.phases[0].latency_s = std::max(plan.phases[0].latency_s, w_.platform.latency_s(src, dst));
    }
  }
  clock_.settle();
  const CommActivity transfer = engine::start_plan(w_.platform, std::move(plan), "pp");
  w_.board.post({replica_, step_, t.microbatch, g, t.pass}, transfer);
  if (!w_.scenario.parallel.pp_sends_overlap()) {  // the sender waits for its send too
    const double asked = clock_.now();
    transfer.wait();
    account().pp_comm += clock_.now() - asked;
  }
}

// Whether the weight gradients of `t` are reduced as they are produced: the chunk's last
// micro-batch's, or with Megatron FSDP every micro-batch's (its gradient buffer is sharded).
bool StageActor::reduces_after(const PipelineTask& t) const {
  return t.microbatch == w_.costs.microbatches - 1 || w_.scenario.parallel.megatron_fsdp();
}

// A weight-gradient pass whose gradients are reduced bucket by bucket as the pass produces
// them (Megatron-LM's overlapped gradient reduction). `share`: the part of the chunk's
// gradients this call produces (ZeRO-3 and Megatron FSDP run a pass unit by unit). Each
// bucket's part of `seconds`, and of `attention` (the pass's attention with its CP exchange,
// given its share) where set, runs before the bucket is issued: the last bucket's reduction
// starts when the pass has ended (reduction_buckets).
double StageActor::compute_with_buckets(const PipelineTask& t, double seconds, double share,
                                        const std::function<double(double)>& attention) {
  const bool reduce = w_.scenario.parallel.gradient_group() > 1 && w_.scenario.parallel.overlap_grad_reduce;
  if (!reduce) return compute(seconds) + (attention ? attention(1.0) : 0.0);
  const ReductionBuckets b = reduction_buckets(costs_, t.chunk, share, w_.scenario.training.dp_bucket_bytes);
  double spent = 0;
  const auto run = [&](double part) {
    if (part <= 0) return;
    spent += compute(seconds * part);
    if (attention) spent += attention(part);
  };
  for (const ReductionBucket& bucket : b.buckets) {
    run(bucket.compute_share);
    start_reduction(bucket.dense_bytes, bucket.expert_bytes, t.microbatch == w_.costs.microbatches - 1);
    run(bucket.after_share);
  }
  return spent;
}

// Gradient reduction: an all-reduce, or with ZeRO a reduce-scatter that leaves each rank
// its shard (Rajbhandari et al. 2020 §5.1-5.2). Under HSDP the reduce-scatter runs within
// the shard group and its shard is then all-reduced across the shard groups (PyTorch FSDP
// HYBRID_SHARD; Megatron-Core's distributed optimizer instances): one plan, phase after phase;
// the across-shards part only for the step's `last` micro-batch.
//
// Every simulated replica asks for it; it starts when the last one does (ReplicaRendezvous)
// and the stage's reduction before it has ended: the buckets' reductions are issued to one
// communicator, whose collectives NCCL runs one after another on its stream (Megatron-LM
// megatron/core/distributed/param_and_grad_buffer.py @ d98e8a64, start_grad_sync: every
// bucket group's reduce-scatter or all-reduce on the same group, async, drawn as "NCCL
// Stream: --RS-- --AR--"), not side by side sharing the links.
void StageActor::start_reduction(double dense_bytes, double expert_bytes, bool last) {
  const ParallelSpec& par = w_.scenario.parallel;
  const GradientPlanKey key = reduction_key(par, leader_rank_, dense_bytes, expert_bytes, last);
  clock_.settle();
  dp_inflight_.push_back(next_rendezvous());
  w_.rendezvous.arrive(
      dp_inflight_.back(), w_.simulated.replicas(),
      [&] {
        engine::QueuedAfter after;
        if (const auto queued = w_.reduction_queue.find(leader_rank_);
            queued != w_.reduction_queue.end() && !queued->second.done())
          after = queued->second;
        const CommActivity started = start_gradient_plan(key, "dp", after);
        w_.reduction_queue.insert_or_assign(leader_rank_, started);
        return started;
      },
      replica_);
  double bus = bus_bytes(key.op, dense_bytes + expert_bytes, gradient_group_size(key.scope));
  if (key.then_across_shards)
    bus += bus_bytes(CollectiveOp::all_reduce,
                     dense_bytes / par.dense_shard_ranks() + expert_bytes / par.expert_shard_ranks(),
                     gradient_group_size(GradientScope::replicas));
  dp_bytes_.push_back(dense_bytes + expert_bytes);
  dp_keys_.push_back(key);
  account().dp_bytes += bus;
  ++account().dp_reductions;
}

bool StageActor::gathers_updated_parameters() const {
  const ParallelSpec& par = w_.scenario.parallel;
  return par.zero >= 1 && par.zero < 3 && par.gradient_group() > 1;
}

// The key of this step's next gradient-group collective of this stage.
ReplicaRendezvous::Key StageActor::next_rendezvous() {
  return {-1, stage_, step_, rendezvous_index_++};
}

std::pair<ReplicaRendezvous::Key, int> StageActor::next_group_rendezvous(LayerGroup group) {
  const auto g = static_cast<size_t>(group);
  const std::vector<int>& ranks = group == LayerGroup::ep    ? ep_group_
                                  : group == LayerGroup::etp ? etp_group_
                                                             : cp_group_;
  return {{static_cast<int>(g), ranks.front(), step_, group_index_[g]++}, group_actors_[g]};
}

// Starts `call` on this GPU's `group` once for the stage actors it holds (under --full an EP
// group's member replicas would otherwise each run the whole all-to-all): when the last of
// them asks. Returns it once started; waiting for it to start is waiting for the slowest.
CommActivity StageActor::start_group_collective(LayerGroup group, const CollectiveCall& call) {
  const auto [key, actors] = next_group_rendezvous(group);
  clock_.settle();
  w_.rendezvous.arrive(key, actors, [&] { return engine::start_collective(w_.platform, call); });
  const CommActivity c = *w_.rendezvous.wait_started(key);
  w_.rendezvous.leave(key);
  return c;
}

// A reduction (or a pair's collective) this replica asked for that has not started (slower
// replicas have not asked).
std::optional<ReplicaRendezvous::Key> StageActor::awaited_start() const {
  if (pair_asked_ && !w_.rendezvous.started(*pair_asked_)) return pair_asked_;  // its start starts the next (run_pair)
  for (const ReplicaRendezvous::Key& key : dp_inflight_)
    if (!w_.rendezvous.started(key)) return key;
  for (const ReplicaRendezvous::Key& key : unit_gathers_)
    if (!w_.rendezvous.started(key)) return key;
  if (param_gather_ && !w_.rendezvous.started(*param_gather_)) return param_gather_;
  return std::nullopt;
}

// Waits until every collective of `keys` has started; returns the time waited (for the
// slower replicas: their straggler cost to this one), charged to the replica whose ask
// started the last of them.
double StageActor::wait_all_started(const std::vector<ReplicaRendezvous::Key>& keys) {
  clock_.settle();
  const double start = clock_.now();
  for (const ReplicaRendezvous::Key& key : keys) w_.rendezvous.wait_started(key);
  const double waited = clock_.now() - start;
  account().straggler_wait += waited;
  if (waited > 0 && !keys.empty()) {
    const auto last = std::max_element(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
      return w_.rendezvous.started(a)->start_s() < w_.rendezvous.started(b)->start_s();
    });
    account().waited_for[w_.rendezvous.starter(*last)] += waited;
  }
  return waited;
}

// After the update, ZeRO-1/2 all-gather the updated parameters (ZeRO-3 keeps them sharded).
void StageActor::gather_updated_parameters() {
  if (w_.scenario.parallel.overlap_param_gather || !gathers_updated_parameters()) return;
  const double bytes = costs_.dense_weight_bytes + costs_.expert_weight_bytes;
  clock_.settle();
  const double start = clock_.now();
  // Every replica's update ends before its parameters are gathered: the slowest one starts it.
  const ReplicaRendezvous::Key key = next_rendezvous();
  w_.rendezvous.arrive(
      key, w_.simulated.replicas(),
      [&] {
        return start_gradient_plan({leader_rank_, CollectiveOp::all_gather, costs_.dense_weight_bytes,
                                    costs_.expert_weight_bytes, gather_scope(), false},
                                   "zero");
      },
      replica_);
  wait_all_started({key});
  const CommActivity gather = *w_.rendezvous.started(key);
  gather.wait();
  w_.rendezvous.leave(key);
  account().zero_comm += clock_.now() - start;
  account().zero_bytes += bus_bytes(CollectiveOp::all_gather, bytes, gradient_group_size(gather_scope()));
  account().add_comm_interval(gather.start_s(), gather.end_s());
  observe(ActivityStream::dp_comm, "zero_allgather", nullptr, gather.start_s(), gather.end_s(), bytes, 0,
          {group_collectives(CollectiveOp::all_gather, costs_.dense_weight_bytes, costs_.expert_weight_bytes,
                             gather_scope())});
}

// The optimizer step: on the GPU, or with CPU offload on the host after the gradient
// shard went down the host link (and before the parameters come back up it).
double StageActor::run_optimizer() {
  if (w_.scenario.training.offload != Offload::cpu) {
    const double kernels = compute(costs_.optimizer_s);
    // The gradient norm's all-reduce and the host's dispatches after its sync
    // (fixed_costs.hpp): the GPU waits for both.
    const double waits = costs_.grad_norm_allreduce_s + costs_.host_after_norm_s;
    if (waits > 0) clock_.sleep(waits);
    account().fixed.grad_norm_allreduce += costs_.grad_norm_allreduce_s;
    account().fixed.host_after_norm += costs_.host_after_norm_s;
    return kernels + waits;
  }
  const double start = clock_.now();
  const double link_s = costs_.offload_bytes / w_.scenario.cluster.host_link_bandwidth_Bps;
  clock_.sleep(link_s + costs_.host_optimizer_s);
  return clock_.now() - start;
}

void StageActor::finish_step() {
  // Without overlap, the whole stage's gradients are reduced after its last backward.
  if (!w_.scenario.parallel.overlap_grad_reduce && w_.scenario.parallel.gradient_group() > 1)
    start_reduction(costs_.dense_gradient_bytes, costs_.expert_gradient_bytes, true);
  clock_.settle();
  const double start = clock_.now();
  wait_all_started(dp_inflight_);
  for (const ReplicaRendezvous::Key& key : dp_inflight_) w_.rendezvous.started(key)->wait();
  const double waited = clock_.now() - start;
  account().dp_comm += waited;
  for (size_t i = 0; i < dp_inflight_.size(); ++i) {
    const CommActivity a = *w_.rendezvous.started(dp_inflight_[i]);
    w_.rendezvous.leave(dp_inflight_[i]);
    account().add_comm_interval(a.start_s(), a.end_s());
    observe(ActivityStream::dp_comm, "dp_reduce", nullptr, a.start_s(), a.end_s(), dp_bytes_[i], 0,
            {plan_collectives(dp_keys_[i], w_.scenario.parallel)});
  }
  dp_inflight_.clear();
  dp_bytes_.clear();
  dp_keys_.clear();
  const double optimizer_start = clock_.now();
  account().optimizer += run_optimizer();
  observe(ActivityStream::compute, "optimizer", nullptr, optimizer_start, clock_.now(), 0, 0);
  gather_updated_parameters();
  clock_.settle();
  w_.step_end->wait();
  // One actor of the world's records (SimGrid 3.32's Barrier::wait returns 0 to every actor).
  const bool serial = account_ == 0;
  if (serial) w_.step_ends.push_back(clock_.now());
  if (w_.foreground) {
    // A neighbour's actors agree on whether to step again: while the job still steps.
    if (serial)
      w_.another_step = w_.foreground->step_ends.size() < static_cast<size_t>(w_.foreground->scenario.run.steps);
    w_.decided->wait();
  }
  if (w_.options.observer && stage_ == 0 && replica_ == 0)
    w_.options.observer->on_step(step_, step_start_, clock_.now());
}

}  // namespace trainsim
