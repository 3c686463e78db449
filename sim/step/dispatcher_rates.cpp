#include "sim/step/dispatcher_rates.hpp"

#include <algorithm>
#include <map>

#include "models/moe_dispatch.hpp"
#include "sim/step/ep_overlap_cost.hpp"
#include "sim/step/stage_costs.hpp"

namespace trainsim {

namespace {

using D = MoeDispatcher;
using F = DispatcherFabric;

// The measured points, as their sources print them (GB/s, logical bandwidth). Where a source
// measured both, the "Torch API" figures: the Python call Megatron-Core's flex dispatcher
// makes, its copies out of the kernel's buffers included; the "only kernel" figures of the
// same table run 1.1 to 1.5x faster. The host's wait for the received counts and HybridEP's
// routing-map all-gather are priced on their own (stage_costs.cpp, host_bound_pass.hpp). For
// HybridEP the BF16 dispatch column (Megatron-Core dispatches the layer's activations); DeepEP's
// own H800 figures dispatch FP8 (the only ones it published for its V1 kernels).
//
// - deepseek-ai/DeepEP docs/legacy.md @ dd758caf ("Normal kernels with NVLink and RDMA
//   forwarding"): H800 (NVLink 4, 8 links: 200 GB/s per direction, the h800 preset),
//   one CX7 InfiniBand 400 Gb/s NIC per GPU (50 GB/s), 4,096 tokens, hidden 7,168, top-8,
//   the 24 SMs of its examples (Buffer.set_num_sms(24)). Intranode EP 8: NVLink bottleneck
//   bandwidth; internode EP 16, 32, 64: RDMA bottleneck bandwidth.
// - deepseek-ai/DeepEP docs/README_Hybrid-EP.md on branch hybrid-ep @ 94a9f8f6, "Performance
//   Results", 4,096 tokens, hidden 7,168, top-8, random uniform routing, 8 local experts:
//   H100 over InfiniBand ("IB bandwidth", EP 16-64, 4/8/16 SMs; the NIC is not stated, taken
//   as the DGX H100's 400 Gb/s CX7, a stated assumption), B200 EP 8 (one DGX B200: DeepEP on
//   16-48 SMs, HybridEP on 16), GB200 inside an NVL72 rack (EP 8-36; HybridEP on 16 and 32
//   SMs, DeepEP on 16, 24, 32 up to EP 24).
const std::vector<DispatcherPoint> k_points = {
    // DeepEP, H800 (docs/legacy.md @ dd758caf)
    {D::deepep, F::nvlink4_node, 8, 24, 153, 158, 200},
    {D::deepep, F::network, 16, 24, 43, 43, 50},
    {D::deepep, F::network, 32, 24, 58, 57, 50},
    {D::deepep, F::network, 64, 24, 51, 50, 50},
    // DeepEP, B200 EP 8, Torch API (README_Hybrid-EP.md @ 94a9f8f6, "B200 Platform")
    {D::deepep, F::nvlink5_node, 8, 16, 348, 302, 900},
    {D::deepep, F::nvlink5_node, 8, 24, 494, 420, 900},
    {D::deepep, F::nvlink5_node, 8, 28, 560, 477, 900},
    {D::deepep, F::nvlink5_node, 8, 32, 619, 524, 900},
    {D::deepep, F::nvlink5_node, 8, 36, 635, 549, 900},
    {D::deepep, F::nvlink5_node, 8, 40, 629, 570, 900},
    {D::deepep, F::nvlink5_node, 8, 44, 640, 577, 900},
    {D::deepep, F::nvlink5_node, 8, 48, 646, 586, 900},
    // DeepEP, GB200 NVL72, Torch API ("GB200 Platform", DeepEP table)
    {D::deepep, F::nvlink5_rack, 8, 16, 362.01, 310.21, 900},
    {D::deepep, F::nvlink5_rack, 8, 24, 512.72, 425.95, 900},
    {D::deepep, F::nvlink5_rack, 8, 32, 615.78, 519.57, 900},
    {D::deepep, F::nvlink5_rack, 16, 16, 328.80, 278.34, 900},
    {D::deepep, F::nvlink5_rack, 16, 24, 442.47, 378.32, 900},
    {D::deepep, F::nvlink5_rack, 16, 32, 520.76, 442.51, 900},
    {D::deepep, F::nvlink5_rack, 24, 16, 324.64, 126.53, 900},
    {D::deepep, F::nvlink5_rack, 24, 24, 450.22, 163.62, 900},
    {D::deepep, F::nvlink5_rack, 24, 32, 502.84, 207.10, 900},
    // HybridEP, H100 over InfiniBand, Torch API ("H100 Platform")
    {D::hybridep, F::network, 16, 4, 37.08, 42.47, 50},
    {D::hybridep, F::network, 16, 8, 57.74, 56.96, 50},
    {D::hybridep, F::network, 16, 16, 54.47, 53.35, 50},
    {D::hybridep, F::network, 32, 4, 44.88, 43.60, 50},
    {D::hybridep, F::network, 32, 8, 46.54, 50.68, 50},
    {D::hybridep, F::network, 32, 16, 47.36, 52.53, 50},
    {D::hybridep, F::network, 64, 4, 40.63, 41.00, 50},
    {D::hybridep, F::network, 64, 8, 41.46, 47.68, 50},
    {D::hybridep, F::network, 64, 16, 41.24, 46.57, 50},
    // HybridEP, B200 EP 8, Torch API ("B200 Platform")
    {D::hybridep, F::nvlink5_node, 8, 16, 535.94, 530.86, 900},
    // HybridEP, GB200 NVL72, Torch API ("GB200 Platform", HybridEP table)
    {D::hybridep, F::nvlink5_rack, 8, 16, 550.10, 538.44, 900},
    {D::hybridep, F::nvlink5_rack, 8, 32, 545.71, 568.94, 900},
    {D::hybridep, F::nvlink5_rack, 16, 16, 472.84, 474.48, 900},
    {D::hybridep, F::nvlink5_rack, 16, 32, 523.48, 521.55, 900},
    {D::hybridep, F::nvlink5_rack, 24, 16, 441.89, 444.40, 900},
    {D::hybridep, F::nvlink5_rack, 24, 32, 507.32, 483.76, 900},
    {D::hybridep, F::nvlink5_rack, 32, 16, 485.50, 423.19, 900},
    {D::hybridep, F::nvlink5_rack, 32, 32, 484.22, 464.54, 900},
    {D::hybridep, F::nvlink5_rack, 36, 16, 469.96, 418.27, 900},
    {D::hybridep, F::nvlink5_rack, 36, 32, 479.02, 447.89, 900},
};

DispatcherRate mix(const DispatcherRate& a, const DispatcherRate& b, double t) {
  return {a.dispatch_Bps + t * (b.dispatch_Bps - a.dispatch_Bps), a.combine_Bps + t * (b.combine_Bps - a.combine_Bps)};
}

// Linear interpolation of (x, rate) points sorted by x at `x`, held at the ends.
DispatcherRate interpolate(const std::vector<std::pair<double, DispatcherRate>>& points, double x) {
  if (x <= points.front().first) return points.front().second;
  if (x >= points.back().first) return points.back().second;
  for (size_t i = 1; i < points.size(); ++i)
    if (x <= points[i].first) {
      const auto& [x0, y0] = points[i - 1];
      const auto& [x1, y1] = points[i];
      return mix(y0, y1, (x - x0) / (x1 - x0));
    }
  return points.back().second;
}

}  // namespace

const std::vector<DispatcherPoint>& dispatcher_points() { return k_points; }

std::optional<DispatcherFabric> dispatcher_fabric(const ClusterSpec& cluster, bool across_domains) {
  if (cluster.fabric == Fabric::ideal) return std::nullopt;
  if (across_domains) return F::network;
  // By the NVLink generation of the GPU's preset (gpu.nvlink_generation).
  if (cluster.gpu.nvlink_generation == 4) return F::nvlink4_node;
  if (cluster.gpu.nvlink_generation == 5) return cluster.nodes_per_domain() > 1 ? F::nvlink5_rack : F::nvlink5_node;
  return std::nullopt;
}

std::optional<DispatcherRate> dispatcher_rate(MoeDispatcher dispatcher, DispatcherFabric fabric, int ep, int sms,
                                              double line_Bps) {
  // EP size -> (SMs, rate) of the points measured there.
  std::map<int, std::vector<std::pair<double, DispatcherRate>>> by_ep;
  double measured_line_Bps = 0;
  for (const DispatcherPoint& p : k_points)
    if (p.dispatcher == dispatcher && p.fabric == fabric) {
      by_ep[p.ep].push_back({static_cast<double>(p.sms), {p.dispatch_GBps * 1e9, p.combine_GBps * 1e9}});
      measured_line_Bps = p.line_GBps * 1e9;
    }
  if (by_ep.empty() || !(line_Bps > 0)) return std::nullopt;
  std::vector<std::pair<double, DispatcherRate>> at_sms;
  for (auto& [size, points] : by_ep) {
    std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    at_sms.push_back({static_cast<double>(size), interpolate(points, sms)});
  }
  DispatcherRate r = interpolate(at_sms, ep);
  const double scale = line_Bps / measured_line_Bps;
  return DispatcherRate{r.dispatch_Bps * scale, r.combine_Bps * scale};
}

double dispatcher_kernel_Bps(const Scenario& s, int local) {
  const ParallelSpec& p = s.parallel;
  if (p.moe_dispatcher == MoeDispatcher::alltoall || p.ep <= 1 || !s.model.is_moe()) return 0.0;
  const bool across = local < p.ep;
  const auto fabric = dispatcher_fabric(s.cluster, across);
  if (!fabric) return 0.0;
  const int sms = p.moe_dispatcher_sms > 0 ? p.moe_dispatcher_sms : dispatcher_sms(p.moe_dispatcher, across);
  const double line_Bps = across ? s.cluster.nic_bandwidth_Bps : s.cluster.nvlink_bandwidth_Bps;
  const auto rate = dispatcher_rate(p.moe_dispatcher, *fabric, p.ep, sms, line_Bps);
  if (!rate) return 0.0;
  return across ? rate->pair_Bps() / remote_peer_share(s.model, p, local) : rate->pair_Bps();
}

// The SMs a dispatcher's dispatch and combine kernels run on, as Megatron-Core launches them
// with moe_flex_dispatcher_num_sms unset: DeepEP on 20 (token_dispatcher.py @ d98e8a64, "None
// -> 20", set_deepep_num_sms; DeepSeek-V3 §3.2.2 also runs its all-to-alls on 20); HybridEP on
// its own defaults, 24 inside one NVLink domain and 8 when the group spans several
// (deepseek-ai/DeepEP hybrid-ep @ 94a9f8f6, csrc/hybrid_ep/config.cuh, Configurer: "(num_of_nodes
// == 1) ? 24 : 8"). 0 for NCCL's all-to-all (its SMs: nccl_alltoall_ctas).
int dispatcher_sms(MoeDispatcher dispatcher, bool across_domains) {
  switch (dispatcher) {
    case MoeDispatcher::deepep:
      return 20;
    case MoeDispatcher::hybridep:
      return across_domains ? 8 : 24;
    case MoeDispatcher::alltoall:
      return 0;
  }
  return 0;
}

int ep_overlap_sms(const Scenario& s, bool across_domains) {
  // parallel.moe_dispatcher_sms is refused with alltoall (sim/scenario/scenario_fields_parallel.cpp).
  if (s.parallel.moe_dispatcher_sms > 0) return s.parallel.moe_dispatcher_sms;
  if (s.parallel.moe_dispatcher == MoeDispatcher::alltoall) return nccl_alltoall_ctas(across_domains);
  return dispatcher_sms(s.parallel.moe_dispatcher, across_domains);
}

double ep_overlap_slowdown(const Scenario& s, bool across_domains) {
  const int sms = s.cluster.gpu.sms;
  const int taken = ep_overlap_sms(s, across_domains);
  if (taken > 0 && sms > taken) return static_cast<double>(taken) / (sms - taken);
  return s.training.overlap_slowdown;
}

}  // namespace trainsim
