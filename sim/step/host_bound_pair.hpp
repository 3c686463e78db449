#pragma once
// The dropless sync inside Megatron-Core's combined 1F1B (parallel.moe_a2a_overlap): what the
// host's pace costs a forward-backward pair of MoE layers beyond what it costs each pass alone
// (host_bound_pass.hpp).
//
// TransformerLayerSchedulePlan.run (megatron/core/models/common/model_chunk_schedule_plan.py
// @ d98e8a64) issues one layer of each micro-batch in this order from one host thread: the
// backward's combine gradient, the forward's attention, router and dispatch preprocess
// (pre_dispatch_computation), the backward's experts (mlp.backward), the forward's dispatch
// (moe_dispatch), the backward's expert weight gradients (mlp.backward_dw, where
// delay_wgrad_compute defers them), the backward's dispatch gradient, the forward's experts,
// its combine, the backward's attention. A dropless forward's dispatch blocks the host
// (MoEAlltoAllTokenDispatcher: `d2h_event.synchronize()` at `before_ep_alltoall`, the event
// recorded on the side stream that copies tokens_per_expert and the splits to the host once
// the compute stream has reached the dispatch preprocess; megatron/core/transformer/moe/
// token_dispatcher.py @ d98e8a64, _maybe_dtoh_and_synchronize). So the host waits for the
// forward's attention, router and permutation to end on the GPU, with only the backward's
// experts (and what the host issued before them) still queued; every op after it, the rest
// of both passes' layer, is issued from there at the host's pace, and the GPU runs ahead of
// the host by no more than the backward's experts. Played through one launch queue (a CUDA
// stream runs its kernels in launch order, each once launched: host_bound_pass.hpp), from one
// sync to the next in a steady run of such layers. The all-to-alls run on the communication
// stream (their host cost is left out, as host_bound_pass.hpp leaves out the collectives).

#include <vector>

#include "models/op.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/step/host_bound_pass.hpp"

namespace trainsim {

/// Seconds one MoE layer of a combined-1F1B pair takes beyond its two passes' GPU time
/// (`forward` and `backward`: one layer's ops of each pass in launch order, the backward's
/// weight gradients among them; `delay_wgrad`: the expert weight gradients issued after the
/// forward's dispatch, parallel.delay_wgrad_compute). 0 when the forward has no host sync
/// (static expert shapes, a full-iteration graph), either pass has no experts or the host
/// takes no time (op_s = 0).
double paired_host_excess_s(const std::vector<Op>& forward, const std::vector<Op>& backward,
                            const ComputeModel& compute, double expert_load, HostLaunchCost host, bool delay_wgrad);

}  // namespace trainsim
