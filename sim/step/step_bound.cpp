#include "sim/step/step_bound.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "models/moe_dispatch.hpp"
#include "sim/engine/platform.hpp"
#include "sim/schedule/pipeline_schedule.hpp"
#include "sim/step/gradient_groups.hpp"
#include "sim/step/stage_costs.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

namespace {

using engine::CollectiveOp;

// The fastest a GPU can move bytes in one direction on the platform: its NVLink port at the
// best rate any algorithm gets from it, and its share of the node's NICs.
double gpu_port_Bps(const engine::Platform& platform) {
  const double nvlink = std::max({platform.nvlink_Bps(), platform.nvls_Bps(), platform.nvls_tree_Bps()});
  const double nics = static_cast<double>(platform.layout().nics_per_node) / platform.cluster().gpus_per_node;
  return nvlink + nics * platform.nic_Bps();
}

// The least time of one collective of `bytes` (nccl-tests size) over `n` GPUs: each GPU must
// receive (all-gather, all-reduce) or send (reduce-scatter, all-to-all) (n - 1)/n of it, at
// most at its port's rate.
double collective_s(const GroupCollective& c, int n, double port_Bps) {
  if (n < 2 || c.op == CollectiveOp::send_recv || c.op == CollectiveOp::broadcast) return 0.0;
  return c.bytes * (n - 1) / n / port_Bps;
}

int group_size(CommGroup g, const ParallelSpec& p) {
  switch (g) {
    case CommGroup::tp:
      return p.tp;
    case CommGroup::ep:
      return p.ep;
    case CommGroup::etp:
      return p.expert_tp_size();
  }
  return 1;
}

// Of the pairwise volume the token all-to-all sends, the least share any placement of the
// expert group over NVLink domains leaves (DeepEP's and HybridEP's once-per-node dispatch:
// models/moe_dispatch.hpp, remote_peer_share); 1 for alltoall.
double least_token_share(const Scenario& s) {
  double least = 1.0;
  for (int local = 1; local <= std::min(s.parallel.ep, s.cluster.domain_gpus()); ++local)
    least = std::min(least, remote_peer_share(s.model, s.parallel, local));
  return least;
}

// A pass on the compute stream: its kernels, and the collectives it waits for (those not
// overlapped with a GEMM: Megatron-LM's blocking TP collectives, the MoE all-to-alls, those of
// the tokens at `token_share` of their bytes at least). With parallel.moe_a2a_overlap the
// layers' expert-parallel collectives may hide wholly behind the paired pass's compute.
double pass_s(const PassCost& pass, const ParallelSpec& p, double port_Bps, double token_share) {
  double s = pass.compute_s;
  for (const GroupCollective& c : pass.collectives) {
    const bool paired = p.moe_a2a_overlap || p.schedule == Schedule::dualpipe;  // DualPipe always pairs
    if (c.overlap_s > 0 || (paired && c.group == CommGroup::ep && c.layers > 0)) continue;
    const double share = c.group == CommGroup::ep && c.op == CollectiveOp::all_to_all ? token_share : 1.0;
    s += c.count * share * collective_s(c, group_size(c.group, p), port_Bps);
  }
  return s;
}

// The least, over the chunks, of the stages before `stage` passing one micro-batch along:
// `seconds(stage costs, chunk)` of each of them.
template <class Seconds>
double chain_s(const StepCosts& costs, int stage, Seconds seconds) {
  if (stage == 0) return 0.0;
  const size_t chunks = costs.stages.front().chunks.size();
  double least = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < chunks; ++c) {
    double sum = 0;
    for (int j = 0; j < stage; ++j) sum += seconds(costs.stages[static_cast<size_t>(j)], c);
    least = std::min(least, sum);
  }
  return least;
}

// The data-parallel group of rank 0 across NVLink domains (Chan et al. 2007's bandwidth
// bounds, per domain): a gradient reduction (all-reduce or reduce-scatter, any algorithm,
// in-network reduction included) must send out of each of its m domains at least (m - 1)/m of
// its bytes, and an all-gather must bring that share of its output in. The groups whose GPUs
// share a domain's NICs do the same at the same times on a uniform cluster (the symmetry the
// step rests on), so they load the domain's NICs at once. Hybrid sharding and the experts'
// groups are left out (a lower bound still).
struct DomainTraffic {
  double s_per_byte = 0;  ///< NIC seconds per byte one group moves, every group of the domain at once
  /// Per pipeline stage: the same, counting only that stage's groups (their passes run at the
  /// same times), in the domain where they are fewest.
  std::vector<double> stage_s_per_byte;
};

