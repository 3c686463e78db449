#include "topologies/protocol_efficiency.hpp"

#include <string>

namespace trainsim {

ProtocolEfficiency protocol_efficiency(const ClusterSpec& c) {
  ProtocolEfficiency e;
  if (c.fabric == Fabric::ideal) return e;
  const std::string& gpu = c.gpu.name;
  // NVLink 3 (A100): all-reduce busbw 234.89 GB/s of 300 GB/s per direction = 0.783
  // (public.md D2, stas00/ml-engineering; NCCL's own sm80 cap is 235 GB/s, public.md D1).
  if (gpu.rfind("a100", 0) == 0) e.nvlink = 234.89 / 300.0;
  // NVLink 4 (H100, H200): ring busbw ~370 GB/s of 450 GB/s ("~20% protocol overhead",
  // public.md D2, NVIDIA/nccl-tests#212 and NVIDIA/nccl#1442, sjeaugey) = 0.822.
  if (gpu.rfind("h100", 0) == 0 || gpu.rfind("h200", 0) == 0) {
    e.nvlink = 370.0 / 450.0;
    // NVLink SHARP on the third-generation NVSwitch: 8 x H100 all-reduce ~480 GB/s busbw,
    // "algbw ~275" (public.md D2, sjeaugey), of the ideal 450 / (1 + 1/8) = 400 GB/s: 0.6875.
    // A100's NVSwitch cannot reduce (NCCL's nvlsEfficiency is 0 for Ampere: NVIDIA/nccl
    // src/graph/tuning.cc at 5067397c).
    e.nvls = 275.0 / (450.0 / (1.0 + 1.0 / 8.0));
  }
  // NVLink 5 (B200, GB200, B300, GB300): public.md has no NCCL measurement on NVLink 5, so
  // Blackwell keeps NVLink 4's ratios (ring 0.822, NVLS 0.6875) as a stated assumption, not
  // fitted, until one is added.
  for (const char* blackwell : {"b200", "gb200", "b300", "gb300"})
    if (gpu == blackwell) {
      e.nvlink = 370.0 / 450.0;
      e.nvls = 275.0 / (450.0 / (1.0 + 1.0 / 8.0));
    }
  // InfiniBand HDR 200 Gb/s: ~24 GB/s of all-reduce busbw per NIC of 25 GB/s = 0.96
  // (public.md D2, NVIDIA/nccl-tests#119, sjeaugey).
  // InfiniBand NDR 400 Gb/s: "46-48 GB/s per NIC" of 50 GB/s, midpoint 47 -> 0.94
  // (public.md D2, NVIDIA/nccl-tests#290, AddyLaddy).
  if (c.nic_bandwidth_Bps == 200e9 / 8) e.network = 24.0 / 25.0;
  if (c.nic_bandwidth_Bps == 400e9 / 8) e.network = 47.0 / 50.0;
  // InfiniBand XDR 800 Gb/s (Quantum-X800, ConnectX-8 on GB300 NVL72): public.md has no NCCL
  // measurement at 800 Gb/s, so it keeps NDR's 0.94, a stated assumption.
  if (c.nic_bandwidth_Bps == 800e9 / 8) e.network = 47.0 / 50.0;
  // Ethernet AI fabrics, whatever their speed (400 or 800 Gb/s), at the effective data
  // throughput NVIDIA states for them at scale (NVIDIA newsroom, "NVIDIA Ethernet Networking
  // Accelerates World's Largest AI Supercomputer, Built by xAI", 28 Oct 2024): Spectrum-X
  // "maintained 95% data throughput enabled by Spectrum-X congestion control", where
  // "standard Ethernet ... creates thousands of flow collisions while delivering only 60%
  // data throughput". Vendor figures, not NCCL measurements: stated, not fitted.
  if (c.network == Network::spectrum_x) e.network = 0.95;
  if (c.network == Network::roce) e.network = 0.60;
  return e;
}

}  // namespace trainsim
