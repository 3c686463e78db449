#include "sim/step/step_bound.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

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

// A pass on the compute stream: its kernels, and the collectives it waits for (those not
// overlapped with a GEMM: Megatron-LM's blocking TP collectives, the MoE all-to-alls).
double pass_s(const PassCost& pass, const ParallelSpec& p, double port_Bps) {
  double s = pass.compute_s;
  for (const GroupCollective& c : pass.collectives)
    if (!(c.overlap_s > 0)) s += c.count * collective_s(c, group_size(c.group, p), port_Bps);
  return s;
}

double chunk_s(const ChunkCosts& c, const ParallelSpec& p, double port_Bps) {
  return pass_s(c.forward, p, port_Bps) + pass_s(c.recompute, p, port_Bps) + pass_s(c.backward, p, port_Bps) +
         pass_s(c.weight, p, port_Bps);
}

// The least, over the chunks, of the stages before `stage` passing one micro-batch along:
// `seconds(chunk)` of each of them.
template <class Seconds>
double chain_s(const StepCosts& costs, int stage, Seconds seconds) {
  if (stage == 0) return 0.0;
  const size_t chunks = costs.stages.front().chunks.size();
  double least = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < chunks; ++c) {
    double sum = 0;
    for (int j = 0; j < stage; ++j) sum += seconds(costs.stages[static_cast<size_t>(j)].chunks[c]);
    least = std::min(least, sum);
  }
  return least;
}

// The seconds the NICs of one NVLink domain need for the step's data-parallel traffic: each
// dense gradient reduction (all-reduce or reduce-scatter, any algorithm, in-network reduction
// included) must send out of every domain of its group (m domains) at least (m - 1)/m of its
// bytes, and each ZeRO-3 parameter gather (every unit, in every forward and backward pass)
// must bring that share of its output in (Chan et al. 2007's bandwidth bounds, per domain). A
// domain holds D / k such groups (k members each), whose traffic shares its NICs at their
// simulated rate. Hybrid sharding and the experts' groups are left out (a lower bound still).
double network_s(const Scenario& s, const StepCosts& costs, const engine::Platform& platform) {
  const ParallelSpec& p = s.parallel;
  if (p.gradient_group() < 2 || p.hybrid_sharding()) return 0.0;
  const RankMapping mapping(p, s.cluster);
  std::map<int, int> members;  // domain -> members of rank 0's group there
  for (const int rank : gradient_group(mapping, p, 0, false, GradientScope::whole))
    ++members[platform.domain_of(mapping.gpu_of(rank))];
  const double m = static_cast<double>(members.size());
  if (m < 2) return 0.0;
  int k = 0;
  for (const auto& [domain, count] : members) k = std::max(k, count);
  double bytes = std::numeric_limits<double>::infinity();  // the least of any stage's group
  for (const StageCosts& st : costs.stages) {
    double gathered = 0;
    if (p.zero >= 3)
      for (const int units : st.zero3_units) gathered += 2.0 * costs.microbatches * units * st.zero3_unit_bytes;
    bytes = std::min(bytes, st.dense_gradient_bytes + gathered);
  }
  const double groups = static_cast<double>(s.cluster.domain_gpus()) / k;
  return groups * (m - 1) / m * bytes / (platform.nics_per_domain() * platform.nic_Bps());
}

}  // namespace

double step_time_lower_bound_s(const Scenario& s, const ComputeModel& compute) {
  const auto schedule = make_pipeline_schedule(s.parallel.schedule, s.parallel.microbatch_group);
  const bool defers = schedule->defers_weight_gradients();
  const StepCosts costs = build_step_costs(s, compute, defers);
  const engine::Platform platform = engine::Platform::without_simgrid(s.cluster);
  const double port_Bps = gpu_port_Bps(platform);
  const ParallelSpec& p = s.parallel;
  double bound = 0;
  for (const StageCosts& stage : costs.stages) {
    double work = 0;
    for (const ChunkCosts& c : stage.chunks) work += costs.microbatches * chunk_s(c, p, port_Bps);
    const double head =
        chain_s(costs, stage.stage, [&](const ChunkCosts& c) { return pass_s(c.forward, p, port_Bps); });
    const double tail =
        defers ? 0.0 : chain_s(costs, stage.stage, [&](const ChunkCosts& c) { return pass_s(c.backward, p, port_Bps); });
    bound = std::max(bound, head + work + tail);
  }
  return std::max(bound, network_s(s, costs, platform));
}

}  // namespace trainsim
