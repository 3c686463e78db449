#pragma once
// Where a layer's sequence-parallel collectives meet their GEMMs under tp_comm_overlap
// (Transformer Engine userbuffers, Megatron-LM --tp-comm-overlap), and what each GEMM costs
// there: forward, the all-gathers with the GEMMs that consume their output (QKV, the MLP's
// first) and the reduce-scatters with the GEMMs that produce their input (the attention's
// output projection, the MLP's second); backward, the conjugates: the all-gathers of the
// output gradients with the projection's and the MLP's second input-gradient GEMMs, the
// reduce-scatters with QKV's and the MLP's first. The GEMM's own cost beside its collective:
// sim/step/tp_overlap_cost.hpp.

#include <vector>

#include "models/op.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// One slot: the GEMM's seconds alone (part of the pass's compute) and its seconds beside its
/// collective, with the kernels Transformer Engine runs on the compute stream after it.
struct OverlapSlot {
  double gemm_s = 0, beside_s = 0;
};

/// A layer's four slots, in the order their collectives run: all-gather and reduce-scatter of
/// the attention, then of the MLP.
struct LayerOverlap {
  OverlapSlot attention_gather, attention_scatter, mlp_gather, mlp_scatter;
};

/// The bytes of a layer's sequence-parallel all-gather of an `activation_bytes` activation: in
/// fp8 it carries the GEMM inputs (forward) and output gradients (backward) already quantized,
/// one byte an element (Transformer Engine gathers Float8Tensors; see layer_workload.cpp).
double tp_gather_bytes(const Scenario& s, double activation_bytes);

/// The seconds of the kernel that sums a ring-exchange reduce-scatter's partial outputs after
/// its last chunk: Transformer Engine's CommOverlapP2PBase::split_overlap_rs
/// (transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp @ d0067d0d) waits for
/// every chunk's GEMM and peer copy, then runs reduce_bf16 (reduce_fp8_in_bf16_out for an fp8
/// buffer) on the main stream: it reads the tp partial outputs this rank received, the whole
/// `activation_bytes` tensor, and writes its 1/tp share. A streaming kernel, timed by
/// `compute` as any. The pipelined and bulk methods reduce inside their SM kernels, beside the
/// GEMM, and pay nothing here.
double ring_reduce_s(double activation_bytes, int tp, const ComputeModel& compute);

/// The slots of a layer's forward (`forward`) or backward `ops`, as Transformer Engine names
/// their GEMMs; `activation_bytes`: one [b, s/cp, h] activation, what a reduce-scatter
/// carries (an all-gather carries tp_gather_bytes of it). `load`: op_load's expert load.
LayerOverlap layer_overlap(const std::vector<Op>& ops, const Scenario& s, const ComputeModel& compute, double load,
                           double activation_bytes, bool forward);

}  // namespace trainsim
