#include "sim/step/step_simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

#include "models/memory_budget.hpp"
#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/endpoint_selection.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/data_loader.hpp"
#include "sim/step/gpu_account.hpp"
#include "sim/step/gradient_groups.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/lazy_clock.hpp"
#include "sim/step/link_sampler.hpp"
#include "sim/step/simulated_scope.hpp"
#include "sim/step/stage_costs.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

namespace {

namespace sg4 = simgrid::s4u;
using engine::CollectiveCall;
using engine::CollectiveOp;
using engine::CommActivity;
using engine::CommPlan;

// Activity records shorter than this are not reported (observe).
constexpr double k_shortest_record_s = 1e-12;

// A pass's output, identified across the whole simulation.
struct TaskKey {
  int replica = 0;
  int step = 0;
  int microbatch = 0;
  int global_chunk = 0;
  TaskPass pass = TaskPass::forward;
  auto tie() const { return std::tie(replica, step, microbatch, global_chunk, pass); }
  bool operator<(const TaskKey& o) const { return tie() < o.tie(); }
};

// Pipeline transfers between stage actors: the sender posts the transfer it started; the
// receiver waits for the post, then for the transfer.
class TransferBoard {
 public:
  struct Entry {
    double posted_s = 0;
    CommActivity transfer;
  };

  TransferBoard() : mutex_(sg4::Mutex::create()), posted_(sg4::ConditionVariable::create()) {}

  void post(const TaskKey& key, CommActivity transfer) {
    std::unique_lock lock(*mutex_);
    entries_.emplace(key, Entry{sg4::Engine::get_clock(), std::move(transfer)});
    posted_->notify_all();
  }
  bool ready(const TaskKey& key) const {
    const auto it = entries_.find(key);
    return it != entries_.end() && it->second.transfer.done();
  }
  /// Waits for `key` to be posted and takes it off the board (each transfer has one receiver).
  Entry take(const TaskKey& key) {
    std::unique_lock lock(*mutex_);
    auto it = entries_.find(key);
    while (it == entries_.end()) {
      posted_->wait(lock);
      it = entries_.find(key);
    }
    Entry entry = std::move(it->second);
    entries_.erase(it);
    return entry;
  }

 private:
  sg4::MutexPtr mutex_;
  sg4::ConditionVariablePtr posted_;
  std::map<TaskKey, Entry> entries_;
};

// Everything the stage actors share: read-only inputs plus the board, caches and accounts.
struct StepWorld {
  StepWorld(const Scenario& s, const StepOptions& o, const StepCosts& c, const PipelineSchedule& sch,
            const engine::Platform& p, const RankMapping& m, const SimulatedScope& sc, const GradientPlans& g)
      : scenario(s), options(o), costs(c), schedule(sch), platform(p), mapping(m), simulated(sc), gradient_plans(g) {}

  const Scenario& scenario;
  const StepOptions& options;
  const StepCosts& costs;
  const PipelineSchedule& schedule;
  const engine::Platform& platform;
  const RankMapping& mapping;
  const SimulatedScope simulated;
  const GradientPlans& gradient_plans;  ///< prepared together, or empty (every leg runs)
  TransferBoard board;
  std::map<std::tuple<int, int, double>, double> duration_cache;  ///< (group, op, bytes) -> seconds
  sg4::BarrierPtr step_end;
  std::vector<GpuAccount> accounts;  ///< one per stage actor
};

class StageActor {
 public:
  StageActor(StepWorld& world, int stage, int replica, int account)
      : w_(world),
        stage_(stage),
        replica_(replica),
        account_(account),
        rank_(rank_of(world.mapping, replica, stage)),
        tp_group_(world.mapping.group_of(rank_, GroupAxis::tp)),
        ep_group_(world.mapping.group_of(rank_, GroupAxis::ep)),
        etp_group_(world.mapping.group_of(rank_, GroupAxis::etp)),
        cp_group_(world.mapping.group_of(rank_, GroupAxis::cp)),
        costs_(world.costs.stages[static_cast<size_t>(stage)]),
        loader_(world.scenario.training.sample_load_time_s * world.scenario.training.micro_batch,
                world.scenario.training.prefetch),
        clock_(world.options.lazy_sleeps) {}

