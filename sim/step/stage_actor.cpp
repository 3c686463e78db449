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

StageActor::StageActor(StepWorld& world, int stage, int replica_class, int account)
    : s_(world, stage, replica_class, account),
      layers_(s_, *this),
      compute_(s_, layers_, *this),
      reduction_(s_, compute_),
      gathers_(s_, compute_, reduction_),
      loader_(world.scenario.training.sample_load_time_s * world.scenario.training.micro_batch,
              world.scenario.training.prefetch) {}

void StageActor::operator()() {
  const int m = s_.w.costs.microbatches;
  const int pp = s_.w.scenario.parallel.pp;
  const int v = s_.w.scenario.parallel.virtual_stages;
  const std::vector<PipelineTask> order = s_.w.schedule.order(s_.stage, pp, m, v);
  const std::vector<ScheduledUnit> units =
      combined_units(order, [&](const PipelineTask& t) { return s_.w.scenario.parallel.moe_a2a_overlap && pairable(t); });
  // The job plays run.steps steps; a neighbour beside it steps until the job is done.
  for (int step = 0; s_.w.foreground ? step == 0 || s_.w.another_step : step < s_.w.scenario.run.steps; ++step) {
    s_.step = step;
    s_.step_start = s_.clock.now();
    s_.rendezvous_index = 0;
    layers_.new_step();
    gathers_.start_step();
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
      if (s_.w.schedule.defers_weight_gradients()) {
        const auto ready = [&] {
          s_.clock.settle();  // a transfer's state is read at the engine's clock
          return inputs_ready(t);
        };
        while (!deferred.empty() && !ready()) {
          run_weight(deferred.front());
          deferred.pop_front();
        }
      }
      wait_inputs(t);
      run_task(t);
      if (t.pass == TaskPass::backward && s_.w.schedule.defers_weight_gradients())
        deferred.push_back({t.microbatch, t.chunk, TaskPass::weight});
    }
    for (const PipelineTask& t : deferred) run_weight(t);
    finish_step();
  }
}

// Runs one pass's compute, accounts it and reports it. ZeRO-3 gathers the pass's
// parameters unit by unit (forward and backward), and Megatron FSDP reduces a backward's
// gradients unit by unit; context parallelism exchanges K/V blocks during the attention
// kernels.
double StageActor::compute_pass(const char* kind, const PipelineTask& t, const PassCost& pass, bool with_buckets) {
  const ParallelSpec& par = s_.w.scenario.parallel;
  const bool gathers = par.zero >= 3 && par.gradient_group() > 1 &&
                       s_.costs.zero3_unit_bytes + s_.costs.zero3_unit_expert_bytes > 0 && t.pass != TaskPass::weight &&
                       std::string(kind) != "recompute";
  const bool by_units =
      gathers || (par.megatron_fsdp() && with_buckets && s_.costs.zero3_units[static_cast<size_t>(t.chunk)] > 0);
  // What runs beside overlapped TP collectives runs in run_collective; with context
  // parallelism the attention kernels run beside the K/V exchange.
  const double before_attention =
      pass.compute_s - pass.overlapped_s - (pass.cp_gather_bytes > 0 ? pass.attention_s : 0.0);
  // The pass's FLOPs in proportion to the compute time each record covers.
  const WorkRate rate = work_rate(pass);
  if (by_units) {
    // Each unit's compute is its own record: the gathers waited for lie between them.
    double spent = gathers_.compute_by_units(kind, t, before_attention, with_buckets, rate, gathers);
    if (pass.cp_gather_bytes > 0) {
      compute_.open_record(kind, t, rate);
      spent += compute_.attention_with_cp(kind, t, pass, rate);
      compute_.close_record();
    }
    return spent;
  }
  compute_.open_record(kind, t, rate);
  double spent = 0;
  std::function<double(double)> attention;
  if (pass.cp_gather_bytes > 0)
    attention = [&](double share) { return compute_.attention_with_cp(kind, t, pass, rate, share); };
  if (with_buckets) {
    // Each bucket's reduction is issued once its share of the whole pass, attention included,
    // has run: the last one when the pass ends.
    spent = reduction_.compute_with_buckets(t, before_attention, 1.0, attention);
  } else if (gathers_.gathers_by_bucket() && t.pass == TaskPass::forward && std::string(kind) == "forward") {
    spent = gathers_.compute_with_gathers(kind, t, before_attention, rate, attention);
  } else {
    spent = compute_.compute(before_attention);
    if (pass.cp_gather_bytes > 0) spent += compute_.attention_with_cp(kind, t, pass, rate);
  }
  compute_.close_record();
  return spent;
}

