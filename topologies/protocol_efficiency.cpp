#include "topologies/protocol_efficiency.hpp"

#include <string>

#include "topologies/fabric_calibration.hpp"

namespace trainsim {

namespace {

// SimuMax states NVLink 5 as 900 "gbps" and times a transfer as bytes / (gbps x 1024^3 x
// efficiency) (simumax/core/config.py, compute_net_op_time): its efficiencies are fractions
// of 900 GiB/s, i.e. of 900 GB/s x 1.0737.
constexpr double k_simumax_unit = 1024.0 * 1024.0 * 1024.0 / 1e9;

// NVLink 4 (H100, H200), NVLS: 8 x H100 all-reduce ~480 GB/s busbw, "algbw ~275" (public.md
// D2, sjeaugey), of the ideal 450 / (1 + 1/8) = 400 GB/s: 0.6875.
constexpr double k_nvlink4_nvls = 275.0 / (450.0 / (1.0 + 1.0 / 8.0));
// NVLink 4, NVLS-tree on 2 DGX H100 nodes: 440.58 GB/s busbw at 8 GiB (public.md D2,
// coreweave/nccl-tests PR #92), algbw 440.58 / (2 x 15/16) = 235.0, of 450 / (1 + 1/8): 0.587.
// The NICs (8 x 47 GB/s, each carrying S/8 each way on 2 nodes) would allow 376 GB/s algbw,
// so the NVLS stage sets the pace, at 0.85 of NVLS alone. HGX H100's 2-node "470"
// (public.md D2, nccl-tests#309) is 6.7 % above it.
constexpr double k_nvlink4_nvls_tree = 440.58 / (2.0 * 15.0 / 16.0) * (1.0 + 1.0 / 8.0) / 450.0;
// NVLink 4, all-to-all (nccl-tests alltoall_perf, public.md D5: NVIDIA/nccl-tests#212 and
// #267, NVIDIA/nccl#2169): 500 MB on 4 H100 at 334.90 GB/s busbw of 450 GB/s per direction,
// and 10.5 to 11.1 us from 128 B to 4 KB, the floor NCCL's point-to-point path pays whatever
// the size. The 4-GPU efficiency and floor stand for every group inside one node (a stated
// assumption: no sweep by GPU count is published).
const MeasuredCollective k_nvlink4_all_to_all{334.90 / 450.0, 0.0, 10.5e-6, {}, true};

// NVLink 5 inside one domain (MooreThreads/SimuMax @ 4dcaae5 `configs/system/b200_bf16_ceperm.json`,
// public.md D4; copy in ../shared/data/simumax/): NCCL collectives measured on 8 x B200,
// "high_intra_node" (latencies in us, per step and fixed). SimuMax fits them with the ring's
// volume, so all-reduce stands for whatever NCCL ran inside the node.
void nvlink5_measured(ProtocolEfficiency& e) {
  e.all_reduce = {0.7424 * k_simumax_unit, 5.5183e-6, 22.2316e-6, {}};
  e.all_gather = {0.6735 * k_simumax_unit, 9.1828e-6, 23.1049e-6, {}};
  e.reduce_scatter = {0.6731 * k_simumax_unit, 8.0325e-6, 25.5604e-6, {}};
  e.all_to_all = {0.5968 * k_simumax_unit, 7.3039e-6, 0.0, {{2, 51.0578e-6}, {4, 19.2102e-6}}};
  // The links carry the all-reduce's rate (717 GB/s); the others scale their bytes to theirs.
  e.nvlink = e.all_reduce.efficiency;
}

// The user's nccl-tests fit (fabric_calibration.hpp) in place of the built-in measurements:
// its bus bandwidth as a fraction of NVLink's line rate, its latencies, and the smallest sizes
// as measured (the fit covers whatever protocol NCCL ran for them). The links' own rate
// (e.nvlink) stays: an all-reduce that ran NVLS can exceed the ring's line rate.
void apply_fabric_calibration(const FabricCalibration& f, double nvlink_Bps, ProtocolEfficiency& e) {
  MeasuredCollective* targets[k_calibrated_collectives] = {&e.all_reduce, &e.all_gather, &e.reduce_scatter,
                                                           &e.all_to_all, &e.send_recv};
  for (int i = 0; i < k_calibrated_collectives; ++i) {
    const FittedCollective& c = f[static_cast<CalibratedCollective>(i)];
    if (!c.fitted() || !(nvlink_Bps > 0)) continue;
    *targets[i] = MeasuredCollective{c.bus_bandwidth_Bps / nvlink_Bps, c.step_latency_s, c.fixed_latency_s, {}, true,
                                     true};
  }
}

}  // namespace

double MeasuredCollective::latency_s(int ranks, double steps) const {
  double fixed = fixed_latency_s;
  for (const auto& [n, s] : fixed_latency_by_ranks_s)
    if (n == ranks) fixed = s;
  return fixed + step_latency_s * steps;
}

ProtocolEfficiency protocol_efficiency(const ClusterSpec& c) {
  ProtocolEfficiency e;
  if (c.fabric == Fabric::ideal) {
    e.nvlink_source = e.network_source = "line rate (the ideal fabric)";
    return e;
  }
  // By the NVLink generation of the GPU's preset (gpu.nvlink_generation): the measurements
  // below are one GPU's each, standing for every GPU of that generation.
  const int nvlink = c.gpu.nvlink_generation;
  // NVLink 3 (A100): all-reduce busbw 234.89 GB/s of 300 GB/s per direction = 0.783
  // (public.md D2, stas00/ml-engineering; NCCL's own sm80 cap is 235 GB/s, public.md D1).
  // A100's NVSwitch cannot reduce (NCCL's nvlsEfficiency is 0 for Ampere: NVIDIA/nccl
  // src/graph/tuning.cc at 5067397c).
  if (nvlink == 3) {
    e.nvlink = 234.89 / 300.0;
    e.nvlink_source =
        "nccl-tests all-reduce on 8 x A100, 234.89 GB/s busbw (stas00/ml-engineering@744d01e1 network/README.md)";
  }
  // NVLink 4 (H100, H200): ring busbw ~370 GB/s of 450 GB/s ("~20% protocol overhead",
  // public.md D2, NVIDIA/nccl-tests#212 and NVIDIA/nccl#1442, sjeaugey) = 0.822. All-gather
  // and reduce-scatter measure within 2 % of it (361.4 / 362.9 on 8 H200): one ratio.
  // H800: the same NVLink 4 links, fewer of them (a stated assumption: the per-link efficiency
  // carries over; DeepEP's 153 GB/s intranode dispatch of 200 per direction, 0.765, public.md D5).
  if (nvlink == 4) {
    e.nvlink = 370.0 / 450.0;
    e.nvlink_source =
        c.gpu.name == "h800" ? "the H100's NVLink 4 figure, a stated assumption: nccl-tests ring ~370 GB/s busbw on 8 x H100 "
                        "(NVIDIA/nccl-tests#212)"
                      : "nccl-tests ring ~370 GB/s busbw on 8 x H100 (NVIDIA/nccl-tests#212, NVIDIA/nccl#1442)";
    e.nvls = k_nvlink4_nvls;
    e.nvls_tree = k_nvlink4_nvls_tree;
    e.all_to_all = k_nvlink4_all_to_all;
  }
  // NVLink 5 (B200, GB200, B300, GB300): SimuMax's measured B200 collectives inside a domain.
  // NVLS per NVLink fabric:
  // - the NVSwitch chips of one DGX/HGX B200 node: 8 x B200 all-reduce "830+" GB/s busbw
  //   (public.md D2, NVIDIA/nccl#1807, NCCL 2.27), algbw 830 / (2 x 7/8) = 474, of
  //   900 / (1 + 1/8): 0.593 (NCCL's own nvlsEfficiency falls from 0.85 on Hopper to 0.74 on
  //   Blackwell, tuning.cc at 5067397c: 0.6875 x 0.74/0.85 = 0.599, consistent);
  // - the NVLink Switch System of an NVL72 rack (72 GPUs through 9 switch trays): a full
  //   rack's all-reduce at 512 MiB .. 8 GiB, 586.1 .. 846.8 GB/s busbw (public.md D2,
  //   coreweave/nccl-tests PR #43). With the NVLink 5 latency of 2 x 71 steps
  //   (sim/engine/domain_collective.hpp: 0.81 ms), the per-GPU NVLS rate that fits the ten
  //   values best (least squares of the log error) is 471.5 GB/s, 0.524 of 900; each of the
  //   ten then within 8 %.
  // NVLS-tree's NVLS stage keeps NVLink 4's measured ratio to NVLS (0.85): a stated assumption,
  // no NVLink 5 row has that stage as its bound (2 DGX B200 nodes are bound by the NICs).
  if (nvlink == 5) {
    nvlink5_measured(e);
    e.nvlink_source =
        "NCCL all-reduce on 8 x B200, 0.7424 of 900 GiB/s "
        "(MooreThreads/SimuMax@4dcaae5 configs/system/b200_bf16_ceperm.json)";
    const bool nvl_rack = c.physical_domain_gpus() > c.gpus_per_node;
    e.nvls = nvl_rack ? 471.5 / 900.0 : 830.0 / (2.0 * 7.0 / 8.0) * (1.0 + 1.0 / 8.0) / 900.0;
    e.nvls_tree = e.nvls * k_nvlink4_nvls_tree / k_nvlink4_nvls;
  }
  // InfiniBand HDR 200 Gb/s: ~24 GB/s of all-reduce busbw per NIC of 25 GB/s = 0.96
  // (public.md D2, NVIDIA/nccl-tests#119, sjeaugey).
  // InfiniBand NDR 400 Gb/s: "46-48 GB/s per NIC" of 50 GB/s, midpoint 47 -> 0.94
  // (public.md D2, NVIDIA/nccl-tests#290, AddyLaddy).
  if (c.nic_bandwidth_Bps == 200e9 / 8) {
    e.network = 24.0 / 25.0;
    e.network_source = "nccl-tests, ~24 GB/s all-reduce busbw per 200 Gb/s HDR NIC (NVIDIA/nccl-tests#119)";
  }
  if (c.nic_bandwidth_Bps == 400e9 / 8) {
    e.network = 47.0 / 50.0;
    e.network_source = "nccl-tests, 46-48 GB/s per 400 Gb/s NDR NIC (NVIDIA/nccl-tests#290)";
  }
  // InfiniBand XDR 800 Gb/s (Quantum-X800, ConnectX-8 on GB300 NVL72): public.md has no NCCL
  // measurement at 800 Gb/s, so it keeps NDR's 0.94, a stated assumption.
  if (c.nic_bandwidth_Bps == 800e9 / 8) {
    e.network = 47.0 / 50.0;
    e.network_source =
        "NDR's figure, a stated assumption (no 800 Gb/s measurement): nccl-tests, 46-48 GB/s per 400 Gb/s NIC "
        "(NVIDIA/nccl-tests#290)";
  }
  if (c.fabric_calibration) apply_fabric_calibration(*c.fabric_calibration, c.nvlink_bandwidth_Bps, e);
  // Ethernet AI fabrics, whatever their speed (400 or 800 Gb/s), at the effective data
  // throughput NVIDIA states for them at scale (NVIDIA newsroom, "NVIDIA Ethernet Networking
  // Accelerates World's Largest AI Supercomputer, Built by xAI", 28 Oct 2024): Spectrum-X
  // "maintained 95% data throughput enabled by Spectrum-X congestion control", where
  // "standard Ethernet ... creates thousands of flow collisions while delivering only 60%
  // data throughput". Vendor figures, not NCCL measurements: stated, not fitted.
  if (c.network == Network::spectrum_x || c.network == Network::roce) {
    e.network = c.network == Network::spectrum_x ? 0.95 : 0.60;
    e.network_source = "NVIDIA's stated Ethernet data throughput (NVIDIA newsroom, 28 Oct 2024), not a measurement";
  }
  return e;
}

}  // namespace trainsim
