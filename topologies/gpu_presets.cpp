#include "topologies/gpu_spec.hpp"

namespace trainsim {

namespace {
constexpr double k_mib = 1024.0 * 1024.0;

// Power by state. Computing: the TDP (public.md D3: A100 400 W, H100/H200 700 W). Idle and
// communication-only power are stated estimates until measured: idle ~15 % of the TDP
// (nvidia-smi idle readings of 60-100 W are typical), NCCL-only ~40 % (a few SMs and the
// NVLink/PCIe links busy).
void set_power(GpuSpec& g, double tdp_w) {
  g.tdp_w = tdp_w;
  g.idle_power_w = 0.15 * tdp_w;
  g.comm_power_w = 0.40 * tdp_w;
}

// The slowdown of GEMMs beside overlapped tensor-parallel communication (Megatron-LM
// --tp-comm-overlap). Fitted once, on the DGX-H100 rows of public.md A2 (the only published
// runs with TP overlap; tests/cli/validation_test.cpp): the value that minimises their mean
// absolute error. For scale: Megatron-Bridge's H100 userbuffers configs reserve 1 to 24 of
// the 132 SMs for the collectives (comm_overlap.py, num_sm), and the ring exchange shares
// HBM and NVLink with the GEMM. The A100 has no published TP-overlap run to fit: it keeps
// the H100's value (a stated assumption).
constexpr double k_hopper_tp_overlap_slowdown = 0.40;
}  // namespace

std::optional<GpuSpec> gpu_preset(std::string_view name) {
  // Peaks: ../shared/validation/public.md D3 (NVIDIA datasheets as transcribed there).
  // Capacities: the memory.total that nvidia-smi reports for each card (80 GB A100:
  // 81920 MiB; H100 SXM5 80 GB: 81559 MiB; H200 141 GB: 143771 MiB), since that, not the
  // marketing figure, is what the allocator can use.
  if (name == "a100-80g") {
    GpuSpec g;
    g.name = "a100-80g";
    g.memory_bytes = 81920 * k_mib;
    g.peak_bf16_flops = 312e12;
    g.peak_fp8_flops = 0;  // Ampere has no fp8 tensor cores
    g.peak_tf32_flops = 156e12;
    g.hbm_bandwidth_Bps = 2039e9;
    g.nvlink_bandwidth_Bps = 300e9;
    g.tp_overlap_slowdown = k_hopper_tp_overlap_slowdown;
    set_power(g, 400);
    return g;
  }
  if (name == "h100-sxm" || name == "h200") {
    GpuSpec g;
    g.name = std::string(name);
    const bool h200 = name == "h200";
    g.memory_bytes = (h200 ? 143771 : 81559) * k_mib;
    g.peak_bf16_flops = 989e12;
    g.peak_fp8_flops = 1979e12;
    g.peak_tf32_flops = 494.5e12;
    g.hbm_bandwidth_Bps = h200 ? 4.8e12 : 3.35e12;
    g.nvlink_bandwidth_Bps = 450e9;
    g.tp_overlap_slowdown = k_hopper_tp_overlap_slowdown;  // H200: the H100's compute dies
    set_power(g, 700);
    return g;
  }
  return std::nullopt;
}

std::vector<std::string> gpu_preset_names() {
  return {"a100-80g", "h100-sxm", "h200"};
}

}  // namespace trainsim
