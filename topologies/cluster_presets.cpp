#include "topologies/cluster_spec.hpp"

namespace trainsim {

namespace {

ClusterSpec dgx_node(const char* preset, const char* gpu_name, double nic_Bps, double pcie_Bps) {
  ClusterSpec c;
  c.preset = preset;
  c.gpu = *gpu_preset(gpu_name);
  c.nodes = 1;
  c.gpus_per_node = 8;  // 8 GPUs on NVSwitch
  c.nvlink_bandwidth_Bps = c.gpu.nvlink_bandwidth_Bps;
  c.nics_per_node = 8;  // one compute NIC per GPU (public.md A1 for DGX A100)
  c.nic_bandwidth_Bps = nic_Bps;
  // Per-hop latencies of NCCL's tuning model (public.md D1: NVLink ring hop 0.47 us and
  // network ring hop 2.7 us with the LL protocol); a switch hop on IB is ~0.1-0.2 us of that.
  c.nvlink_latency_s = 0.47e-6;
  c.nic_latency_s = 2.5e-6;
  c.switch_latency_s = 0.2e-6;
  c.host_link_bandwidth_Bps = pcie_Bps;
  return c;
}

// One GB200 / GB300 NVL72 rack (NVIDIA GB200 NVL72 and GB300 NVL72 product pages and
// datasheets; the DGX GB200 user guide for the tray layout): 18 compute trays, each with two
// Grace Blackwell superchips (2 Grace CPUs, 4 GPUs), joined by 9 NVLink Switch trays into one
// NVLink domain of 72 GPUs, NVLink 5 at 1.8 TB/s per GPU (900 GB/s per direction; 130 TB/s
// for the rack). A node here is a compute tray: its 4 GPUs share the tray's host side. Scale
// out: one NIC per GPU, ConnectX-7 at 400 Gb/s on GB200, ConnectX-8 SuperNIC at 800 Gb/s on
// GB300 ("800 Gb/s of network connectivity per GPU", GB300 NVL72 product page), on
// InfiniBand (Quantum-2 / Quantum-X800) or Ethernet (Spectrum-X); racks joined
// rail-optimized as in the DGX SuperPOD GB200 reference architecture (NIC i of every tray on
// rail i). Host link: NVLink-C2C, 900 GB/s both ways between a Grace and its two GPUs; the
// two share it, so 225 GB/s per GPU per direction (a stated split). Latencies: NVLink hops as
// on DGX (no NVLink 5 figure in public.md), through the NVLink Switch trays.
ClusterSpec nvl72_rack(const char* preset, const char* gpu_name, double nic_Bps) {
  ClusterSpec c = dgx_node(preset, gpu_name, nic_Bps, 900e9 / 2 / 2);
  c.nodes = 18;
  c.gpus_per_node = 4;
  c.nics_per_node = 4;
  c.nvlink_domain = 72;
  c.fabric = Fabric::rail_optimized;
  c.host = HostCpu::grace;  // one Grace CPU per two GPUs of a compute tray
  return c;
}

}  // namespace

std::optional<ClusterSpec> cluster_preset(std::string_view name) {
  // DGX A100: 8 x 200 Gb/s HDR InfiniBand for compute (public.md A1), PCIe Gen4 x16 (32 GB/s).
  if (name == "dgx-a100") return dgx_node("dgx-a100", "a100-80g", 200e9 / 8, 32e9);
  // DGX H100 / HGX H200: 8 x 400 Gb/s NDR (public.md D2: "46-48 GB/s per NIC" achievable),
  // PCIe Gen5 x16 (64 GB/s).
  if (name == "dgx-h100") return dgx_node("dgx-h100", "h100-sxm", 400e9 / 8, 64e9);
  if (name == "hgx-h200") return dgx_node("hgx-h200", "h200", 400e9 / 8, 64e9);
  // DeepSeek's H800 nodes (DeepSeek-V3 §3.1): 8 H800 on NVSwitch, 8 ConnectX-7 400 Gb/s
  // InfiniBand NICs, one per GPU (DeepEP measures ~50 GB/s per NIC, public.md D5).
  if (name == "hgx-h800") return dgx_node("hgx-h800", "h800", 400e9 / 8, 64e9);
  // DGX B200 (NVIDIA DGX B200 user guide, "Introduction to the NVIDIA DGX B200 System"):
  // 8 B200 on two NVSwitch chips, NVLink 5 at 1.8 TB/s per GPU (900 GB/s per direction,
  // 14.4 TB/s in all); 8 single-port ConnectX-7 VPI cards at 400 Gb/s (InfiniBand NDR or
  // Ethernet) for the compute fabric; Intel Xeon host, PCIe Gen5 x16 to each GPU (64 GB/s).
  // The DGX SuperPOD B200 reference architecture wires the compute fabric rail-optimized
  // (NIC i of every node on rail i's leaves), so the preset does too.
  if (name == "dgx-b200") {
    ClusterSpec c = dgx_node("dgx-b200", "b200", 400e9 / 8, 64e9);
    c.fabric = Fabric::rail_optimized;
    return c;
  }
  if (name == "gb200-nvl72") return nvl72_rack("gb200-nvl72", "gb200", 400e9 / 8);
  if (name == "gb300-nvl72") return nvl72_rack("gb300-nvl72", "gb300", 800e9 / 8);
  return std::nullopt;
}

std::vector<std::string> cluster_preset_names() {
  return {"dgx-a100", "dgx-h100", "hgx-h200", "hgx-h800", "dgx-b200", "gb200-nvl72", "gb300-nvl72"};
}

std::string cluster_preset_list() {
  std::string text;
  for (const std::string& name : cluster_preset_names()) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace trainsim