  void operator()() {
    const int m = w_.costs.microbatches;
    const int pp = w_.scenario.parallel.pp;
    const int v = w_.scenario.parallel.virtual_stages;
    const std::vector<PipelineTask> order = w_.schedule.order(stage_, pp, m, v);
    for (int step = 0; step < w_.scenario.run.steps; ++step) {
      step_ = step;
      step_start_ = clock_.now();
      start_overlapped_parameter_gather();
      std::deque<PipelineTask> deferred;
      for (const PipelineTask& t : order) {
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

 private:
  GpuAccount& account() { return w_.accounts[static_cast<size_t>(account_)]; }

  void observe(ActivityStream stream, std::string kind, const PipelineTask* t, double start, double end, double bytes,
               double flops) {
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
    w_.options.observer->on_activity(r);
  }

  // Runs one pass's compute, accounts it and reports it. ZeRO-3 gathers the pass's
  // parameters unit by unit (forward and backward); context parallelism exchanges K/V
  // blocks during the attention kernels.
  double compute_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets) {
    const bool gathers = w_.scenario.parallel.zero >= 3 && w_.scenario.parallel.gradient_group() > 1 &&
                         costs_.zero3_unit_bytes > 0 && t.pass != TaskPass::weight && std::string(kind) != "recompute";
    // What runs beside overlapped TP collectives runs in run_collective; with context
    // parallelism the attention kernels run beside the K/V exchange.
    const double before_attention =
        pass.compute_s - pass.overlapped_s - (pass.cp_gather_bytes > 0 ? pass.attention_s : 0.0);
    // The pass's FLOPs in proportion to the compute time each record covers.
    const double flops_per_s = pass.compute_s > 0 ? pass.executed_flops / pass.compute_s : 0.0;
    if (gathers) {
      // Each unit's compute is its own record: the gathers waited for lie between them.
      double spent = compute_with_gathers(kind, t, before_attention, with_buckets, flops_per_s);
      if (pass.cp_gather_bytes > 0) {
        open_record(kind, t, flops_per_s);
        spent += compute_attention_with_cp(kind, t, pass, flops_per_s);
        close_record();
      }
      return spent;
    }
    open_record(kind, t, flops_per_s);
    double spent = with_buckets ? compute_with_buckets(t, before_attention, 1.0) : compute(before_attention);
    if (pass.cp_gather_bytes > 0) spent += compute_attention_with_cp(kind, t, pass, flops_per_s);
    close_record();
    return spent;
  }

  // The attention kernels of a pass under context parallelism, with the K/V exchange the
  // scenario's cp_algo makes. Called with a compute record open; leaves one open.
  double compute_attention_with_cp(const char* kind, const PipelineTask& t, const PassCost& pass,
                                   double flops_per_s) {
    if (w_.scenario.parallel.cp_algo == CpAlgo::ring) return compute_with_ring_exchange(t, pass);
    // All-gather CP (Llama 3 §3.3.2): the whole sequence's K and V are gathered before the
    // attention kernels and, in the backward, their gradients reduce-scattered after them;
    // neither overlaps compute. Each stops the compute record.
    close_record();
    exposed_cp_collective(t, CollectiveOp::all_gather, pass.cp_gather_bytes, "cp_allgather");
    open_record(kind, t, flops_per_s);
    const double spent = compute(pass.attention_s);
    if (pass.cp_reduce_bytes > 0) {
      close_record();
      exposed_cp_collective(t, CollectiveOp::reduce_scatter, pass.cp_reduce_bytes, "cp_reducescatter");
      open_record(kind, t, flops_per_s);
    }
    return spent;
  }

  // Starts `op` of `bytes` on this GPU's context-parallel group and accounts its bytes.
  CommActivity start_cp_collective(CollectiveOp op, double bytes) {
    CollectiveCall call;
    call.op = op;
    call.gpus = w_.mapping.gpus_of(cp_group_);
    call.bytes = bytes;
    account().cp_bytes += bus_bytes(op, bytes, static_cast<int>(cp_group_.size()));
    clock_.settle();
    return engine::start_collective(w_.platform, call);
  }

  // A collective on the CP group that the GPU waits for: its whole time is cp_comm.
  void exposed_cp_collective(const PipelineTask& t, CollectiveOp op, double bytes, const char* name) {
    const double asked = clock_.now();
    const CommActivity c = start_cp_collective(op, bytes);
    c.wait();
    account().cp_comm += clock_.now() - asked;
    account().add_comm_interval(c.start_s(), c.end_s());
    observe(ActivityStream::dp_comm, name, &t, c.start_s(), c.end_s(), bytes, 0);
  }

  // A record of compute being run: from `start` to the end of the last compute in it, with
  // flops_per_s x the compute seconds it holds. Closed where a collective interrupts the
  // compute (a layer's TP collectives, a ZeRO-3 gather waited for), so that the trace shows
  // each where it ran.
  struct ComputeRecord {
    std::string kind;
    const PipelineTask* task = nullptr;
    double start_s = 0;
    double end_s = 0;
    double flops_per_s = 0;
    double seconds = 0;  // compute held, unslowed
  };

  void open_record(const char* kind, const PipelineTask& t, double flops_per_s) {
    const double now = clock_.now();
    record_ = ComputeRecord{kind, &t, now, now, flops_per_s, 0};
  }

  void observe_record() {
    observe(ActivityStream::compute, record_->kind, record_->task, record_->start_s, record_->end_s, 0,
            record_->flops_per_s * record_->seconds);
  }

  void close_record() {
    if (!record_) return;
    observe_record();
    record_.reset();
  }

  // ZeRO-3 / FSDP (Rajbhandari et al. 2020 §5.3; PyTorch FSDP): each unit's parameters are
  // all-gathered before it computes, zero3_prefetch units ahead; waiting for one is zero_comm.
  // Each unit's compute is reported as a `kind` record of flops_per_s x its seconds.
  double compute_with_gathers(const char* kind, const PipelineTask& t, double seconds, bool with_buckets,
                              double flops_per_s) {
    const int units = costs_.zero3_units[static_cast<size_t>(t.chunk)];
    const int prefetch = w_.scenario.parallel.zero3_prefetch;
    std::deque<CommActivity> gathers;
    int issued = 0;
    double spent = 0;
    const auto issue_until = [&](int count) {
      for (; issued < std::min(units, count); ++issued) {
        gathers.push_back(
            start_gradient_group_collective(CollectiveOp::all_gather, costs_.zero3_unit_bytes, "zero3", 0, gather_scope()));
        beside_.push_back(gathers.back());  // compute slows while it runs
        account().zero_bytes +=
            bus_bytes(CollectiveOp::all_gather, costs_.zero3_unit_bytes, gradient_group_size(gather_scope()));
      }
    };
    for (int u = 0; u < units; ++u) {
      issue_until(u + 1);  // this unit's, if no earlier prefetch started it
      clock_.settle();
      const double asked = clock_.now();
      gathers.front().wait();
      account().zero_comm += clock_.now() - asked;
      account().add_comm_interval(gathers.front().start_s(), gathers.front().end_s());
      observe(ActivityStream::dp_comm, "zero3_allgather", &t, gathers.front().start_s(), gathers.front().end_s(),
              costs_.zero3_unit_bytes, 0);
      gathers.pop_front();
      issue_until(u + 1 + prefetch);  // while this unit computes, the next ones are gathered
      open_record(kind, t, flops_per_s);
      spent += with_buckets ? compute_with_buckets(t, seconds / units, 1.0 / units) : compute(seconds / units);
      close_record();
    }
    beside_.clear();
    return spent;
  }

  // Ring attention (Liu et al. 2023): the K/V blocks of the other context-parallel ranks
  // arrive while the attention kernels run; what they do not hide is cp_comm.
  double compute_with_ring_exchange(const PipelineTask& t, const PassCost& pass) {
    const CommActivity exchange = start_cp_collective(CollectiveOp::all_gather, pass.cp_gather_bytes);
    beside_.push_back(exchange);
    double spent = compute(pass.attention_s);
    beside_.clear();
    clock_.settle();
    const double asked = clock_.now();
    exchange.wait();
    const double exposed = clock_.now() - asked;
    account().cp_comm += exposed;
    account().add_comm_interval(exchange.start_s(), exchange.end_s());
    observe(ActivityStream::dp_comm, "cp_ring_exchange", &t, exchange.start_s(), exchange.end_s(), pass.cp_gather_bytes, 0);
    return spent;
  }

  static double bus_bytes(CollectiveOp op, double bytes, int ranks) {
    return ranks > 1 ? bytes * engine::bus_bandwidth_factor(op, ranks) : 0.0;
  }
  int gradient_group_size(GradientScope scope = GradientScope::whole) const {
    return static_cast<int>(gradient_group(w_.mapping, w_.scenario.parallel, rank_, false, scope).size());
  }
  GradientScope gather_scope() const { return trainsim::gather_scope(w_.scenario.parallel); }

  GradientGroups gradient_groups() const {
    return {w_.mapping, w_.scenario.parallel, w_.simulated.one_transfer_per_tp_group};
  }

  // Starts the gradient-group plan of `key`: as prepared with the step's others, or with
  // every leg (GradientPlans).
  CommActivity start_gradient_plan(const GradientPlanKey& key, const std::string& name) {
    clock_.settle();
    if (auto prepared = w_.gradient_plans.find(key)) return engine::start_prepared_plan(w_.platform, prepared, name);
    return engine::start_plan(w_.platform, gradient_plan(key, gradient_groups(), w_.platform), name);
  }

  // A collective of `bytes` on `scope` of the gradient (dp x cp) group of every simulated TP
  // member (and `expert_bytes` on the expert groups).
  CommActivity start_gradient_group_collective(CollectiveOp op, double bytes, const std::string& name,
                                               double expert_bytes = 0, GradientScope scope = GradientScope::whole) {
    return start_gradient_plan({rank_, op, bytes, expert_bytes, scope, false}, name);
  }

  int chunks() const { return w_.scenario.parallel.pp * w_.scenario.parallel.virtual_stages; }
  int global_chunk(const PipelineTask& t) const { return t.chunk * w_.scenario.parallel.pp + stage_; }
  const ChunkCosts& chunk_costs(const PipelineTask& t) const { return costs_.chunks[static_cast<size_t>(t.chunk)]; }

  // The pass whose output `t` consumes, if it comes from another stage.
  std::optional<TaskKey> input_of(const PipelineTask& t) const {
    const int g = global_chunk(t);
    if (t.pass == TaskPass::forward && g > 0) return TaskKey{replica_, step_, t.microbatch, g - 1, TaskPass::forward};
    if (t.pass == TaskPass::backward && g < chunks() - 1)
      return TaskKey{replica_, step_, t.microbatch, g + 1, TaskPass::backward};
    return std::nullopt;
  }

  bool inputs_ready(const PipelineTask& t) const {
    const auto key = input_of(t);
    return !key || w_.board.ready(*key);
  }

  void wait_inputs(const PipelineTask& t) {
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
    observe(ActivityStream::pp_comm, "pp_transfer", &t, entry.transfer.start_s(), entry.transfer.end_s(),
            w_.costs.activation_bytes / w_.scenario.parallel.tp, 0);
    account().pp_bytes += w_.costs.activation_bytes / w_.scenario.parallel.tp;
  }

  void wait_data(const PipelineTask& t) {
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

  bool parameter_gather_running() const { return param_gather_ && !param_gather_->done(); }

  // A communication of this GPU's still in flight beside its compute, if any.
  const CommActivity* running_beside() const {
    for (const std::vector<CommActivity>* list : {&dp_inflight_, &beside_})
      for (const CommActivity& a : *list)
        if (!a.done()) return &a;
    if (param_gather_ && !param_gather_->done()) return &*param_gather_;
    return nullptr;
  }

  // Runs `seconds` of compute, slowed by overlap_slowdown for as long as a communication of
  // this GPU runs beside it (gradient reductions, ZeRO-3 gathers, ring attention's K/V
  // exchange, overlapped TP collectives: NCCL's and userbuffers' thread blocks take SMs and
  // memory bandwidth from the kernels). Returns the time it took.
  double compute_slowed(double seconds) {
    const double start = clock_.now();
    const double slowdown = 1.0 + w_.scenario.training.overlap_slowdown;
    double remaining = seconds;  // compute left, in unslowed seconds
    while (remaining > 0) {
      // Nothing of this GPU's runs beside it while sleeps are pending (starting one settles).
      const CommActivity* running = running_beside();
      if (running == nullptr) {
        clock_.sleep(remaining);
        break;
      }
      clock_.settle();
      const double before = sg4::Engine::get_clock();
      running->wait_for(remaining * slowdown);
      const double elapsed = sg4::Engine::get_clock() - before;
      if (elapsed <= 0 && !running->done()) {  // too short for the clock to advance
        sg4::this_actor::sleep_for(remaining * slowdown);
        break;
      }
      remaining -= elapsed / slowdown;
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
  double compute(double seconds) {
    double spent = 0;
    while (layer_comm_ && layer_comm_->pending() && seconds >= layer_comm_->until_next) {
      const double piece = layer_comm_->until_next;
      spent += compute_slowed(piece);
      seconds -= piece;
      spent += play_layer_slot();
    }
    if (layer_comm_ && layer_comm_->pending()) layer_comm_->until_next -= seconds;
    return spent + compute_slowed(seconds);
  }

  // A pass's per-layer collectives (GroupCollective::layers), played between its layers'
  // compute as Megatron-LM issues them: each layer's TP all-reduces after its attention and
  // its MLP (Narayanan et al. SC21 §3.2, Fig. 5's g operators; with sequence parallelism an
  // all-gather and a reduce-scatter each, Korthikanti et al. §4.2.2), MoE's dispatch and
  // combine around its experts. One layer's sequence takes each collective's share in turn;
  // the slots are spread evenly over the pass's compute, each after its share of it.
  struct LayerComm {
    const PipelineTask* task = nullptr;
    std::vector<const GroupCollective*> sequence;  ///< the pass's layer collectives, in order
    size_t next = 0;                                ///< the next slot to play
    double slot_s = 0;                              ///< compute seconds before each slot
    double until_next = 0;                          ///< compute seconds left before the next

    bool pending() const { return next < sequence.size(); }
  };

  // Layer by layer, each of its collectives' count / layers in turn (layer l has those whose
  // `layers` exceed l); what does not divide is played after the compute (finish_layer_comm).
  void start_layer_comm(const PassCost& pass, const PipelineTask& t) {
    layer_comm_.reset();
    int layers = 0, rounds = 0;
    for (const GroupCollective& c : pass.collectives)
      if (c.layers > 0) {
        layers = std::max(layers, c.layers);
        rounds = std::max(rounds, c.count / c.layers);
      }
    LayerComm l;
    l.task = &t;
    for (int layer = 0; layer < layers; ++layer)
      for (int r = 0; r < rounds; ++r)
        for (const GroupCollective& c : pass.collectives)
          if (layer < c.layers && r < c.count / c.layers) l.sequence.push_back(&c);
    if (l.sequence.empty()) return;
    l.slot_s = (pass.compute_s - pass.overlapped_s) / static_cast<double>(l.sequence.size());
    l.until_next = l.slot_s;
    layer_comm_ = std::move(l);
  }

  // Plays the next slot's collective; the open compute record is reported up to it and
  // goes on after it. Returns the compute run beside it.
  double play_layer_slot() {
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
  double finish_layer_comm(const PassCost& pass, const PipelineTask& t) {
    double computed = 0;
    while (layer_comm_ && layer_comm_->pending()) computed += play_layer_slot();
    layer_comm_.reset();
    for (const GroupCollective& c : pass.collectives)
      computed += run_collective(c, c.layers > 0 ? c.count % c.layers : c.count, t);
    return computed;
  }

  // The GEMM a TP collective is pipelined with, `overlap_s` alone: it runs slower by the
  // GPU's tp_overlap_slowdown for its whole duration (userbuffers reserve SMs for the
  // collective's chunks from the GEMM's start to its end). Returns the seconds it takes.
  double overlapped_gemm_s(double overlap_s) const {
    return overlap_s * (1.0 + w_.scenario.cluster.gpu.tp_overlap_slowdown);
  }

  // `times` of collective `c`: TP on the tensor-parallel group, MoE all-to-alls on the
  // expert-parallel group, the folded experts' gathers on the expert-tensor-parallel group;
  // blocking, or beside the compute they overlap (tp_comm_overlap). With symmetry reduced,
  // each distinct one is simulated once. Returns the seconds of compute run beside them (part
  // of the pass's compute).
  double run_collective(const GroupCollective& c, int times, const PipelineTask& t) {
    double computed = 0;
    const bool tp = c.group == CommGroup::tp;
    const std::vector<int>& group = tp ? tp_group_ : c.group == CommGroup::ep ? ep_group_ : etp_group_;
    for (int i = 0; i < times; ++i) {
      const double start = clock_.now();
      const auto key = std::make_tuple(static_cast<int>(c.group), static_cast<int>(c.op), c.bytes);
      const auto cached = w_.duration_cache.find(key);
      const double beside = c.overlap_s > 0 ? overlapped_gemm_s(c.overlap_s) : 0.0;  // compute beside it
      if (w_.options.reduce_symmetry && cached != w_.duration_cache.end()) {
        clock_.sleep(std::max(beside, cached->second));
      } else {
        CollectiveCall call;
        call.op = c.op;
        call.gpus = w_.mapping.gpus_of(group);
        call.bytes = c.bytes;
        // A duration measured beside the overlapped parameter all-gather (the first forward
        // pass's only) is that moment's, not the collective's: it is not reused for the
        // later micro-batches. (Gradient reductions run beside most of every backward; a
        // collective measured beside one stays cached, as before.)
        clock_.settle();
        const bool beside_gather = parameter_gather_running();
        const CommActivity collective = engine::start_collective(w_.platform, call);
        if (beside > 0) sg4::this_actor::sleep_for(beside);
        collective.wait();
        if (!beside_gather && !parameter_gather_running()) w_.duration_cache[key] = collective.duration_s();
      }
      const double end = clock_.now();
      computed += beside;
      (tp ? account().tp_comm : account().ep_comm) += end - start - beside;
      (tp ? account().tp_bytes : account().ep_bytes) += bus_bytes(c.op, c.bytes, static_cast<int>(group.size()));
      account().add_comm_interval(start, end);
      const char* prefix = tp ? "tp_" : c.group == CommGroup::ep ? "ep_" : "etp_";
      observe(tp ? ActivityStream::tp_comm : ActivityStream::dp_comm, prefix + engine::op_name(c.op), &t, start, end,
              c.bytes, 0);
    }
    return computed;
  }

  void add_flops(const PassCost& pass, bool recomputed) {
    GpuAccount& a = account();
    a.hardware_flops += pass.executed_flops;
    a.hardware_flops_full += pass.model_flops;
    if (recomputed) return;
    a.model_flops += pass.causal_model_flops;
    a.model_flops_full += pass.model_flops;
  }

  // One pass: its compute with its layers' collectives between, then its once-per-pass
  // collectives. Returns the compute time.
  double run_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets) {
    start_layer_comm(pass, t);
    const double spent = compute_pass(kind, t, pass, with_buckets);
    return spent + finish_layer_comm(pass, t);
  }

  void run_task(const PipelineTask& t) {
    const ChunkCosts& c = chunk_costs(t);
    if (t.pass == TaskPass::forward) {
      GpuAccount& a = account();
      a.max_inflight_chunks = std::max(a.max_inflight_chunks, ++a.inflight_chunks);
      account().forward += run_pass("forward", t, c.forward, false);
      add_flops(c.forward, false);
      finish_overlapped_parameter_gather();
      send_output(t);
      return;
    }
    account().recompute += run_pass("recompute", t, c.recompute, false);
    add_flops(c.recompute, true);
    const bool reduces_here = !w_.schedule.defers_weight_gradients() && t.microbatch == w_.costs.microbatches - 1;
    account().backward += run_pass("backward", t, c.backward, reduces_here);
    add_flops(c.backward, false);
    --account().inflight_chunks;
    send_output(t);
  }

  void run_weight(const PipelineTask& t) {
    const ChunkCosts& c = chunk_costs(t);
    const bool reduces_here = t.microbatch == w_.costs.microbatches - 1;
    account().backward += compute_pass("weight", t, c.weight, reduces_here);
    add_flops(c.weight, false);
  }

  void send_output(const PipelineTask& t) {
    const int g = global_chunk(t);
    const int target = t.pass == TaskPass::forward ? g + 1 : g - 1;
    if (target < 0 || target >= chunks()) return;
    const int pp = w_.scenario.parallel.pp;
    const int target_stage = target % pp;
    // Each TP rank sends its 1/t share (Megatron-LM's scatter/gather, Narayanan et al. §4.1).
    const double bytes = w_.costs.activation_bytes / w_.scenario.parallel.tp;
    CommPlan plan;
    plan.phases.resize(1);
    const int first = w_.simulated.replicate_p2p ? 0 : replica_;
    const int last = w_.simulated.replicate_p2p ? w_.scenario.parallel.dp * w_.scenario.parallel.cp : replica_ + 1;
    for (int r = first; r < last; ++r) {
      const std::vector<int> from = w_.mapping.group_of(rank_of(w_.mapping, r, stage_), GroupAxis::tp);
      const std::vector<int> to = w_.mapping.group_of(rank_of(w_.mapping, r, target_stage), GroupAxis::tp);
      for (size_t i = 0; i < (w_.simulated.one_transfer_per_tp_group ? 1 : from.size()); ++i) {
        const int src = w_.mapping.gpu_of(from[i]);
        const int dst = w_.mapping.gpu_of(to[i]);
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

  // The chunk's last weight-gradient pass: its gradients are reduced bucket by bucket as
  // the pass produces them (Megatron-LM's overlapped gradient reduction). `share`: the part
  // of the chunk's gradients this call produces (ZeRO-3 runs a pass unit by unit).
  double compute_with_buckets(const PipelineTask& t, double seconds, double share) {
    const bool reduce = w_.scenario.parallel.gradient_group() > 1 && w_.scenario.parallel.overlap_grad_reduce &&
                        (replica_ == 0 || !w_.options.reduce_symmetry);
    if (!reduce) return compute(seconds);
    const ReductionBuckets b = reduction_buckets(costs_, t.chunk, share, w_.scenario.training.dp_bucket_bytes);
    double spent = 0;
    for (int i = 0; i < b.buckets; ++i) {
      spent += compute(seconds / b.buckets);
      // Only replica 0 starts the reductions: they are collective over every replica.
      if (replica_ == 0) start_reduction(b.dense_bytes, b.expert_bytes);
    }
    return spent;
  }

  // Gradient reduction: an all-reduce, or with ZeRO a reduce-scatter that leaves each rank
  // its shard (Rajbhandari et al. 2020 §5.1-5.2). Under HSDP the reduce-scatter runs within
  // the shard group and its shard is then all-reduced across the shard groups (PyTorch FSDP
  // HYBRID_SHARD; Megatron-Core's distributed optimizer instances): one plan, phase after phase.
  void start_reduction(double dense_bytes, double expert_bytes) {
    const ParallelSpec& par = w_.scenario.parallel;
    const GradientPlanKey key = reduction_key(par, rank_, dense_bytes, expert_bytes);
    dp_inflight_.push_back(start_gradient_plan(key, "dp"));
    double bus = bus_bytes(key.op, dense_bytes + expert_bytes, gradient_group_size(key.scope));
    if (key.then_across_shards)
      bus += bus_bytes(CollectiveOp::all_reduce,
                       dense_bytes / par.dense_shard_ranks() + expert_bytes / par.expert_shard_ranks(),
                       gradient_group_size(GradientScope::replicas));
    dp_bytes_.push_back(dense_bytes + expert_bytes);
    account().dp_bytes += bus;
    ++account().dp_reductions;
  }

  bool gathers_updated_parameters() const {
    const ParallelSpec& par = w_.scenario.parallel;
    return par.zero >= 1 && par.zero < 3 && par.gradient_group() > 1 && replica_ == 0;
  }

  // overlap_param_gather: the all-gather of the last update's parameters runs beside this
  // step's first forward pass, which waits for it at its end (Megatron-Core issues the
  // buckets' gathers at the start of the forward and each layer waits for its own: the
  // first forward pass needs them all). One step in the steady state: the gather the
  // previous step's update left.
  void start_overlapped_parameter_gather() {
    if (!w_.scenario.parallel.overlap_param_gather || !gathers_updated_parameters()) return;
    param_gather_ = start_gradient_group_collective(CollectiveOp::all_gather, costs_.dense_weight_bytes, "zero",
                                                    costs_.expert_weight_bytes, gather_scope());
    account().zero_bytes += bus_bytes(CollectiveOp::all_gather,
                                      costs_.dense_weight_bytes + costs_.expert_weight_bytes,
                                      gradient_group_size(gather_scope()));
  }

  void finish_overlapped_parameter_gather() {
    if (!param_gather_) return;
    clock_.settle();
    const double asked = clock_.now();
    param_gather_->wait();
    account().zero_comm += clock_.now() - asked;
    account().add_comm_interval(param_gather_->start_s(), param_gather_->end_s());
    observe(ActivityStream::dp_comm, "zero_allgather", nullptr, param_gather_->start_s(), param_gather_->end_s(),
            costs_.dense_weight_bytes + costs_.expert_weight_bytes, 0);
    param_gather_.reset();
  }

  // After the update, ZeRO-1/2 all-gather the updated parameters (ZeRO-3 keeps them sharded).
  void gather_updated_parameters() {
    if (w_.scenario.parallel.overlap_param_gather || !gathers_updated_parameters()) return;
    const double bytes = costs_.dense_weight_bytes + costs_.expert_weight_bytes;
    clock_.settle();
    const double start = clock_.now();
    const CommActivity gather = start_gradient_group_collective(CollectiveOp::all_gather, costs_.dense_weight_bytes,
                                                                "zero", costs_.expert_weight_bytes, gather_scope());
    gather.wait();
    account().zero_comm += clock_.now() - start;
    account().zero_bytes += bus_bytes(CollectiveOp::all_gather, bytes, gradient_group_size(gather_scope()));
    account().add_comm_interval(gather.start_s(), gather.end_s());
    observe(ActivityStream::dp_comm, "zero_allgather", nullptr, gather.start_s(), gather.end_s(), bytes, 0);
  }

  // The optimizer step: on the GPU, or with CPU offload on the host after the gradient
  // shard went down the host link (and before the parameters come back up it).
  double run_optimizer() {
    if (w_.scenario.training.offload != Offload::cpu) return compute(costs_.optimizer_s);
    const double start = clock_.now();
    const double link_s = costs_.offload_bytes / w_.scenario.cluster.host_link_bandwidth_Bps;
    clock_.sleep(link_s + costs_.host_optimizer_s);
    return clock_.now() - start;
  }

  void finish_step() {
    // Without overlap, the whole stage's gradients are reduced after its last backward.
    if (!w_.scenario.parallel.overlap_grad_reduce && w_.scenario.parallel.gradient_group() > 1 && replica_ == 0)
      start_reduction(costs_.dense_gradient_bytes, costs_.expert_gradient_bytes);
    clock_.settle();
    const double start = clock_.now();
    for (const CommActivity& a : dp_inflight_) a.wait();
    const double waited = clock_.now() - start;
    account().dp_comm += waited;
    for (size_t i = 0; i < dp_inflight_.size(); ++i) {
      const CommActivity& a = dp_inflight_[i];
      account().add_comm_interval(a.start_s(), a.end_s());
      observe(ActivityStream::dp_comm, "dp_reduce", nullptr, a.start_s(), a.end_s(), dp_bytes_[i], 0);
    }
    dp_inflight_.clear();
    dp_bytes_.clear();
    const double optimizer_start = clock_.now();
    account().optimizer += run_optimizer();
    observe(ActivityStream::compute, "optimizer", nullptr, optimizer_start, clock_.now(), 0, 0);
    gather_updated_parameters();
    clock_.settle();
    w_.step_end->wait();
    if (w_.options.observer && stage_ == 0 && replica_ == 0)
      w_.options.observer->on_step(step_, step_start_, clock_.now());
  }

  StepWorld& w_;
  int stage_;
  int replica_;
  int account_;
  int rank_;
  std::vector<int> tp_group_;
  std::vector<int> ep_group_;
  std::vector<int> etp_group_;
  std::vector<int> cp_group_;
  const StageCosts& costs_;
  DataLoader loader_;
  int step_ = 0;
  double step_start_ = 0;
  std::vector<CommActivity> dp_inflight_;
  std::vector<CommActivity> beside_;  ///< other communication running beside this GPU's compute
  std::optional<LayerComm> layer_comm_;  ///< the running pass's per-layer collectives, if any
  std::optional<ComputeRecord> record_;  ///< the compute record open, if any
  LazyClock clock_;                      ///< this actor's time, its sleeps run lazily
  std::optional<CommActivity> param_gather_;  ///< overlap_param_gather: the step's parameter all-gather
  std::vector<double> dp_bytes_;  ///< bytes per GPU of each reduction in dp_inflight_
};

StepResult summarize(const Scenario& s, const StepWorld& world, const std::vector<int>& gpus_per_account,
                     double end_s) {
  const int steps = s.run.steps;
  const double step_time = end_s / steps;
  StepResult r;
  r.steps = steps;
  r.step_time_s = step_time;
  r.gpus = s.cluster.total_gpus();
  r.global_batch_samples = static_cast<double>(s.training.micro_batch) * s.training.grad_accum * s.parallel.dp;
  r.tokens_per_step = r.global_batch_samples * s.model.seq_len;
  r.tokens_per_s = r.tokens_per_step / step_time;
  r.tokens_per_s_per_gpu = r.tokens_per_s / r.gpus;

  double weight_sum = 0, model_flops = 0, hardware_flops = 0, model_flops_full = 0, hardware_flops_full = 0;
  double comm_union = 0, energy = 0;
  const GpuSpec& gpu = s.cluster.gpu;
  for (size_t i = 0; i < world.accounts.size(); ++i) {
    const GpuAccount& a = world.accounts[i];
    const double gpus = gpus_per_account[i];
    weight_sum += gpus;
    StepBreakdown& b = r.breakdown_s;
    b.data += gpus * a.data;
    b.forward += gpus * a.forward;
    b.backward += gpus * a.backward;
    b.recompute += gpus * a.recompute;
    b.optimizer += gpus * a.optimizer;
    b.tp_comm += gpus * a.tp_comm;
    b.pp_comm += gpus * a.pp_comm;
    b.dp_comm += gpus * a.dp_comm;
    b.zero_comm += gpus * a.zero_comm;
    b.ep_comm += gpus * a.ep_comm;
    b.cp_comm += gpus * a.cp_comm;
    CommBytes& cb = r.comm_bytes_per_gpu;
    cb.tp += gpus * a.tp_bytes;
    cb.pp += gpus * a.pp_bytes;
    cb.dp += gpus * a.dp_bytes;
    cb.zero += gpus * a.zero_bytes;
    cb.ep += gpus * a.ep_bytes;
    cb.cp += gpus * a.cp_bytes;
    model_flops += gpus * a.model_flops;
    hardware_flops += gpus * a.hardware_flops;
    model_flops_full += gpus * a.model_flops_full;
    hardware_flops_full += gpus * a.hardware_flops_full;
    comm_union += gpus * a.comm_time(end_s);
    const double busy = a.forward + a.backward + a.recompute + a.optimizer;
    const double exposed = a.tp_comm + a.pp_comm + a.dp_comm + a.zero_comm + a.ep_comm + a.cp_comm;
    energy += gpus * (busy * gpu.tdp_w + exposed * gpu.comm_power_w + (end_s - busy - exposed) * gpu.idle_power_w);
    r.dp_reductions = std::max(r.dp_reductions, a.dp_reductions / steps);
    if (i < static_cast<size_t>(s.parallel.pp))
      r.inflight_microbatches.push_back(static_cast<double>(a.max_inflight_chunks) / s.parallel.virtual_stages);
  }
  StepBreakdown& b = r.breakdown_s;
  for (double* v : {&b.data, &b.forward, &b.backward, &b.recompute, &b.optimizer, &b.tp_comm, &b.pp_comm, &b.dp_comm,
                    &b.zero_comm, &b.ep_comm, &b.cp_comm})
    *v /= weight_sum * steps;
  CommBytes& cb = r.comm_bytes_per_gpu;
  for (double* v : {&cb.tp, &cb.pp, &cb.dp, &cb.zero, &cb.ep, &cb.cp}) *v /= weight_sum * steps;
  b.idle = std::max(0.0, step_time - b.total());
  const double peak = gpu.peak_flops(s.training.precision);
  const auto per_gpu_tflops = [&](double flops) { return flops / steps / step_time / r.gpus / 1e12; };
  r.model_tflops_per_gpu = per_gpu_tflops(model_flops);
  r.hardware_tflops_per_gpu = per_gpu_tflops(hardware_flops);
  r.mfu = r.model_tflops_per_gpu * 1e12 / peak;
  r.hfu = r.hardware_tflops_per_gpu * 1e12 / peak;
  r.model_tflops_per_gpu_full_attention = per_gpu_tflops(model_flops_full);
  r.hardware_tflops_per_gpu_full_attention = per_gpu_tflops(hardware_flops_full);
  r.mfu_full_attention = r.model_tflops_per_gpu_full_attention * 1e12 / peak;
  r.bubble_fraction = b.idle / step_time;
  r.collective_fraction = comm_union / weight_sum / end_s;
  r.exposed_comm_fraction = (b.tp_comm + b.pp_comm + b.dp_comm + b.zero_comm + b.ep_comm + b.cp_comm) / step_time;
  r.energy_per_step_j = energy / steps;
  r.energy_per_token_j = r.energy_per_step_j / r.tokens_per_step;
  r.avg_power_w = r.energy_per_step_j / step_time;
  r.peak_memory_bytes =
      estimate_memory(s.model, s.training, s.parallel, s.gpu_memory_bytes()).peak_stage().bytes.total();
  return r;
}

}  // namespace

StepResult simulate_step(const Scenario& s, const ComputeModel& compute, const StepOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  const auto schedule = make_pipeline_schedule(s.parallel.schedule, s.parallel.microbatch_group);
  const StepCosts costs = build_step_costs(s, compute, schedule->defers_weight_gradients());
  engine::Simulation simulation;
  const RankMapping mapping(s.parallel, s.cluster);
  const SimulatedScope scope = simulated_scope(s, options);
  // Link samples average over every link of a class: those need the whole platform.
  const bool samples_links = options.observer && options.observer->wants_link_samples();
  const bool sparse = options.sparse_platform && options.reduce_symmetry && !samples_links;
  // The gradient-group plans leave out their redundant legs together (gradient_plans.hpp)
  // when replica 0 alone starts them; planned before the platform exists, which then builds
  // only the endpoints of the legs they keep.
  GradientPlans gradient_plans;
  std::vector<bool> gradient_endpoints;
  if (options.reduce_gradient_legs && options.reduce_symmetry && !samples_links) {
    const engine::Platform planning = engine::Platform::without_simgrid(s.cluster);
    gradient_plans = GradientPlans(planning, gradient_plan_keys(s, mapping, costs),
                                   {mapping, s.parallel, scope.one_transfer_per_tp_group},
                                   foreign_links(s, mapping, scope, planning), &gradient_endpoints);
  }
  const engine::Platform platform(
      s.cluster, sparse ? touched_endpoints(s, mapping, scope, gradient_plans.empty() ? nullptr : &gradient_endpoints)
                        : std::vector<bool>{});

  const int all_replicas = s.parallel.dp * s.parallel.cp;
  StepWorld world{s, options, costs, *schedule, platform, mapping, scope, gradient_plans};
  const int actors = scope.replicas * s.parallel.pp;
  world.step_end = sg4::Barrier::create(static_cast<unsigned>(actors));
  world.accounts.resize(static_cast<size_t>(actors));
  std::vector<int> gpus_per_account(static_cast<size_t>(actors),
                                    s.parallel.tp * (options.reduce_symmetry ? all_replicas : 1));

  int account = 0;
  for (int replica = 0; replica < scope.replicas; ++replica) {
    for (int stage = 0; stage < s.parallel.pp; ++stage) {
      const int gpu = mapping.gpu_of(rank_of(mapping, replica, stage));
      sg4::Actor::create("stage" + std::to_string(stage) + ".r" + std::to_string(replica), platform.host(gpu),
                         StageActor(world, stage, replica, account++));
    }
  }
  // Link utilization for traces: 200 samples over the step's compute (a lower bound of the
  // step time, so the samples cover the step at least that densely), capped at 0.1 ms apart.
  std::optional<LinkSampler> sampler;
  if (samples_links) {
    double compute_s = 0;
    for (const StageCosts& st : costs.stages)
      for (const ChunkCosts& c : st.chunks)
        compute_s = std::max(compute_s, costs.microbatches * (c.forward.compute_s + c.backward.compute_s));
    sampler.emplace(std::max(compute_s * s.run.steps / 200.0, 1e-4), 8);
    sampler->start(platform.host(0));
  }
  simulation.run();
  if (sampler) options.observer->on_link_samples(sampler->samples());
  StepResult r = summarize(s, world, gpus_per_account, simulation.clock_s());
  r.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

}  // namespace trainsim
