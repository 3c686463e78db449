#pragma once
// How many channels (CTAs, one SM each) NCCL runs a collective on, as NVIDIA/nccl states it at
// v2.30.7-1 (73cf1122; src/graph at 5067397c is the same):
//
// - A communicator's CTA limits (ncclConfig_t minCTAs / maxCTAs, defaults 1 and MAXCHANNELS = 64:
//   src/init.cc parseCommConfig) are what the application sets per communicator (Megatron-Core's
//   nccl_communicator_config_path: NVIDIA's MLPerf Training v5.1
//   conf/nccl/custom_communicator_cta.yaml, mlcommons/training_results_v5.1 @ 441d65f4
//   NVIDIA/benchmarks/llama31_8b/implementations/nemo/: dp and dp_cp 1 to 8, tp_dp_cp 1 to 1,
//   pp 1 to 2, ...), but NCCL_MIN_CTAS and NCCL_MAX_CTAS, where set, replace them for every
//   communicator (init.cc envConfigOverride, "Comm config minCTAs reset to NCCL_MIN_CTAS"; the
//   same at v2.27.7-1, the NCCL of NGC 25.09). Then both are capped at 64 and min raised no
//   higher than max (init.cc). The same MLPerf configs export NCCL_MIN_CTAS=16 and
//   NCCL_MAX_CTAS=32 (config_common.sh), so there every communicator runs with 16 to 32.
// - The communicator's channels (connect.cc ncclTopoPostset): the search's channels (search.cc,
//   nccl_rack_model.hpp), doubled ("Duplication should be complete now"), doubled again across
//   nodes on SM90+ when the ring's per-channel speed is above 45 GB/s and fewer than 16 ("4
//   compute channels per search channel"), then cut to maxCTAs and copied up to minCTAs.
// - NVLS and NVLS-tree run on their own channels (src/transport/nvls.cc ncclNvlsTuning): 32 on
//   SM100 across nodes, or ncclNvlsTreeSm100Tuning's 24 or 32, clamped to [minCTAs, maxCTAs].
// - One collective (enqueue.cc topoGetAlgoInfo): ring, tree and PAT drop channels while the
//   buffer is below channels x threads x the protocol's per-thread threshold (Simple 512 threads
//   x 64 bytes, LL 512 x 8 x ranks for the ring and 512 x 8 for the tree, LL128 640 x 8:
//   comm.h, device.h, tuning.cc), down to one; NVLS-tree runs on all of its channels.
//
// What a channel carries (a stated reading, not a line of NCCL): NCCL's model gives a
// bandwidth for the search's channels (tuning.cc: busBw = graph channels x per-channel speed)
// and runs it on the communicator's default channels; each of those carries its share, so a
// collective on fewer channels (a CTA cap, a small buffer) reaches that share times its
// channels, and copies beyond the default (minCTAs) run on the same NICs and add nothing.

namespace trainsim::engine {

/// A communicator's CTA limits: its own config (per communicator) or NCCL_MIN_CTAS /
/// NCCL_MAX_CTAS (every communicator). 0: unset.
struct NcclCtaLimits {
  int min_ctas = 0;
  int max_ctas = 0;
};

inline constexpr int k_nccl_max_channels = 64;  // MAXCHANNELS (src/include/device.h)

/// The limits a communicator runs with: the environment's over its own config, each unset one
/// at NCCL's default (1, 64), both at most 64, min no higher than max (init.cc).
NcclCtaLimits nccl_cta_limits(NcclCtaLimits per_communicator, NcclCtaLimits environment);

/// The communicator's ring and tree channels for `search_channels` of the search at
/// `ring_speed_GBps` each, on `nodes` nodes (NVLink domains), under `limits` (nccl_cta_limits()).
int nccl_comm_channels(int search_channels, double ring_speed_GBps, int nodes, NcclCtaLimits limits);

/// NVLS-tree's channels: `tuned` (ncclNvlsTreeSm100Tuning) clamped to `limits`.
int nccl_nvls_channels(int tuned, NcclCtaLimits limits);

/// The channels one ring, tree or PAT collective of `bytes` runs on, of `comm_channels`, with
/// `threads` threads per channel and `threshold` bytes per thread (enqueue.cc topoGetAlgoInfo).
int nccl_collective_channels(int comm_channels, double bytes, int threads, double threshold);

}  // namespace trainsim::engine
