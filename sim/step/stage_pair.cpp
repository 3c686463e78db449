#include "sim/step/stage_pair.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "sim/engine/plan_runner.hpp"

namespace trainsim {

using engine::CollectiveCall;
using engine::CollectiveOp;
using engine::CommActivity;
using engine::CommPlan;

// parallel.moe_a2a_overlap: whether `t` may run beside a task of the other pass. A backward
// whose gradients are reduced bucket by bucket as it runs (the chunk's last micro-batch)
// runs alone.
bool pairable(const ParallelSpec& par, bool reduces_after, const PipelineTask& t) {
  const bool reduces = par.gradient_group() > 1 && par.overlap_grad_reduce && reduces_after;
  return t.pass == TaskPass::forward || (t.pass == TaskPass::backward && !reduces);
}

// Pass `pass` of `t` cut as the combined 1F1B plays it (Megatron-Core @ d98e8a64): per MoE
// layer the nodes TransformerLayerSchedulePlan builds (models/common/
// model_chunk_schedule_plan.py, _build_callable_nodes), each on its stream, and what each
// runs (models/gpt/fine_grained_callables.py, build_transformer_layer_callables):
// - pre_dispatch_computation, compute stream: attention, the MLP's norm, router, dispatch
//   preprocess (permutation); its backward the same kernels' gradients. A forward's head_s,
//   a backward's tail_s.
// - moe_dispatch, communication stream: the token (and probabilities') all-to-all only.
// - mlp, compute stream: the received chunks' sort, the experts, the unsort (experts_s).
// - moe_combine, communication stream: the combine all-to-all, then the unpermutation and the
//   residual add (submodule_combine_forward: `mlp.combine`, `mlp.postprocess`, `mlp_bda`);
//   in the backward their gradients, then the all-to-all. So a forward's tail_s runs after
//   its combine on the communication stream, a backward's head_s before its combine's
//   gradient there: they run beside the other pass's compute and hold the stream.
// The pass's other compute (embedding, output layer, loss; dense layers) runs outside the
// layer pairs (TransformerModelChunkSchedulePlan.run: "Phase 0" the forward's preprocess and
// the backward's postprocess, i.e. the output layer's and loss's gradients, before them;
// "Phase 6" the forward's postprocess, the output layer and loss, after them, once the last
// combine is done): a backward's first, a forward's last, with no all-to-all beside it.
// (The embedding's forward and its gradient, a gather and a scatter, go with them; dense
// layers, which Megatron-Core pairs layer by layer too, go there as well: a stated
// simplification.) The forward's first group is the dispatch with the dispatcher's
// token-count all-gather and probabilities' all-to-all, its second the combine; the
// backward's first the combine's gradient, its second the dispatch's with the
// probabilities'.
PairChain pair_chain(const char* kind, const PipelineTask& t, const PassCost& pass, bool delay_wgrad_compute) {
  PairChain chain;
  chain.task = &t;
  chain.kind = kind;
  chain.pass = &pass;
  const GroupCollective* tokens = nullptr;
  std::vector<const GroupCollective*> gathers, others;
  for (const GroupCollective& c : pass.collectives) {
    // Once per pass: after the pair (StagePair::run); TP: on the compute stream, in its pieces.
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
  const double other_s = std::max(0.0, pass.compute_s + pass.hideable_host_s - moe_s);
  const bool forward = t.pass == TaskPass::forward;
  const double held = forward || !delay_wgrad_compute ? 0.0 : m.experts_wgrad_s;
  const auto piece = [&](double s, double hold, const std::array<double, 2>& beside, double kernel_s) {
    chain.pieces.push_back(s);
    chain.held.push_back(hold);
    chain.beside.push_back(beside);
    chain.kernel_s.push_back(kernel_s);
  };
  const auto group = [&](const std::vector<const GroupCollective*>& g, double before, double after) {
    chain.groups.push_back(g);
    chain.comm_before.push_back(before);
    chain.comm_after.push_back(after);
  };
  std::vector<const GroupCollective*> dispatch = gathers;
  dispatch.push_back(tokens);
  dispatch.insert(dispatch.end(), others.begin(), others.end());
  const std::vector<const GroupCollective*> combine{tokens};
  // The pass's other compute (output layer, loss) is taken at its neighbouring part's kernels.
  if (layers == 0) {
    piece(other_s, 0.0, m.tail_beside, m.tail_kernel_s);
  } else if (forward) {
    piece(m.head_s, 0.0, m.head_beside, m.head_kernel_s);
    for (int l = 0; l < layers; ++l) {
      group(dispatch, 0.0, 0.0);
      piece(m.experts_s, 0.0, m.experts_beside, m.experts_kernel_s);
      group(combine, 0.0, m.tail_s);  // the unpermutation and residual after the combine
      piece(l + 1 < layers ? m.head_s : other_s, 0.0, m.head_beside, m.head_kernel_s);
    }
  } else {
    piece(other_s, 0.0, m.tail_beside, m.tail_kernel_s);
    for (int l = 0; l < layers; ++l) {
      group(combine, m.head_s, 0.0);  // their gradients before the combine's
      piece(m.experts_s, held, m.experts_beside, m.experts_kernel_s);
      group(dispatch, 0.0, 0.0);
      piece(m.tail_s, 0.0, m.tail_beside, m.tail_kernel_s);
    }
  }
  // TP collectives overlapped with GEMMs run those GEMMs beside them (LayerCollectives::run): the
  // pieces hold the rest of the compute.
  const double unoverlapped = pass.compute_s > 0 ? (pass.compute_s - pass.overlapped_s) / pass.compute_s : 1.0;
  for (std::vector<double>* v : {&chain.pieces, &chain.held, &chain.comm_before, &chain.comm_after})
    for (double& s : *v) s *= unoverlapped;
  // A dropless forward's sync leaves the rest of the pair's layer at the host's pace: the
  // forward's experts wait for it (host_bound_pair.hpp).
  if (forward)
    for (int l = 0; l < layers; ++l) chain.pieces[static_cast<size_t>(1 + 2 * l)] += m.paired_host_s;
  chain.tp = layer_slots(pass, t, false);
  return chain;
}

// The combine node's unpermutation, residual add and their gradients are memory-bound
// kernels over every routed row (64 K rows of hidden 2048 for Qwen3 30B-A3B at 4,096 tokens,
// many waves of thread blocks), so beside the other pass's kernels they take SMs as those
// free up rather than run in the gaps: Megatron-Core orders `mlp_bda` after `mlp.combine`
// because run first "it would compete for SM resources with another microbatch's computation
// and expose the communication" (models/gpt/fine_grained_callables.py @ d98e8a64,
// submodule_combine_forward). The bound taken: the GPU's SM time is conserved, the compute
// stream's piece beside them loses their seconds while the communication stream holds them
// in its order. In StagePair::run's order the backward's group i starts beside the forward's
// piece i and the forward's group i beside the backward's piece i + 1.
void share_comm_kernels(std::array<PairChain, 2>& chains) {
  for (size_t c = 0; c < 2; ++c) {
    PairChain& other = chains[1 - c];
    for (size_t i = 0; i < chains[c].groups.size(); ++i) {
      const size_t beside = c == 0 ? i : i + 1;
      if (beside < other.pieces.size()) other.pieces[beside] += chains[c].comm_before[i] + chains[c].comm_after[i];
    }
  }
}

// parallel.moe_a2a_overlap: a `forward` and a `backward` (of another micro-batch) as one unit,
// layer by layer, as Megatron-Core's combined 1F1B runs them
// (TransformerLayerSchedulePlan.run, megatron/core/models/common/model_chunk_schedule_plan.py
// @ d98e8a64): the compute stream runs the backward's and the forward's pieces in turn, the
// backward's first (its output layer's gradient; the forward's attention; the backward's
// experts; the forward's experts; the backward's attention; ...; the forward's output
// layer), the communication stream their groups of collectives in turn, the backward's first
// (its combine's gradient, the forward's dispatch, the backward's dispatch gradient, the
// forward's combine: run's docstring, "comm_stream: combine_bwd | dispatch_fwd->dispatch_bwd
// | combine_fwd"), with the combine node's kernels beside its all-to-all (pair_chain). A
// piece waits for its pass's group before it, a group for its pass's piece before it and for
// the stream's item before it: each node waits for its micro-batch's one CUDA event and
// records it when done (pipeline_parallel/utils.py, ScheduleNode.stream_acquire_context), so a
// pass's nodes run in its order whatever their streams, the two passes' only in each stream's
// order; mlp.backward_dw records no event, so the dispatch's gradient starts beside the
// experts' delayed weight gradients (`held`). Compute
// beside a collective runs slower by the SMs its kernels hold and the HBM bandwidth it shares,
// piece by piece (ep_overlap_cost.hpp; on a GPU of no stated SM count ep_overlap_slowdown);
// the compute stream's waits for the collectives are ep_comm. A selective recomputation runs
// before the pair; the passes' once-per-pass collectives and offload waits after it. A
// collective starts when its group's last member asks (ReplicaRendezvous): beside a slower
// peer (variations) the compute stream runs on until it needs it.
void StagePair::run(std::array<PairChain, 2>& chains) {
  struct CommItem {
    size_t chain, group;
    const GroupCollective* collective;  // null: compute kernels on the communication stream
    double seconds;                     // theirs
    bool last;                          // of its group
  };
  share_comm_kernels(chains);
  std::vector<std::pair<size_t, size_t>> pieces;  // (chain, piece), the compute stream's order
  std::vector<CommItem> comms;                    // the communication stream's order
  for (size_t i = 0; i < std::max(chains[0].pieces.size(), chains[1].pieces.size()); ++i)
    for (size_t c = 0; c < 2; ++c) {
      if (i < chains[c].pieces.size()) pieces.emplace_back(c, i);
      if (i < chains[c].groups.size()) {
        const PairChain& chain = chains[c];
        if (chain.comm_before[i] > 0) comms.push_back({c, i, nullptr, chain.comm_before[i], false});
        for (const GroupCollective* g : chain.groups[i])
          comms.push_back({c, i, g, 0.0, g == chain.groups[i].back() && !(chain.comm_after[i] > 0)});
        if (chain.comm_after[i] > 0) comms.push_back({c, i, nullptr, chain.comm_after[i], true});
      }
    }
  size_t next_piece = 0, next_comm = 0;
  std::optional<CommActivity> running;
  CommItem item{};
  // The piece's slowdown beside a collective; beside the combine node's kernels none, their
  // seconds already charged to it (share_comm_kernels), nor beside a wait for SMs.
  double piece_slowdown = 0;
  double kernel_in_progress_s = 0;  // the running piece's (PairChain::kernel_s); 0 between pieces
  bool waited_for_sms = false;      // the next collective has waited for them
  const auto slow_beside = [&] {
    compute_.set_pair_slowdown(running && item.collective == nullptr ? 0.0 : piece_slowdown);
  };
  const auto finish = [&] {
    if (item.collective != nullptr)
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
    const CommActivity* started = asked_ ? s_.w.rendezvous.started(*asked_) : nullptr;
    if (started == nullptr) return;
    running = *started;
    s_.w.rendezvous.leave(*asked_);
    asked_.reset();
    compute_.add_beside(*running);
  };
  const auto advance = [&] {
    take_started();
    if (running && running->done()) {
      if (simulated && measure && traffic_.parameter_gather_in_flight() == nullptr)
        s_.w.duration_cache[layers_.duration_key(*item.collective)] = running->duration_s();
      finish();
    }
    slow_beside();
    if (running || asked_ || next_comm == comms.size() ||
        chains[comms[next_comm].chain].leads_done <= comms[next_comm].group)
      return;
    // A collective's kernel that may start while a piece runs waits for the SMs its kernel in
    // progress holds (moe_layer_split.hpp, kernel_in_progress_s): Megatron-Core creates the
    // pair's communication stream at the compute stream's priority unless
    // high_priority_a2a_comm_stream is set (pipeline_parallel/utils.py set_streams,
    // transformer/transformer_config.py @ d98e8a64: False by default; Megatron-Bridge's
    // performance scripts set it only with the CuTe DSL grouped MLP, scripts/performance/
    // utils/overrides.py @ 067f987d). One that waited on a piece starts at its end, as the
    // last kernel's blocks retire (0 in progress there). The compute beside the wait runs at
    // its own speed.
    if (comms[next_comm].collective != nullptr && kernel_in_progress_s > 0 && !waited_for_sms) {
      waited_for_sms = true;
      s_.clock.settle();
      simulated = false;
      item = {comms[next_comm].chain, comms[next_comm].group, nullptr, kernel_in_progress_s, false};
      CommPlan wait;
      wait.phases.resize(1);
      wait.phases[0].latency_s = kernel_in_progress_s;
      running = engine::start_plan(s_.w.platform, std::move(wait), "ep_sm_wait");
      compute_.add_beside(*running);
      slow_beside();
      return;
    }
    waited_for_sms = false;
    item = comms[next_comm++];
    // Whatever starts below starts at the actor's time: its compute's lazy sleeps run first
    // (lazy_clock.hpp). Called right after a piece (the delayed weight gradients' lead) they
    // may not have run, and a timer or the combine node's kernels started on the engine's
    // clock would start that long early, and end early beside the compute after them.
    s_.clock.settle();
    if (item.collective == nullptr) {  // the combine node's kernels, in stream order
      simulated = false;
      CommPlan kernels;
      kernels.phases.resize(1);
      kernels.phases[0].latency_s = item.seconds;
      running = engine::start_plan(s_.w.platform, std::move(kernels), "ep_combine_compute");
      compute_.add_beside(*running);
      slow_beside();
      return;
    }
    const auto cached = s_.w.duration_cache.find(layers_.duration_key(*item.collective));
    const bool beside_gradients = s_.w.options.reduce_symmetry && traffic_.gradient_traffic_running();
    simulated = !(s_.w.options.reduce_symmetry && layers_.actors_in(LayerGroup::ep) == 1 &&
                  cached != s_.w.duration_cache.end() && !beside_gradients);
    if (simulated) {
      // It starts when the group's last member asks; the compute goes on meanwhile.
      measure = traffic_.parameter_gather_in_flight() == nullptr && !beside_gradients;
      const auto [key, actors] = layers_.next_group_rendezvous(LayerGroup::ep);
      s_.clock.settle();
      const CollectiveCall call = layers_.call(*item.collective);
      s_.w.rendezvous.arrive(key, actors, [&] { return engine::start_collective(s_.w.platform, call); });
      asked_ = key;
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
      piece_slowdown = s_.w.scenario.cluster.gpu.sms > 0
                           ? chain.beside[piece][layers_.ep_across_domains() ? 1 : 0] - 1.0
                           : layers_.ep_overlap_slowdown();
      slow_beside();
      kernel_in_progress_s = chain.kernel_s[piece];
      chain.compute_s += compute_.compute(chain.pieces[piece] - chain.held[piece]);
      kernel_in_progress_s = 0;
      ++chain.leads_done;
      if (chain.held[piece] > 0) {  // the weight gradients beside the dispatch gradient
        advance();
        kernel_in_progress_s = chain.kernel_s[piece];
        chain.compute_s += compute_.compute(chain.held[piece]);
        kernel_in_progress_s = 0;
      }
      if (piece + 1 == chain.pieces.size())
        while (compute_.slot_pending()) chain.compute_s += compute_.play_layer_slot();
      compute_.close_record();
      compute_.swap_layer_slots(chain.tp);
      ++next_piece;
      continue;
    }
    if (running || asked_) {  // the compute stream waits for the collective its next piece needs
      const double asked = s_.clock.now();
      if (running) {
        running->wait();
      } else {
        s_.w.rendezvous.wait_started(*asked_);
      }
      s_.account().ep_comm += s_.clock.now() - asked;
      continue;
    }
    if (next_piece == pieces.size() && next_comm == comms.size()) break;
    throw std::logic_error("combined 1F1B: neither stream of the pair can go on");
  }
  compute_.on_beside_done(nullptr);
}

std::optional<ReplicaRendezvous::Key> StagePair::awaited_start() const {
  if (asked_ && !s_.w.rendezvous.started(*asked_)) return asked_;
  return std::nullopt;
}

}  // namespace trainsim