int StageActor::chunks() const {
  return s_.w.scenario.parallel.pp * s_.w.scenario.parallel.virtual_stages;
}

int StageActor::global_chunk(const PipelineTask& t) const {
  return t.chunk * s_.w.scenario.parallel.pp + s_.stage;
}

const ChunkCosts& StageActor::chunk_costs(const PipelineTask& t) const {
  return s_.costs.chunks[static_cast<size_t>(t.chunk)];
}

// The pass whose output `t` consumes, if it comes from another stage.
std::optional<TaskKey> StageActor::input_of(const PipelineTask& t) const {
  const int g = global_chunk(t);
  if (t.pass == TaskPass::forward && g > 0) return TaskKey{s_.replica, s_.step, t.microbatch, g - 1, TaskPass::forward};
  if (t.pass == TaskPass::backward && g < chunks() - 1)
    return TaskKey{s_.replica, s_.step, t.microbatch, g + 1, TaskPass::backward};
  return std::nullopt;
}

std::int64_t StageActor::transfer_tag(const TaskKey& key) const {
  const std::int64_t per_step = static_cast<std::int64_t>(s_.w.costs.microbatches) * chunks();
  return ((key.step * per_step + static_cast<std::int64_t>(key.microbatch) * chunks() + key.global_chunk) << 1) |
         (key.pass == TaskPass::backward ? 1 : 0);
}

bool StageActor::inputs_ready(const PipelineTask& t) const {
  const auto key = input_of(t);
  return !key || s_.w.board.ready(*key);
}

void StageActor::wait_inputs(const PipelineTask& t) {
  if (t.pass == TaskPass::forward && global_chunk(t) == 0) wait_data(t);
  const auto key = input_of(t);
  if (!key) return;
  s_.clock.settle();
  const double asked = s_.clock.now();
  const TransferBoard::Entry entry = s_.w.board.take(*key);
  entry.transfer.wait();
  // Waiting for the upstream pass is the bubble; waiting for its transfer is pp_comm.
  const double now = s_.clock.now();
  s_.account().pp_comm += now - std::max(asked, entry.posted_s);
  s_.account().add_comm_interval(entry.transfer.start_s(), entry.transfer.end_s());
  ActivityComm transfer;
  transfer.peer_stage = key->global_chunk % s_.w.scenario.parallel.pp;
  transfer.tag = transfer_tag(*key);
  s_.observe(ActivityStream::pp_comm, "pp_transfer", &t, entry.transfer.start_s(), entry.transfer.end_s(),
          s_.w.costs.activation_bytes / s_.w.scenario.parallel.tp, 0, std::move(transfer));
  s_.account().pp_bytes += s_.w.costs.activation_bytes / s_.w.scenario.parallel.tp;
}

void StageActor::wait_data(const PipelineTask& t) {
  const int index = s_.step * s_.w.costs.microbatches + t.microbatch;
  const double ready = loader_.ready_time(index);
  const double now = s_.clock.now();
  if (ready > now) {
    s_.clock.sleep(ready - now);
    s_.account().data += ready - now;
    s_.observe(ActivityStream::data, "data_wait", &t, now, ready, 0, 0);
  }
  loader_.consumed(index, s_.clock.now());
}

// The first of this GPU's gradient reductions or ZeRO-3 unit gathers still in flight, if any.
const CommActivity* StageActor::gradient_traffic_in_flight() const {
  if (const CommActivity* a = reduction_.first_running()) return a;
  return gathers_.first_unit_running();
}

const CommActivity* StageActor::parameter_gather_in_flight() const {
  return gathers_.running();
}

// A reduction, gather or pair's collective this replica asked for that has not started
// (slower replicas have not asked).
std::optional<ReplicaRendezvous::Key> StageActor::awaited_start() const {
  if (pair_asked_ && !s_.w.rendezvous.started(*pair_asked_)) return pair_asked_;  // its start starts the next (run_pair)
  if (auto key = reduction_.awaited_start()) return key;
  return gathers_.awaited_start();
}

