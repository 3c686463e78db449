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
// Model: the ops of one layer's pass, cut at each host_sync op into segments, played through
// one launch queue (a CUDA stream runs its kernels in launch order, each once the host has
// launched it and the one before it has ended: CUDA C++ Programming Guide, "Streams"): the
// host spends its dispatch on an op's first kernel and its launch call on each further one
// (an op's GPU time shared evenly among its kernels); a kernel starts at the later of its
// launch and the end of the kernel before it. At a host_sync op the host waits for the GPU to
// drain, so the GPU starts the next stretch idle, waiting for the host's next launch. A pass
// with syncs is played as the period a stack of such layers repeats: from one sync to the
// same sync of the next layer (the ops after the last sync run on into the next layer's ops
// before its first sync, the queue carried over); a pass without one at the later of its GPU
// and host times, as a long run of such layers settles to. The host work of a segment does
// not overlap the collectives the step plays between the layer's ops (the MoE all-to-alls):
// an upper bound there; the host's own calls of them (c10d, Op::collective_calls) are counted
// before the op that follows each.

#include <cstddef>
#include <vector>

#include "models/op.hpp"
#include "models/training_spec.hpp"
#include "sim/compute/compute_model.hpp"
#include "topologies/host_cost.hpp"

namespace trainsim {

/// Host seconds per op: one dispatch (`op_s`, its first kernel included) and `launch_s` per
/// further kernel it launches (both >= 0); a Transformer Engine module call dispatches in
/// `module_factor` x op_s, and a kernel a module launches from inside costs launch_s
/// (module_host_call.hpp).
struct HostLaunchCost {
  double op_s = 0;
  double launch_s = 0;
  double module_factor = 1;
  /// A grouped GEMM's per-expert GEMM costs this beyond launch_s (topologies/host_cost.hpp).
  double gemm_setup_s = 0;
  /// A torch.distributed collective call costs this beyond its op_s (Op::collective_calls).
  double collective_s = 0;
  /// Each weight a weight-gradient op hands back to autograd costs this (its AccumulateGrad
  /// and Transformer Engine's per-weight work, topologies/host_cost.hpp).
  double weight_gradient_s = 0;
  /// A Python view or slice of a tensor costs this (topologies/host_cost.hpp).
  double tensor_view_s = 0;
};

/// The scenario's host costs: training.kernel_host_time and kernel_launch_time where set, else
/// the host type's measured ones (topologies/host_cost.hpp).
HostLaunchCost host_launch_cost(const TrainingSpec& training, HostCpu host);

/// Host seconds before `op`'s first kernel: op_s for a framework op, module_factor x op_s for a
/// Transformer Engine module call, launch_s for a kernel a module launches from inside
/// (module_host_call.hpp), and before it op_s + collective_s for each collective the host
/// calls first (Op::collective_calls), and weight_gradient_seconds; 0 when op_s is 0 (no host
/// model).
double first_launch_seconds(const Op& op, HostLaunchCost host);

/// Host seconds `op` spends handing its weights' gradients back to autograd: for a weight
/// gradient GEMM one weight_gradient_s per weight (gemm.batch of them: a grouped GEMM's every
/// expert has its own weight, Transformer Engine's GroupedLinear weight0..weightN-1), 0 for any
/// other op and when op_s is 0 (no host model). The host does it after the op's kernels are
/// launched; it is counted before its first one (first_launch_seconds), as one pass's total.
double weight_gradient_seconds(const Op& op, HostLaunchCost host);

/// Host seconds before each of `op`'s further kernels: launch_s, and for a grouped GEMM (one
/// GEMM per local expert) gemm_setup_s more, the cuBLASLt set-up of each expert's GEMM
/// (module_host_call.hpp); 0 when op_s is 0 (no host model).
double further_launch_seconds(const Op& op, HostLaunchCost host);

/// Host seconds before `op`'s kernel `k` (from 0), launched eagerly: first_launch_seconds for
/// the first, a framework op's op_s for each further one of its `calls` (each a Python-level
/// call: a torch op or a Triton launch), further_launch_seconds for the rest.
double kernel_launch_seconds(const Op& op, int k, HostLaunchCost host);

/// Host seconds to dispatch `op`: first_launch_seconds, then further_launch_seconds for each
/// further kernel.
double host_seconds(const Op& op, HostLaunchCost host);

/// Host seconds to dispatch `ops[i]` (one layer's pass, in launch order): host_seconds, or
/// under a CUDA graph (Op::graph_scope) the replay at the graph's first op and nothing for the
/// ops after it in the same graph (models/cuda_graphs.hpp, continues_graph: a layer's per-layer
/// scopes are one graph), each weight's gradient handed back apart. A full-iteration graph: one
/// op's dispatch per layer pass. A per-layer graph's replay is a Transformer Engine module call,
/// module_factor x op_s: Megatron-Core's _te_cuda_graph_replay (transformer_layer.py and
/// module.py @ d48bd6be: the replay arguments, a manual forward hook per captured module with
/// parameters) calls TE's graphed callable (graph.py @ v2.14: new_fwd, functionalized, then
/// Graphed.apply over the user inputs and every parameter of the layer, and in the backward
/// Graphed.backward's Python), the path of a TE module's forward (its autograd function over
/// its weights) and backward, whose host time over a torch op's NVIDIA/TransformerEngine#2053
/// measures (a stated rule: no replay's host time is measured). Before it, one framework op per
/// tensor it copies into the graph's static buffers (models/cuda_graphs.hpp,
/// graph_replay_copies); the copies' GPU time (an activation read and written, tens of us) is
/// left out.
double graph_host_seconds(const std::vector<Op>& ops, std::size_t i, HostLaunchCost host);

/// One stretch of a pass between host syncs, as the host and the GPU spend it.
struct HostSegment {
  std::size_t first_op = 0;  ///< index of its first op in the pass
  std::size_t ops = 0;
  int kernels = 0;
  bool after_sync = false;  ///< its first op is a host_sync op: the launch queue starts empty
  double gpu_s = 0;         ///< the GPU's busy time
  double host_s = 0;        ///< the host's time launching it
  /// The host idle at the sync that ends the segment, waiting for the GPU to drain (0 when
  /// no sync follows: the host runs ahead into what comes next).
  double host_waits_s = 0;
  /// The segment's time in the launch queue: from the end of the segment before it (the
  /// sync, where one starts it) to its last kernel's end, or to the sync that ends it.
  double time_s = 0;
  /// The GPU idle, waiting for the host's launches.
  double gpu_waits_s() const { return time_s > gpu_s ? time_s - gpu_s : 0.0; }
};

/// The segments of `ops` (one layer's ops of one pass, in launch order), cut before each
/// host_sync op. GPU seconds are `compute`'s, the experts' ops scaled by `expert_load` as the
/// step charges them (op_load in stage_costs.hpp); with op_s = 0 the host takes no time.
std::vector<HostSegment> host_segments(const std::vector<Op>& ops, const ComputeModel& compute, double expert_load,
                                       HostLaunchCost host);

/// Seconds the host adds to the GPU time of `ops` (one layer's ops of one pass, in launch
/// order): the sum of its segments' GPU waits (host_segments).
double host_bound_excess_s(const std::vector<Op>& ops, const ComputeModel& compute, double expert_load,
                           HostLaunchCost host);

}  // namespace trainsim
