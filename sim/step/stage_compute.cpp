#include "sim/step/stage_compute.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <utility>

#include "sim/engine/timer_wait.hpp"
#include "sim/step/nccl_overlap.hpp"

namespace trainsim {

namespace sg4 = simgrid::s4u;
using engine::CollectiveOp;
using engine::CommActivity;

StageCompute::StageCompute(StageContext& s, LayerCollectives& layers, const StageTraffic& traffic)
    : s_(s),
      layers_(layers),
      traffic_(traffic),
      slowdown_(s.replica_class.stage_slowdown[static_cast<size_t>(s.stage)]),
      nccl_slowdown_(nccl_overlap_slowdown(s.w.scenario)),
      nccl_flat_slowdown_(nccl_slowdown_) {}

void StageCompute::start_layer_slots(const PassCost& pass, const PipelineTask& t) {
  slots_ = layer_slots(pass, t, true);
  nccl_slowdown_ = nccl_pass_slowdown(pass.nccl_extra_s, pass.compute_s, s_.w.scenario);
}

void StageCompute::open_record(const char* kind, const PipelineTask& t, WorkRate rate) {
  const double now = s_.clock.now();
  record_ = ComputeRecord{kind, &t, now, now, rate, 0};
}

void StageCompute::observe_record() {
  // observe() drops it without an observer: its kind's string and record not built then.
  if (!s_.w.options.observer) return;
  s_.observe(ActivityStream::compute, record_->kind, record_->task, record_->start_s, record_->end_s, 0,
             record_->rate.flops_per_s * record_->seconds, {}, record_->rate.bytes_per_s * record_->seconds);
}

void StageCompute::close_record() {
  if (!record_) return;
  observe_record();
  record_.reset();
}

// A communication of this GPU's still in flight beside its compute, if any.
const CommActivity* StageCompute::running_beside() const {
  if (const CommActivity* a = traffic_.gradient_traffic_in_flight()) return a;
  for (const CommActivity& a : beside_)
    if (!a.done()) return &a;
  return traffic_.parameter_gather_in_flight();
}

// Runs `seconds` of compute, slowed by overlap_slowdown for as long as a communication of
// this GPU runs beside it (gradient reductions, ZeRO-3 gathers, ring attention's K/V
// exchange, overlapped TP collectives: NCCL's and userbuffers' thread blocks take SMs and
// memory bandwidth from the kernels). Returns the time it took.
double StageCompute::compute_slowed(double seconds) {
  const double start = s_.clock.now();
  double remaining = seconds * slowdown_;  // compute left, in seconds unslowed by communication
  while (remaining > 0) {
    // Nothing of this GPU's runs beside it while sleeps are pending (starting one settles).
    // A pair's collective first (stage_pair.hpp): its end starts the stream's next, and its
    // dispatcher's kernels take their SMs and HBM bandwidth (set_pair_slowdown).
    const bool pair = beside_done_ && !beside_.empty() && !beside_.front().done();
    const CommActivity* running = pair ? &beside_.front() : running_beside();
    // NCCL's gradient and parameter collectives hold their CTAs' SMs (nccl_overlap.hpp); the
    // ring exchange's sends and anything else beside, the flat training.overlap_slowdown.
    const bool nccl =
        running != nullptr && !pair &&
        (running == traffic_.gradient_traffic_in_flight() || running == traffic_.parameter_gather_in_flight());
    const double slowdown =
        1.0 + (pair ? pair_slowdown_ : (nccl ? nccl_slowdown_ : s_.w.scenario.training.overlap_slowdown));
    if (running == nullptr) {
      const std::optional<ReplicaRendezvous::Key> awaited = traffic_.awaited_start();
      if (!awaited) {
        s_.clock.sleep(remaining);
        break;
      }
      // A reduction this replica asked for starts when the slowest replica asks: the compute
      // runs unslowed until then.
      s_.clock.settle();
      const double before = sg4::Engine::get_clock();
      s_.w.rendezvous.wait_started(*awaited, remaining);
      const double elapsed = sg4::Engine::get_clock() - before;
      if (elapsed <= 0 && !s_.w.rendezvous.started(*awaited)) {  // too short for the clock to advance
        engine::timer_sleep(remaining);
        break;
      }
      remaining -= elapsed;
      if (beside_done_) beside_done_();  // a pair's collective may have started (stage_pair.hpp)
      continue;
    }
    s_.clock.settle();
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
  const double end = s_.clock.now();
  if (record_) {
    record_->seconds += seconds;
    record_->end_s = end;
  }
  return end - start;
}

double StageCompute::compute(double seconds) {
  double spent = 0;
  while (slots_ && slots_->pending() && seconds >= slots_->until_next) {
    const double piece = slots_->until_next;
    spent += compute_slowed(piece);
    seconds -= piece;
    spent += play_layer_slot();
    if (beside_done_) beside_done_();  // a pair's collective may have ended meanwhile (stage_pair.hpp)
  }
  if (slots_ && slots_->pending()) slots_->until_next -= seconds;
  return spent + compute_slowed(seconds);
}

double StageCompute::play_layer_slot() {
  LayerSlots& l = *slots_;
  const GroupCollective& c = *l.sequence[l.next++];
  l.until_next = l.slot_s;
  if (record_) {
    observe_record();
    record_->seconds = 0;
  }
  const double computed = layers_.run(c, 1, *l.task);
  if (record_) record_->start_s = record_->end_s = s_.clock.now();
  return computed;
}

double StageCompute::finish_layer_slots(const PassCost& pass, const PipelineTask& t) {
  double computed = 0;
  while (slots_ && slots_->pending()) computed += play_layer_slot();
  slots_.reset();
  nccl_slowdown_ = nccl_flat_slowdown_;
  for (const GroupCollective& c : pass.collectives)
    computed += layers_.run(c, c.layers > 0 ? c.count % c.layers : c.count, t);
  return computed;
}

double StageCompute::attention_with_cp(const char* kind, const PipelineTask& t, const PassCost& pass, WorkRate rate,
                                       double share) {
  if (s_.w.scenario.parallel.cp_algo == CpAlgo::ring) return with_ring_exchange(t, pass, share);
  // All-gather CP (Llama 3 §3.3.2): the whole sequence's K and V are gathered before the
  // attention kernels and, in the backward, their gradients reduce-scattered after them;
  // neither overlaps compute. Each stops the compute record.
  close_record();
  layers_.exposed_cp(t, CollectiveOp::all_gather, share * pass.cp_gather_bytes, "cp_allgather");
  open_record(kind, t, rate);
  const double spent = compute(share * pass.attention_s);
  if (pass.cp_reduce_bytes > 0) {
    close_record();
    layers_.exposed_cp(t, CollectiveOp::reduce_scatter, share * pass.cp_reduce_bytes, "cp_reducescatter");
    open_record(kind, t, rate);
  }
  return spent;
}

// Ring attention (Liu et al. 2023): the K/V blocks of the other context-parallel ranks
// arrive while the attention kernels that can hide them run (pass.cp_hidden_s: Transformer
// Engine's steps but the forward's last, models/cp_ring_attention.hpp); what they do not
// hide is cp_comm; the kernels after them (the last step, the output and dK/dV
// corrections) wait for them. The layers' and steps' sends are summed into one exchange
// beside the summed kernels: the same exposure as step by step where the steps match.
double StageCompute::with_ring_exchange(const PipelineTask& t, const PassCost& pass, double share) {
  const double bytes = share * pass.cp_gather_bytes;
  const CommActivity exchange = layers_.start_cp(CollectiveOp::all_gather, bytes);
  beside_.push_back(exchange);
  double spent = compute(share * pass.cp_hidden_s);
  beside_.clear();
  s_.clock.settle();
  const double asked = s_.clock.now();
  exchange.wait();
  const double exposed = s_.clock.now() - asked;
  spent += compute(share * std::max(0.0, pass.attention_s - pass.cp_hidden_s));
  s_.account().cp_comm += exposed;
  s_.account().add_comm_interval(exchange.start_s(), exchange.end_s());
  s_.observe(ActivityStream::dp_comm, "cp_ring_exchange", &t, exchange.start_s(), exchange.end_s(), bytes, 0,
             {{{CollectiveOp::all_gather, ActivityGroup::cp, GradientScope::whole, bytes, 0}}});
  return spent;
}

}  // namespace trainsim