void StageActor::add_flops(const PassCost& pass, bool recomputed) {
  GpuAccount& a = s_.account();
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
  const double blocked = s_.account().tp_comm + s_.account().ep_comm;
  compute_.start_layer_slots(pass, t);
  const double spent = compute_pass(kind, t, pass, with_buckets);
  double computed = spent + compute_.finish_layer_slots(pass, t);
  computed += host_beside_collectives(kind, t, pass, s_.account().tp_comm + s_.account().ep_comm - blocked);
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
  s_.account().host_wait -= pass.hideable_host_s - left;
  if (!(left > 0)) return 0.0;
  compute_.open_record(kind, t, WorkRate{});  // the pass's, its GPU waiting for launches
  const double spent = compute_.compute(left);
  compute_.close_record();
  return spent;
}

// The copies the pass's compute did not hide (stage_costs.cpp).
void StageActor::wait_offload(const PipelineTask& t, const PassCost& pass) {
  if (pass.offload_s <= 0) return;
  const double start = s_.clock.now();
  s_.clock.sleep(pass.offload_s);
  s_.account().offload += pass.offload_s;
  s_.observe(ActivityStream::compute, "offload_wait", &t, start, s_.clock.now(), pass.offload_bytes, 0);
}

// After a forward pass's compute: its FLOPs, the first forward's parameter gather, its output.
void StageActor::forward_done(const PipelineTask& t, const PassCost& pass) {
  add_flops(pass, false);
  gathers_.finish_forward();
  send_output(t);
}

void StageActor::run_task(const PipelineTask& t) {
  const ChunkCosts& c = chunk_costs(t);
  if (t.pass == TaskPass::forward) {
    GpuAccount& a = s_.account();
    a.max_inflight_chunks = std::max(a.max_inflight_chunks, ++a.inflight_chunks);
    s_.account().forward += run_pass("forward", t, c.forward, false);
    forward_done(t, c.forward);
    return;
  }
  s_.account().recompute += run_pass("recompute", t, c.recompute, false);
  add_flops(c.recompute, true);
  const bool reduces_here = !s_.w.schedule.defers_weight_gradients() && reduces_after(s_.w.scenario, s_.w.costs.microbatches, t);
  s_.account().backward += run_pass("backward", t, c.backward, reduces_here);
  add_flops(c.backward, false);
  --s_.account().inflight_chunks;
  send_output(t);
}

void StageActor::run_weight(const PipelineTask& t) {
  const ChunkCosts& c = chunk_costs(t);
  s_.account().backward += compute_pass("weight", t, c.weight, reduces_after(s_.w.scenario, s_.w.costs.microbatches, t));
  add_flops(c.weight, false);
  s_.account().backward += host_beside_collectives("weight", t, c.weight, 0.0);
}

