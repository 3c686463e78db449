#pragma once
// An MoE layer's pass cut where its token all-to-alls fall (MoeLayerSplit, stage_costs.hpp),
// as the combined 1F1B of parallel.moe_a2a_overlap plays it (stage_pair.hpp).

#include <vector>

#include "models/op.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/step/stage_costs.hpp"

namespace trainsim {

/// The GPU seconds of `ops`, each at its expert load (op_load).
double pass_seconds(const std::vector<Op>& ops, const ComputeModel& compute, double load);

/// How long a kernel launched on a second stream of the same priority waits for SMs at a
/// moment spread over `ops`' kernels in proportion to their time: the mean rest of the kernel
/// in progress, sum(d^2) / (2 sum(d)) over the kernels (an op's seconds shared evenly among
/// its Op::kernels), the mean residual of a renewal process. The CUDA block scheduler runs a
/// pending kernel of one stream on the SMs another stream's kernel leaves as it nears its
/// end, not while its blocks hold them: "as the first compute kernel nears completion and
/// hardware resources free up, the first independent allreduce from a separate stream is
/// scheduled" (intel/intel-extension-for-pytorch#599, on A100); an all-to-all of a
/// same-priority stream "sometimes scheduled too late (after a long compute kernel)", fixed by
/// a higher-priority communication stream (hao-ai-lab/DistCA#16). 0 for no ops.
double kernel_in_progress_s(const std::vector<Op>& ops, const ComputeModel& compute, double load);

/// An MoE layer's pass `ops` cut at its experts (the first and last experts.* op: the token
/// all-to-alls fall on either side of them, models/layer_workload.cpp), the host's wait
/// `host_s` shared over the three parts in proportion; each part beside a pair's collective
/// moving `comm_hbm_bytes` through the GPU's HBM (ep_overlap_cost.hpp), and the mean rest of
/// its kernel in progress (kernel_in_progress_s; the host's waits, when no kernel runs, in
/// proportion).
MoeLayerSplit moe_layer_split(const std::vector<Op>& ops, const ComputeModel& compute, double load, double host_s,
                              const Scenario& s, double comm_hbm_bytes);

/// `count` more layers of `add` in the mean layer `into` (the ratios beside a collective and
/// the kernels in progress weighted by the parts' seconds).
void add_moe_layers(MoeLayerSplit& into, const MoeLayerSplit& add, int count);

}  // namespace trainsim
