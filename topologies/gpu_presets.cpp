#include "topologies/gpu_spec.hpp"

namespace trainsim {

namespace {
constexpr double k_mib = 1024.0 * 1024.0;

// Power by state. Computing: the TDP (public.md D3: A100 400 W, H100/H200 700 W; Blackwell
// below). Idle and communication-only power are stated estimates until measured: idle ~15 %
// of the TDP (nvidia-smi idle readings of 60-100 W are typical), NCCL-only ~40 % (a few SMs
// and the NVLink/PCIe links busy).
void set_power(GpuSpec& g, double tdp_w) {
  g.tdp_w = tdp_w;
  g.idle_power_w = 0.15 * tdp_w;
  g.comm_power_w = 0.40 * tdp_w;
}

// Blackwell (b200, gb200, b300, gb300). Peaks are the datasheets' dense figures (the sparse
// ones halved), per GPU:
//   B200 (HGX/DGX B200, 1,000 W): BF16 2.25, FP8 4.5, FP4 9 PFLOP/s, TF32 1.1 PFLOP/s;
//   GB200 (the B200 of GB200 NVL72 at 1,200 W): BF16 2.5, FP8 5, FP4 10, TF32 1.25 PFLOP/s
//   (NVIDIA's Blackwell datasheet as tabulated at glennklockwood.com/garden/processors/B200,
//   the page kernels/calibration/convert_public.py already cites for 2500 vs 2250);
//   B300 (HGX B300, 1,100 W): BF16 2.25, FP8 4.5, FP4 14, TF32 1.1 PFLOP/s;
//   GB300 (GB300 NVL72, 1,400 W): BF16 2.5, FP8 5, FP4 15, TF32 1.25 PFLOP/s
//   (NVIDIA Blackwell Architecture Technical Brief, Table 3, per-GPU dense figures, as
//   tabulated by datacrunch.io "B300 vs B200" and verda.com "GB300 NVL72 architecture";
//   GB300 NVL72: 1,080 PFLOP/s dense FP4, 360 FP8, 180 BF16 for 72 GPUs). B300's dense FP4
//   is given as 13 to 15 PFLOP/s by secondary sources; 14 is the Technical Brief's as
//   transcribed by both pages above (it times nothing yet: training.precision has no nvfp4).
// MXFP8: the datasheets list no separate MXFP8 figure; their "FP8/FP6" row is the FP8 tensor
// cores' rate, which Blackwell's block-scaled MMA instructions also run at, so its peak is
// the FP8 one.
// HBM bandwidth 8 TB/s for all four (DGX B200 datasheet: 64 TB/s for 8 GPUs; GB200/GB300
// NVL72: 576 TB/s for 72 GPUs; the figure kernels/calibration/b200.csv's derived rows use).
// TDP: the power cap nvidia-smi shows (B200 1000 W, GB200 1200 W, B300 1100 W, GB300 1400 W).
// Capacities: nvidia-smi memory.total: B200 183359 MiB (NVIDIA/TensorRT-LLM#10278), GB200
// 189471 MiB, B300 ("NVIDIA B300 SXM6 AC") 275040 MiB, GB300 284208 MiB (nvidia-smi tables
// in public GitHub documents and issues).
// NVLink 5: 1.8 TB/s per GPU, i.e. 900 GB/s per direction (DGX B200 user guide and
// datasheet: 14.4 TB/s aggregate for 8 GPUs; MLPerf system descriptions of B200 nodes:
// "18x 5th Gen NVLink, 14.4 TB/s aggregated bandwidth").
// SMs: 148 on the B200 (the device query in pytorch/ao#4002, an NVIDIA B200: "Number of SMs:
// 148"); the other three unstated (0) until a source states them.
struct BlackwellFigures {
  const char* name;
  double memory_mib;
  double bf16_pflops;  ///< FP8 and MXFP8: twice this (the datasheets' FP8/FP6 row)
  double tf32_pflops;
  double fp4_pflops;
  double tdp_w;
  int sms;
};

GpuSpec blackwell(const BlackwellFigures& f) {
  GpuSpec g;
  g.name = f.name;
  g.memory_bytes = f.memory_mib * k_mib;
  g.peak_bf16_flops = f.bf16_pflops * 1e15;
  g.peak_fp8_flops = 2 * g.peak_bf16_flops;
  g.peak_mxfp8_flops = g.peak_fp8_flops;
  g.peak_nvfp4_flops = f.fp4_pflops * 1e15;
  g.peak_tf32_flops = f.tf32_pflops * 1e15;
  g.hbm_bandwidth_Bps = 8e12;
  g.nvlink_bandwidth_Bps = 900e9;
  g.sms = f.sms;
  set_power(g, f.tdp_w);
  return g;
}

constexpr BlackwellFigures k_blackwell[] = {
    {"b200", 183359, 2.25, 1.1, 9, 1000, 148},
    {"gb200", 189471, 2.5, 1.25, 10, 1200, 0},
    {"b300", 275040, 2.25, 1.1, 14, 1100, 0},
    {"gb300", 284208, 2.5, 1.25, 15, 1400, 0},
};
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
    g.sms = 108;  // NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs
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
    // NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 132 SMs on the SXM5 board;
    // the H200 and H800 carry the same GH100 configuration.
    g.sms = 132;
    set_power(g, 700);
    return g;
  }
  // H800 SXM5 (DeepSeek-V3's GPU, arXiv:2412.19437 §3.1): the H100 SXM5's GH100 die, SMs,
  // clocks and 80 GB of HBM3, with NVLink cut to 8 of the H100's 18 NVLink-4 links (NVIDIA's
  // 400 GB/s for H800 against 900 for H100): 200 GB/s per direction at NVLink 4's 25 GB/s per
  // link. DeepEP's README measures ~160 GB/s of it on DeepSeek's cluster (public.md D5). Its
  // compute is timed by the H100 SXM's kernel table.
  if (name == "h800") {
    GpuSpec g = *gpu_preset("h100-sxm");
    g.name = "h800";
    g.nvlink_bandwidth_Bps = 8 * 25e9;
    g.calibration_gpu = "h100-sxm";
    return g;
  }
  for (const BlackwellFigures& f : k_blackwell)
    if (name == f.name) return blackwell(f);
  return std::nullopt;
}

std::vector<std::string> gpu_preset_names() {
  return {"a100-80g", "h100-sxm", "h200", "h800", "b200", "gb200", "b300", "gb300"};
}

}  // namespace trainsim
