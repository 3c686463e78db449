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
// Each op is priced beside the collective by what it runs short of (nccl_op_slowdown):
// - A GEMM by the waves of its output tiles on the SMs the CTAs leave
//   (tp_overlap_cost.hpp's tiles). How the waves fall depends on how the GEMM launches
//   (gemm_launch): one CTA per tile takes the SMs as they free (waves over sms - ctas); a
//   Hopper persistent kernel launches min(sms, tiles) CTAs, each with a fixed share of the
//   tiles, so with ctas SMs held the CTAs that find no SM run theirs after the first ones
//   end: the second wave NVIDIA's developer forum measured (thread 337991: a 132-CTA GEMM
//   beside a 24-CTA all-gather on an H100, its MFU ≈ 80 % → ≈ 47 %).
// - Every other op by its work spread over the SMs left, sms / (sms - ctas), as DeepEP's and
//   HybridEP's kernels slow it (dispatcher_rates.hpp).
// - Every op, GEMM or not, no faster than the HBM moves its bytes beside the collective's own
//   HBM traffic: NCCL stores what it receives to memory and reads it back, and reads or
//   writes the user buffers, 3x the bytes its link carries (NVIDIA/nccl#1428, sjeaugey: "at
//   least 2x ... it can be 3x"; measured there on an A100: a GEMM 1.18 → 2.08 ms, attention
//   0.18 → 0.33 ms beside an all-gather, "competing for memory bandwidth").
// A pass's compute is slowed by its ops' slowdowns weighted by their time (PassCost::
// nccl_extra_s over compute_s, nccl_pass_slowdown); without a stated CTA count or SM count (GpuSpec::sms) the flat
// training.overlap_slowdown stands in.

#include "models/op.hpp"
#include "sim/scenario/scenario.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {

/// The CTAs (SMs) one of NCCL's gradient or parameter collectives holds: cluster.nccl_min_ctas
/// (0: not stated).
int nccl_overlap_ctas(const Scenario& scenario);

/// The fraction by which compute beside one of NCCL's collectives runs longer: ctas / (sms -
/// ctas) for `ctas` of a GPU's `sms`; `fallback` where either is unstated (0) or ctas >= sms.
double nccl_overlap_slowdown(int sms, int ctas, double fallback);

/// nccl_overlap_slowdown at nccl_overlap_ctas, the GPU's SM count and training.overlap_slowdown.
double nccl_overlap_slowdown(const Scenario& scenario);

/// How a GEMM kernel spreads its output tiles over the SMs.
enum class GemmLaunch {
  per_tile,            ///< one CTA per tile, each started as an SM frees
  persistent_static,   ///< min(sms, tiles) CTAs, tile i to CTA i mod grid (Hopper)
  persistent_dynamic,  ///< one CTA per tile, running CTAs taking the unstarted ones' tiles (Blackwell)
};

/// How cuBLAS's and CUTLASS's GEMMs launch on the GPU's architecture (GpuSpec::architecture).
GemmLaunch gemm_launch(const GpuSpec& gpu);

/// How much longer a persistent kernel of `grid` CTAs sharing `tiles` tiles (tile i to CTA i
/// mod grid) takes on `slots` SMs than on `grid`: its CTAs started in order as SMs free.
double persistent_slowdown(double tiles, int grid, int slots);

/// How much longer a GEMM of shape `g` runs with `ctas` of the GPU's SMs held (1 when none).
double nccl_gemm_slowdown(const GemmShape& g, const GpuSpec& gpu, int ctas);

/// What an op runs beside NCCL's collectives: its CTAs and the HBM bytes per second its
/// traffic moves on this GPU.
struct NcclBeside {
  GpuSpec gpu;
  int ctas = 0;
  double hbm_Bps = 0;  ///< NCCL's own HBM traffic: 3x its link's bytes per second
};

/// The scenario's: nccl_overlap_ctas, and the data-parallel group's link (NVLink inside one
/// NVLink domain, the GPU's NICs across domains) at 3x.
NcclBeside nccl_beside(const Scenario& scenario);

/// The fraction by which a pass's compute runs longer beside the collective: `extra_s` (its
/// ops' added seconds, PassCost::nccl_extra_s) over its `compute_s`, where the scenario states
/// the CTA and SM counts; else nccl_overlap_slowdown(scenario) (the flat fallback).
double nccl_pass_slowdown(double extra_s, double compute_s, const Scenario& scenario);

/// How much longer `op`, `op_s` alone, runs beside the collective: its SMs' slowdown, and no
/// faster than the HBM moves its bytes beside NCCL's (1 when no CTA or SM count is stated).
double nccl_op_slowdown(const Op& op, double op_s, const NcclBeside& beside);

}  // namespace trainsim
