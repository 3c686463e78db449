#pragma once
// DeepEP's and HybridEP's dispatch and combine kernels at their own measured rates
// (parallel.moe_dispatcher = deepep | hybridep), by expert-parallel size and the SMs they run
// on, inside one NVLink domain and across domains; NCCL's all-to-all (alltoall) keeps NCCL's
// measured rate on the simulated links (sim/engine). The measured points are one table
// (dispatcher_rates.cpp, each row cited), per NVLink fabric and for the network, never per
// scenario. A rate is a measurement's logical bandwidth as its benchmark counts it:
// - inside a domain, the token rows a rank receives (from itself too) over the kernel's time:
//   on balance the rows it sends, the all-to-all's send buffer here (models/moe_dispatch.hpp);
// - across domains, the rows a rank sends once per destination node, its own node included
//   (DeepEP's "RDMA" bandwidth; HybridEP's count_rdma_send_from_routing_map, tests/utils.py
//   @ 94a9f8f6), over the whole kernel's time: the NVLink forwarding runs inside it.

#include <optional>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// Where a measured point ran: inside one NVLink domain of an NVLink generation and fabric,
/// or across domains over RDMA (the NICs).
enum class DispatcherFabric { nvlink4_node, nvlink5_node, nvlink5_rack, network };

/// One measured point: `dispatcher` on `ep` ranks with `sms` SMs, dispatch and combine in
/// GB/s (1e9 bytes/s) of logical bandwidth, on hardware whose per-direction line rate (NVLink
/// per GPU, or the NIC) was `line_GBps`.
struct DispatcherPoint {
  MoeDispatcher dispatcher = MoeDispatcher::deepep;
  DispatcherFabric fabric = DispatcherFabric::nvlink4_node;
  int ep = 0;
  int sms = 0;
  double dispatch_GBps = 0;
  double combine_GBps = 0;
  double line_GBps = 0;
};

/// Every measured point (dispatcher_rates.cpp).
const std::vector<DispatcherPoint>& dispatcher_points();

/// A dispatcher's dispatch and combine rates, bytes/s of logical bandwidth.
struct DispatcherRate {
  double dispatch_Bps = 0;
  double combine_Bps = 0;
  /// One rate for a dispatch and its combine together (their harmonic mean): two transfers
  /// of the same bytes at it take what one at each rate takes.
  double pair_Bps() const { return 2.0 / (1.0 / dispatch_Bps + 1.0 / combine_Bps); }
};

/// The fabric `cluster`'s expert group runs on: `network` when it spans NVLink domains, else
/// its domain's NVLink fabric; nullopt where nothing of that kind was measured (A100, the
/// ideal fabric).
std::optional<DispatcherFabric> dispatcher_fabric(const ClusterSpec& cluster, bool across_domains);

/// `dispatcher`'s rates on `fabric` at `ep` ranks and `sms` SMs: the points interpolated
/// linearly in SMs at each measured EP size, then linearly in EP size, each held at its end
/// beyond the points, and scaled by the cluster's line rate over the measured hardware's
/// (`line_Bps`: NVLink per GPU per direction inside a domain, the NIC's across; a stated
/// assumption: the kernels run at a fixed share of the line rate of their fabric's generation).
/// nullopt for alltoall and where `dispatcher` has no point on `fabric`.
std::optional<DispatcherRate> dispatcher_rate(MoeDispatcher dispatcher, DispatcherFabric fabric, int ep, int sms,
                                              double line_Bps);

/// The rate, bytes/s per GPU, at which `scenario`'s dispatcher moves each rank's send buffer
/// of the token all-to-all (dispatch and combine alike, engine::CollectiveCall::kernel_Bps),
/// for a GPU with `local` of its expert group's ranks in its NVLink domain; 0 for NCCL's
/// all-to-all and where the dispatcher was not measured on this fabric (then NCCL's rate).
/// Across domains the measured RDMA rate counts a token once per destination node: on the
/// send buffer it is that rate over models/moe_dispatch.hpp's remote_peer_share.
double dispatcher_kernel_Bps(const Scenario& scenario, int local);

/// The SMs the dispatch and combine kernels of `dispatcher` take while they run, as
/// Megatron-Core configures them (DeepEP 20; HybridEP 24 inside one NVLink domain, 8 when the
/// expert group spans `across_domains`); 0 for NCCL's all-to-all (not stated).
int dispatcher_sms(MoeDispatcher dispatcher, bool across_domains);

/// The SMs a layer's expert-parallel collective holds while it runs beside compute
/// (parallel.moe_a2a_overlap): parallel.moe_dispatcher_sms where set, else dispatcher_sms,
/// and for NCCL's all-to-all its P2P channels' thread blocks (nccl_alltoall_ctas,
/// ep_overlap_cost.hpp). `across_domains`: the GPU's expert group spans NVLink domains.
int ep_overlap_sms(const Scenario& scenario, bool across_domains);

/// How much slower compute runs beside such a collective, as a fraction, where the step does
/// not price it kernel by kernel (ep_overlap_cost.hpp): ep_overlap_sms of the GPU's SMs taken,
/// sms / (sms - taken) as long, on a GPU whose SM count is stated (GpuSpec::sms); on GPUs of
/// no stated count training.overlap_slowdown.
double ep_overlap_slowdown(const Scenario& scenario, bool across_domains);

}  // namespace trainsim
