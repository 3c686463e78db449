#pragma once
// How much slower compute runs beside NCCL's gradient and parameter collectives (the gradient
// reduce-scatters and all-reduces, ZeRO's parameter all-gathers; ring attention's exchange keeps
// training.overlap_slowdown):
// NCCL runs a collective as one CTA per channel, each CTA resident on one SM for the whole
// collective, so the kernels beside it run on the rest.
//
// Sources: NVIDIA/nccl @ 5067397c, src/init.cc envConfigOverride (NCCL_MIN_CTAS and
// NCCL_MAX_CTAS set every communicator's config.minCTAs / maxCTAs, over what the application's
// per-communicator config gives), src/graph/connect.cc ncclTopoPostset (the searched channels,
// doubled, are cut to maxCTAs and then copied up to max(NCCL_MIN_NCHANNELS, minCTAs):
// comm->collChannels, the channels a bandwidth-bound collective runs on). NVIDIA's MLPerf
// Training v5.1 GB200 configs export NCCL_MIN_CTAS=16 and NCCL_MAX_CTAS=32
// (mlcommons/training_results_v5.1 @ 441d65f4,
// NVIDIA/benchmarks/llama31_8b/implementations/nemo/config_common.sh; the 405B's likewise):
// each collective holds at least 16 SMs. On a GB200 that floor is also what NCCL's search
// gives inside the rack: it fills the GPU's 18 NVLink 5 links at 40.1 GB/s each (src/graph/
// topo.h SM100_NVLINK_BW: 721.8 GB/s) with rings at the first speed Blackwell tries, 90 GB/s
// (search.cc sm100SpeedArrayIntra): 8 channels, doubled to 16 (connect.cc). Across racks the
// search's rings are fewer (one NIC per GPU at 400 Gb/s) and the floor lifts them to 16. So
// cluster.nccl_min_ctas is the count taken; a search past the floor is not modelled.
//
// Compute beside it runs sms / (sms - ctas) as long (its work spread over the SMs left), as
// DeepEP's and HybridEP's kernels slow it (dispatcher_rates.hpp). Without a stated CTA count
// or SM count (GpuSpec::sms) the flat training.overlap_slowdown stands in.

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// The fraction by which compute beside one of NCCL's collectives runs longer: ctas / (sms -
/// ctas) for `ctas` of a GPU's `sms`; `fallback` where either is unstated (0) or ctas >= sms.
double nccl_overlap_slowdown(int sms, int ctas, double fallback);

/// nccl_overlap_slowdown at the scenario's cluster.nccl_min_ctas, the GPU's SM count and
/// training.overlap_slowdown.
double nccl_overlap_slowdown(const Scenario& scenario);

}  // namespace trainsim