// parallel.moe_a2a_overlap: whether `t` may run beside a task of the other pass. A backward
// whose gradients are reduced bucket by bucket as it runs (the chunk's last micro-batch)
// runs alone.
bool StageActor::pairable(const PipelineTask& t) const {
  const ParallelSpec& par = s_.w.scenario.parallel;
  const bool reduces = par.gradient_group() > 1 && par.overlap_grad_reduce && reduces_after(s_.w.scenario, s_.w.costs.microbatches, t);
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
  const double held = forward || !s_.w.scenario.parallel.delay_wgrad_compute ? 0.0 : m.experts_wgrad_s;
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
  chain.tp = layer_slots(pass, t, false);
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
  GpuAccount& a = s_.account();
  a.max_inflight_chunks = std::max(a.max_inflight_chunks, ++a.inflight_chunks);
  s_.account().recompute += run_pass("recompute", backward, bc.recompute, false);
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
    layers_.record(*item.collective, *chains[item.chain].task, running->start_s(), running->end_s(), 0.0);
    if (item.last) ++chains[item.chain].groups_done;
    running.reset();
    compute_.clear_beside();
  };
  // With symmetry reduced a collective timed before (alone on its group's actors, not
  // beside the first forward's parameter gather) runs as a timer of its duration, as
  // run_collective reuses it; the others are simulated, and timed for the next.
  bool simulated = false;  // the running collective is simulated (not a timer)
  bool measure = false;    // ... and its duration goes to the cache
  const auto take_started = [&] {
    const CommActivity* started = pair_asked_ ? s_.w.rendezvous.started(*pair_asked_) : nullptr;
    if (started == nullptr) return;
    running = *started;
    s_.w.rendezvous.leave(*pair_asked_);
    pair_asked_.reset();
    compute_.add_beside(*running);
  };
  const auto advance = [&] {
    take_started();
    if (running && running->done()) {
      if (simulated && measure && parameter_gather_in_flight() == nullptr)
        s_.w.duration_cache[layers_.duration_key(*item.collective)] = running->duration_s();
      finish();
    }
    if (running || pair_asked_ || next_comm == comms.size() ||
        chains[comms[next_comm].chain].leads_done <= comms[next_comm].group)
      return;
    item = comms[next_comm++];
    const auto cached = s_.w.duration_cache.find(layers_.duration_key(*item.collective));
    const bool beside_gradients = s_.w.options.reduce_symmetry && gradient_traffic_running();
    simulated = !(s_.w.options.reduce_symmetry && layers_.actors_in(LayerGroup::ep) == 1 &&
                  cached != s_.w.duration_cache.end() && !beside_gradients);
    if (simulated) {
      // It starts when the group's last member asks; the compute goes on meanwhile.
      measure = parameter_gather_in_flight() == nullptr && !beside_gradients;
      const auto [key, actors] = layers_.next_group_rendezvous(LayerGroup::ep);
      s_.clock.settle();
      const CollectiveCall call = layers_.call(*item.collective);
      s_.w.rendezvous.arrive(key, actors, [&] { return engine::start_collective(s_.w.platform, call); });
      pair_asked_ = key;
      take_started();
      return;
    }
    CommPlan timer;
    timer.phases.resize(1);
    timer.phases[0].latency_s = cached->second;
    running = engine::start_plan(s_.w.platform, std::move(timer), "ep_timed");
    compute_.add_beside(*running);
  };
  compute_.on_beside_done(advance);
  while (true) {
    s_.clock.settle();
    advance();
    if (next_piece < pieces.size() && chains[pieces[next_piece].first].groups_done >= pieces[next_piece].second) {
      PairChain& chain = chains[pieces[next_piece].first];
      const WorkRate rate = work_rate(*chain.pass);
      const size_t piece = pieces[next_piece].second;
      compute_.swap_layer_slots(chain.tp);  // its TP collectives play inside its compute
      compute_.open_record(chain.kind, *chain.task, rate);
      chain.compute_s += compute_.compute(chain.pieces[piece] - chain.held[piece]);
      ++chain.leads_done;
      if (chain.held[piece] > 0) {  // the weight gradients beside the dispatch gradient
        advance();
        chain.compute_s += compute_.compute(chain.held[piece]);
      }
      if (piece + 1 == chain.pieces.size())
        while (compute_.slot_pending()) chain.compute_s += compute_.play_layer_slot();
      compute_.close_record();
      compute_.swap_layer_slots(chain.tp);
      ++next_piece;
      continue;
    }
    if (running || pair_asked_) {  // the compute stream waits for the collective its next piece needs
      const double asked = s_.clock.now();
      if (running) {
        running->wait();
      } else {
        s_.w.rendezvous.wait_started(*pair_asked_);
      }
      s_.account().ep_comm += s_.clock.now() - asked;
      continue;
    }
    if (next_piece == pieces.size() && next_comm == comms.size()) break;
    throw std::logic_error("combined 1F1B: neither stream of the pair can go on");
  }
  compute_.on_beside_done(nullptr);
  s_.account().backward += chains[0].compute_s;
  s_.account().forward += chains[1].compute_s;
  for (const auto& [task, pass] : {std::pair{&forward, &fc.forward}, std::pair{&backward, &bc.backward}}) {
    double computed = 0;
    for (const GroupCollective& c : pass->collectives)
      if (c.layers == 0) computed += layers_.run(c, c.count, *task);
    (task == &forward ? s_.account().forward : s_.account().backward) += computed;
    wait_offload(*task, *pass);
  }
  forward_done(forward, fc.forward);
  add_flops(bc.backward, false);
  --s_.account().inflight_chunks;
  send_output(backward);
}

