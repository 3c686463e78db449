#pragma once
// What compute pays beside an expert-parallel collective that overlaps it
// (parallel.moe_a2a_overlap, Megatron-Core's combined 1F1B: stage_pair.hpp): the SMs the
// dispatcher's kernels hold, which the kernels beside them lose (GEMMs in waves of their
// output tiles, as tp_overlap_cost.hpp prices them beside userbuffers), and the HBM
// bandwidth the collective's reads and writes share with them. The collective's own time
// stays on the links (the engine plays it beside the compute).
//
// Measured: a GEMM beside an NCCL all-gather 1.18 -> 2.08 ms on A100, "memory bandwidth"
// (NVIDIA/nccl#1428, sjeaugey); a 132-CTA GEMM beside a 24-CTA all-gather on H100 from ~80 to
// ~47 % MFU, its tiles pushed into a second wave (NVIDIA developer forum thread 337991);
// public.md D6.

#include <vector>

#include "models/op.hpp"
#include "sim/compute/compute_model.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {

/// The CTAs (one an SM) NCCL's all-to-all holds while it runs. Megatron-Core's alltoall
/// dispatcher issues it as grouped ncclSend/ncclRecv to every peer; NCCL plans those on its
/// P2P channels, one thread block each, spreading a round's peers over all of them
/// (src/enqueue.cc scheduleP2pTasksToPlan: channels per peer halved until peers x channels
/// fit p2pnChannels), and p2pnChannels is the communicator's channel count rounded up to a
/// power of two (src/graph/paths.cc ncclTopoComputeP2pChannels; NVIDIA/nccl @ 5067397c). On
/// 8-GPU H100 nodes NCCL logs 24 channels inside one node and 32 P2P channels, 16 and 16 on
/// two nodes (aws-samples/aws-do-eks Container-Root/eks/deployment/nccl-test/README.md
/// @ 701c554a, p5.48xlarge: "24 coll channels, 16 nvls channels, 32 p2p channels" on one
/// node, "16 coll channels, 16 nvls channels, 16 p2p channels" on two).
/// `across_domains`: the expert group spans NVLink domains. A stated assumption for other
/// GPUs, whose logs were not read: the same counts.
int nccl_alltoall_ctas(bool across_domains);

/// The seconds `ops` (one stretch of a pass, `load` as op_load takes it) take while an
/// expert-parallel collective holding `taken` of `gpu`'s SMs runs beside them and moves
/// `comm_hbm_bytes` through this GPU's HBM: each GEMM on the SMs left in waves of its
/// output tiles (sm_share_slowdown, tp_overlap_cost.hpp), every other kernel at the SMs
/// left's share of its time (sms / (sms - taken) as long), and all of them no faster than
/// the HBM moves their bytes and the collective's (GpuSpec::hbm_bandwidth_Bps). Their time
/// alone when the GPU's SM count is unknown or nothing is taken.
double beside_ep_s(const std::vector<Op>& ops, const ComputeModel& compute, double load, const GpuSpec& gpu, int taken,
                   double comm_hbm_bytes);

}  // namespace trainsim