DomainTraffic domain_traffic(const Scenario& s, const engine::Platform& platform) {
  const ParallelSpec& p = s.parallel;
  if (p.gradient_group() < 2 || p.hybrid_sharding()) return {};
  const RankMapping mapping(p, s.cluster);
  std::map<int, int> members;  // domain -> members of rank 0's group there
  for (const int rank : gradient_group(mapping, p, 0, false, GradientScope::whole))
    ++members[platform.domain_of(mapping.gpu_of(rank))];
  const double m = static_cast<double>(members.size());
  if (m < 2) return {};
  int k = 0;
  for (const auto& [domain, count] : members) k = std::max(k, count);
  std::vector<std::map<int, int>> stage_gpus(static_cast<size_t>(p.pp));  // stage -> domain -> GPUs
  for (int rank = 0; rank < s.cluster.total_gpus(); ++rank)
    ++stage_gpus[static_cast<size_t>(mapping.coordinate(rank, ParallelAxis::pp))]
                [platform.domain_of(mapping.gpu_of(rank))];
  const double per_byte = (m - 1) / m / (platform.nics_per_domain() * platform.nic_Bps());
  DomainTraffic t;
  t.s_per_byte = static_cast<double>(s.cluster.domain_gpus()) / k * per_byte;
  for (const auto& domains : stage_gpus) {
    int fewest = std::numeric_limits<int>::max();
    for (const auto& [domain, gpus] : domains) fewest = std::min(fewest, gpus);
    t.stage_s_per_byte.push_back(std::max(1.0, static_cast<double>(fewest) / k) * per_byte);
  }
  return t;
}

// The step's data-parallel traffic through a domain's NICs: each dense gradient reduction and,
// with ZeRO-3, each unit's parameter gather in every forward and backward pass.
double network_s(const StepCosts& costs, const ParallelSpec& p, const DomainTraffic& traffic) {
  if (!(traffic.s_per_byte > 0)) return 0.0;
  double bytes = std::numeric_limits<double>::infinity();  // the least of any stage's group
  for (const StageCosts& st : costs.stages) {
    double gathered = 0;
    if (p.zero >= 3)
      for (const int units : st.zero3_units) gathered += 2.0 * costs.microbatches * units * st.zero3_unit_bytes;
    bytes = std::min(bytes, st.dense_gradient_bytes + gathered);
  }
  return bytes * traffic.s_per_byte;
}

// A ZeRO-3 pass gathers each of its units' parameters after it starts and before that unit
// computes (parameter_gathers.cpp, compute_by_units), so it lasts at least as long as the domain's
// NICs take to bring in all of them for every group of its stage there at once.
double gathering_pass_s(double pass, int units, const StageCosts& st, const DomainTraffic& traffic) {
  return std::max(pass, units * st.zero3_unit_bytes * traffic.stage_s_per_byte[static_cast<size_t>(st.stage)]);
}

// What follows a stage's last backward of chunk c before the step ends. A chunk's gradients
// are reduced once its last micro-batch's backward produces them (gradient_reduction.hpp,
// reduces_after: Megatron-LM's overlapped reduction issues a bucket as that pass fills it, or
// the whole stage after its last backward without overlap), and the stage then waits for every
// reduction, runs the optimizer and, under ZeRO-1/2 without overlap_param_gather, all-gathers
// its updated parameters before the step ends (StageActor::finish_step,
// ParameterGathers::gather_updated). Chunk c's share of the stage's dense gradients leaves
// through the domain's NICs after that backward starts, every group of the stage there at once
// (each GPU of the stage has the same bound), and the gathered parameters come in through them
// after the optimizer's kernels.
struct ReductionTail {
  std::vector<double> reduction_s;  ///< per chunk: its gradients' NIC time
  double after_s = 0;               ///< the optimizer and the gather after the reductions
};

ReductionTail reduction_tail(const Scenario& s, const StageCosts& st, const DomainTraffic& traffic) {
  ReductionTail t;
  if (!(traffic.s_per_byte > 0)) return t;
  const double s_per_byte = traffic.stage_s_per_byte[static_cast<size_t>(st.stage)];
  const ParallelSpec& p = s.parallel;
  if (s.training.offload != Offload::cpu)
    t.after_s += st.optimizer_s + st.host_before_norm_s + st.grad_norm_allreduce_s + st.host_after_norm_s;
  if (p.zero >= 1 && p.zero < 3 && !p.overlap_param_gather) t.after_s += st.dense_weight_bytes * s_per_byte;
  const int layers = st.layers();
  for (size_t c = 0; c < st.chunks.size(); ++c) {
    // The chunk's part of the stage's gradients, as reduction_buckets (gradient_plans.hpp) cuts it.
    const double part = layers > 0 ? static_cast<double>(st.chunks[c].layers) / layers : 1.0 / st.chunks.size();
    t.reduction_s.push_back(st.dense_gradient_bytes * part * s_per_byte);
  }
  return t;
}

}  // namespace