void StageActor::send_output(const PipelineTask& t) {
  const int g = global_chunk(t);
  const int target = t.pass == TaskPass::forward ? g + 1 : g - 1;
  if (target < 0 || target >= chunks()) return;
  const int pp = s_.w.scenario.parallel.pp;
  const int target_stage = target % pp;
  // Each TP rank sends its 1/t share (Megatron-LM's scatter/gather, Narayanan et al. §4.1).
  const double bytes = s_.w.costs.activation_bytes / s_.w.scenario.parallel.tp;
  CommPlan plan;
  plan.phases.resize(1);
  // With replicate_p2p, every replica of this one's class sends at its time.
  const std::vector<int> alone{s_.replica};
  for (const int r : s_.w.simulated.replicate_p2p ? s_.replica_class.members : alone) {
    for (int i = 0; i < (s_.w.simulated.one_transfer_per_tp_group ? 1 : s_.w.scenario.parallel.tp); ++i) {
      // TP rank i of replica r's stages.
      const int src = s_.w.mapping.gpu_of(rank_of(s_.w.mapping, r, s_.stage, i));
      const int dst = s_.w.mapping.gpu_of(rank_of(s_.w.mapping, r, target_stage, i));
      plan.phases[0].transfers.push_back({src, dst, bytes});
      plan.phases[0].latency_s = std::max(plan.phases[0].latency_s, s_.w.platform.latency_s(src, dst));
    }
  }
  s_.clock.settle();
  const CommActivity transfer = engine::start_plan(s_.w.platform, std::move(plan), "pp");
  s_.w.board.post({s_.replica, s_.step, t.microbatch, g, t.pass}, transfer);
  if (!s_.w.scenario.parallel.pp_sends_overlap()) {  // the sender waits for its send too
    const double asked = s_.clock.now();
    transfer.wait();
    s_.account().pp_comm += s_.clock.now() - asked;
  }
}

// The optimizer step: on the GPU, or with CPU offload on the host after the gradient
// shard went down the host link (and before the parameters come back up it).
double StageActor::run_optimizer() {
  if (s_.w.scenario.training.offload != Offload::cpu) {
    const double kernels = compute_.compute(s_.costs.optimizer_s);
    // The gradient norm's all-reduce and the host's dispatches after its sync
    // (fixed_costs.hpp): the GPU waits for both.
    const double waits = s_.costs.grad_norm_allreduce_s + s_.costs.host_after_norm_s;
    if (waits > 0) s_.clock.sleep(waits);
    s_.account().fixed.grad_norm_allreduce += s_.costs.grad_norm_allreduce_s;
    s_.account().fixed.host_after_norm += s_.costs.host_after_norm_s;
    return kernels + waits;
  }
  const double start = s_.clock.now();
  const double link_s = s_.costs.offload_bytes / s_.w.scenario.cluster.host_link_bandwidth_Bps;
  s_.clock.sleep(link_s + s_.costs.host_optimizer_s);
  return s_.clock.now() - start;
}

void StageActor::finish_step() {
  reduction_.finish_step();
  const double optimizer_start = s_.clock.now();
  s_.account().optimizer += run_optimizer();
  s_.observe(ActivityStream::compute, "optimizer", nullptr, optimizer_start, s_.clock.now(), 0, 0);
  gathers_.gather_updated();
  s_.clock.settle();
  s_.w.step_end->wait();
  // One actor of the world's records (SimGrid 3.32's Barrier::wait returns 0 to every actor).
  const bool serial = s_.account_index == 0;
  if (serial) s_.w.step_ends.push_back(s_.clock.now());
  if (s_.w.foreground) {
    // A neighbour's actors agree on whether to step again: while the job still steps.
    if (serial)
      s_.w.another_step = s_.w.foreground->step_ends.size() < static_cast<size_t>(s_.w.foreground->scenario.run.steps);
    s_.w.decided->wait();
  }
  if (s_.w.options.observer && s_.stage == 0 && s_.replica == 0)
    s_.w.options.observer->on_step(s_.step, s_.step_start, s_.clock.now());
}

}  // namespace trainsim
