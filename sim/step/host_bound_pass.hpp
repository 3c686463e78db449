#pragma once
// When the host, not the GPU, sets the pace of a pass: a framework spends host time on every
// op it dispatches (Python, operator dispatch, the first launch; training.kernel_host_time)
// and on every further kernel the op launches from its own C++ loop (the launch call;
// training.kernel_launch_time), and the GPU runs a kernel only once it is launched. Normally
// the host runs ahead and the launch queue hides this; a stretch of kernels shorter on the
// GPU than their launches (the
// many small per-expert GEMMs and quantizations of an MoE layer) runs at the host's pace, and
// after a device-to-host synchronization (Op::host_sync) the queue is empty and the host
// starts from behind.
//
// Model: the ops of one layer's pass, cut at each host_sync op into segments; a segment takes
// max(its GPU time, its host time): the host launches the segment's kernels
// while the GPU runs them, and the later of the two finishes it. Before a host_sync op the
// host waits for the GPU, so the segments add up. Inside a segment the launch queue evens out
// the kernels' differences (the host may run ahead of short kernels on long ones). The host
// work of a segment does not overlap the collectives the step plays between the layer's ops
// (the MoE all-to-alls): an upper bound there.

#include <vector>

#include "models/op.hpp"
#include "sim/compute/compute_model.hpp"

namespace trainsim {

/// Host seconds per op: one dispatch (`op_s`, its first kernel included) and `launch_s` per
/// further kernel it launches (both >= 0).
struct HostLaunchCost {
  double op_s = 0;
  double launch_s = 0;
};

/// Seconds the host adds to the GPU time of `ops` (one layer's ops of one pass, in launch
/// order): the sum over the segments between host_sync ops of max(0, host seconds - GPU
/// seconds), an op's host seconds being op_s + (kernels - 1) x launch_s (0 with op_s = 0).
/// GPU seconds are `compute`'s, the experts' ops scaled by `expert_load` as the step charges
/// them (op_load in stage_costs.hpp).
double host_bound_excess_s(const std::vector<Op>& ops, const ComputeModel& compute, double expert_load,
                           HostLaunchCost host);

}  // namespace trainsim