double step_time_lower_bound_s(const Scenario& s, const ComputeModel& compute) {
  const auto schedule = make_pipeline_schedule(s.parallel);
  const bool defers = schedule->defers_weight_gradients();
  const StepCosts costs = build_step_costs(s, compute, schedule->splits_weight_gradients());
  // DualPipe feeds both ends: no stage waits for a whole chain of stages before its first
  // pass or after its last (its chunks' chains run the other way), so none is counted.
  const bool chains = s.parallel.schedule != Schedule::dualpipe;
  // Micro-batches through each chunk: all of them, or with DualPipe one direction's half.
  const double per_chunk = chains ? costs.microbatches : costs.microbatches / 2.0;
  const engine::Platform platform = engine::Platform::without_simgrid(s.cluster);
  const double port_Bps = gpu_port_Bps(platform);
  const double token_share = least_token_share(s);
  const ParallelSpec& p = s.parallel;
  const DomainTraffic traffic = domain_traffic(s, platform);
  const bool gathers = p.zero >= 3 && traffic.s_per_byte > 0;
  // The forward and backward passes of each stage's chunk c, with their gathers.
  const auto forward = [&](const StageCosts& st, size_t c) {
    const double pass = pass_s(st.chunks[c].forward, p, port_Bps, token_share);
    return gathers ? gathering_pass_s(pass, st.zero3_units[c], st, traffic) : pass;
  };
  const auto backward = [&](const StageCosts& st, size_t c) {
    const double pass = pass_s(st.chunks[c].backward, p, port_Bps, token_share);
    return gathers ? gathering_pass_s(pass, st.zero3_units[c], st, traffic) : pass;
  };
  double bound = 0;
  for (const StageCosts& stage : costs.stages) {
    double work = 0;
    std::vector<double> last_c;  // each chunk's backward and weight passes
    for (size_t c = 0; c < stage.chunks.size(); ++c) {
      const double b = backward(stage, c);
      const double w = pass_s(stage.chunks[c].weight, p, port_Bps, token_share);
      last_c.push_back(b + w);
      work += per_chunk * (forward(stage, c) + pass_s(stage.chunks[c].recompute, p, port_Bps, token_share) + b + w);
    }
    const double head = chains ? chain_s(costs, stage.stage, forward) : 0.0;
    const double tail = defers || !chains ? 0.0 : chain_s(costs, stage.stage, backward);
    bound = std::max(bound, head + work + tail);
    // The reductions after the last backward, where a stage's last pass is a backward (not with
    // weight gradients deferred past it, zero-bubble, or with DualPipe's two directions). The
    // stage's last pass, the backward of some chunk c, starts no earlier than `head` and every
    // other pass (at least `work` less that pass, `last_c`: the chunk's backward and weight
    // passes, the weight pass empty unless the schedule splits it off), and ends no earlier than
    // head + work. That micro-batch's backward then starts on stage j < s only once it ended on
    // stage j + 1, so no earlier than head + work and the backwards of stages j + 1 .. s - 1; it
    // is, or precedes, chunk c's last backward on stage j. Not knowing c, the least over chunks.
    if (!defers && chains && traffic.s_per_byte > 0) {
      const ReductionTail own = reduction_tail(s, stage, traffic);
      double least = std::numeric_limits<double>::infinity();
      for (size_t c = 0; c < stage.chunks.size(); ++c) least = std::min(least, own.reduction_s[c] - last_c[c]);
      bound = std::max(bound, head + work + least + own.after_s);
      std::vector<double> between(stage.chunks.size(), 0.0);  // per chunk: stages j + 1 .. s - 1's backwards
      for (int j = stage.stage - 1; j >= 0; --j) {
        const StageCosts& below = costs.stages[static_cast<size_t>(j)];
        const ReductionTail t = reduction_tail(s, below, traffic);
        least = std::numeric_limits<double>::infinity();
        for (size_t c = 0; c < std::min(below.chunks.size(), between.size()); ++c) {
          least = std::min(least, between[c] + t.reduction_s[c]);
          between[c] += backward(below, c);
        }
        bound = std::max(bound, head + work + least + t.after_s);
      }
    }
  }
  return std::max(bound, network_s(costs, p, traffic));
}

}  // namespace trainsim
