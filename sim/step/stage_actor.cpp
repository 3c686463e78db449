#include "sim/step/stage_actor.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <utility>
#include <vector>

#include "sim/engine/plan_runner.hpp"
#include "sim/schedule/combined_1f1b.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/simulated_scope.hpp"

namespace trainsim {

using engine::CommActivity;
using engine::CommPlan;

StageActor::StageActor(StepWorld& world, int stage, int replica_class, int account)
    : s_(world, stage, replica_class, account),
      layers_(s_, *this),
      compute_(s_, layers_, *this),
      reduction_(s_, compute_),
      gathers_(s_, compute_, reduction_),
      pair_(s_, compute_, layers_, *this),
      waits_(s_, compute_) {}

void StageActor::operator()() {
  const int m = s_.w.costs.microbatches;
  const int pp = s_.w.scenario.parallel.pp;
  const int v = s_.w.scenario.parallel.virtual_stages;
  // DualPipe always pairs its forward and backward chunks (dualpipe_schedule.hpp).
  const bool pairs = s_.w.scenario.parallel.moe_a2a_overlap || s_.w.scenario.parallel.schedule == Schedule::dualpipe;
  const std::vector<ScheduledUnit> units = s_.w.schedule.units(s_.stage, pp, m, v, [&](const PipelineTask& t) {
    return pairs && pairable(s_.w.scenario.parallel, reduces_after(s_.w.scenario, s_.w.schedule, m, t), t);
  });
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
      if (t.pass == TaskPass::weight) {  // placed by the schedule (DualPipe)
        run_weight(t);
        continue;
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
  return s_.w.schedule.path_length(s_.w.scenario.parallel.pp, s_.w.scenario.parallel.virtual_stages);
}

int StageActor::global_chunk(const PipelineTask& t) const {
  return s_.w.schedule.path_position(s_.stage, t.chunk, s_.w.scenario.parallel.pp);
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
  if (t.pass == TaskPass::forward && global_chunk(t) == 0) waits_.wait_data(t);
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
  transfer.peer_stage = s_.w.schedule.stage_at(key->global_chunk, t.chunk, s_.w.scenario.parallel.pp);
  transfer.tag = transfer_tag(*key);
  s_.observe(ActivityStream::pp_comm, "pp_transfer", &t, entry.transfer.start_s(), entry.transfer.end_s(),
             s_.w.costs.activation_bytes / s_.w.scenario.parallel.tp, 0, std::move(transfer));
  s_.account().pp_bytes += s_.w.costs.activation_bytes / s_.w.scenario.parallel.tp;
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
  if (auto key = pair_.awaited_start()) return key;  // its start starts the next (stage_pair.hpp)
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
  computed += waits_.host_beside_collectives(kind, t, pass, s_.account().tp_comm + s_.account().ep_comm - blocked);
  waits_.wait_offload(t, pass);
  return computed;
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
  const bool reduces_here = !s_.w.schedule.splits_weight_gradients() &&
                            reduces_after(s_.w.scenario, s_.w.schedule, s_.w.costs.microbatches, t);
  s_.account().backward += run_pass("backward", t, c.backward, reduces_here);
  add_flops(c.backward, false);
  --s_.account().inflight_chunks;
  if (s_.w.schedule.runs_weight_with(t)) run_weight(t);
  send_output(t);
}

void StageActor::run_weight(const PipelineTask& t) {
  const ChunkCosts& c = chunk_costs(t);
  s_.account().backward +=
      compute_pass("weight", t, c.weight, reduces_after(s_.w.scenario, s_.w.schedule, s_.w.costs.microbatches, t));
  add_flops(c.weight, false);
  s_.account().backward += waits_.host_beside_collectives("weight", t, c.weight, 0.0);
}

// parallel.moe_a2a_overlap: `forward` and `backward` (of another micro-batch) as one unit
// (stage_pair.hpp): a selective recomputation runs before the pair; the passes'
// once-per-pass collectives and offload waits after it.
void StageActor::run_pair(const PipelineTask& forward, const PipelineTask& backward) {
  const ChunkCosts& fc = chunk_costs(forward);
  const ChunkCosts& bc = chunk_costs(backward);
  GpuAccount& a = s_.account();
  a.max_inflight_chunks = std::max(a.max_inflight_chunks, ++a.inflight_chunks);
  s_.account().recompute += run_pass("recompute", backward, bc.recompute, false);
  add_flops(bc.recompute, true);

  const bool delay = s_.w.scenario.parallel.delay_wgrad_compute;
  std::array<PairChain, 2> chains{pair_chain("backward", backward, bc.backward, delay),
                                  pair_chain("forward", forward, fc.forward, delay)};
  a.host_wait += fc.forward.moe.paired_host_s * static_cast<double>(chains[1].groups.size() / 2);
  pair_.run(chains);
  s_.account().backward += chains[0].compute_s;
  s_.account().forward += chains[1].compute_s;
  for (const auto& [task, pass] : {std::pair{&forward, &fc.forward}, std::pair{&backward, &bc.backward}}) {
    double computed = 0;
    for (const GroupCollective& c : pass->collectives)
      if (c.layers == 0) computed += layers_.run(c, c.count, *task);
    (task == &forward ? s_.account().forward : s_.account().backward) += computed;
    waits_.wait_offload(*task, *pass);
  }
  if (s_.w.schedule.runs_weight_with(backward)) run_weight(backward);
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
  const int target_stage = s_.w.schedule.stage_at(target, t.chunk, pp);
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
    // (fixed_costs.hpp), and fp8_param_gather's amax all-reduce (fp8_param_gather.hpp): the
    // GPU waits for each.
    // Before them, the host's dispatches after the loss's host sync (loss_host_sync.hpp).
    const double waits = s_.costs.host_before_norm_s + s_.costs.grad_norm_allreduce_s + s_.costs.host_after_norm_s +
                         s_.costs.fp8_param_amax_allreduce_s;
    if (waits > 0) s_.clock.sleep(waits);
    s_.account().fixed.host_before_norm += s_.costs.host_before_norm_s;
    s_.account().fixed.grad_norm_allreduce += s_.costs.grad_norm_allreduce_s;
    s_.account().fixed.host_after_norm += s_.costs.host_after_norm_s;
    s_.account().fixed.fp8_param_amax_allreduce += s_.costs.fp8_param_amax_allreduce_s;
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
