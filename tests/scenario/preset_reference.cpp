// The GPU, cluster and model presets as C++ code had them before they became data files
// (topologies/gpu_presets.cpp, topologies/cluster_presets.cpp and models/model_presets.cpp at
// the commit before issue 59 item 2 removed them), kept unchanged but for their names as the
// reference tests/scenario/preset_files_test.cpp holds the files to, field for field.

#include "scenario/preset_reference.hpp"

#include <array>

namespace trainsim::reference {

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

// The fitted 40 % TP-overlap slowdown these presets carried is gone (issue 56 item 1: the
// userbuffers kernels' SMs and HBM share price it, sim/step/tp_overlap_cost.hpp); the
// reference follows the files there and leaves GpuSpec::tp_overlap_slowdown at 0.

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
// TP-overlap slowdown: no published Blackwell run with TP overlap to fit it on; Blackwell
// keeps the H100's value (a stated assumption, not fitted).
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
  g.architecture = "blackwell";
  g.nvlink_generation = 5;
  set_power(g, f.tdp_w);
  return g;
}

constexpr BlackwellFigures k_blackwell[] = {
    {"b200", 183359, 2.25, 1.1, 9, 1000, 148},
    {"gb200", 189471, 2.5, 1.25, 10, 1200, 152},  // SMs: device queries (gpus/gb200.ini source_sms)
    {"b300", 275040, 2.25, 1.1, 14, 1100, 0},
    {"gb300", 284208, 2.5, 1.25, 15, 1400, 0},
};
}  // namespace

std::optional<GpuSpec> reference_gpu_preset(std::string_view name) {
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
    g.architecture = "ampere";
    g.nvlink_generation = 3;
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
    g.architecture = "hopper";
    g.nvlink_generation = 4;
    set_power(g, 700);
    return g;
  }
  // H800 SXM5 (DeepSeek-V3's GPU, arXiv:2412.19437 §3.1): the H100 SXM5's GH100 die, SMs,
  // clocks and 80 GB of HBM3, with NVLink cut to 8 of the H100's 18 NVLink-4 links (NVIDIA's
  // 400 GB/s for H800 against 900 for H100): 200 GB/s per direction at NVLink 4's 25 GB/s per
  // link. DeepEP's README measures ~160 GB/s of it on DeepSeek's cluster (public.md D5). Its
  // compute is timed by the H100 SXM's kernel table.
  if (name == "h800") {
    GpuSpec g = *reference_gpu_preset("h100-sxm");
    g.name = "h800";
    g.nvlink_bandwidth_Bps = 8 * 25e9;
    g.calibration_gpu = "h100-sxm";
    return g;
  }
  for (const BlackwellFigures& f : k_blackwell)
    if (name == f.name) return blackwell(f);
  return std::nullopt;
}

std::vector<std::string> reference_gpu_preset_names() {
  return {"a100-80g", "h100-sxm", "h200", "h800", "b200", "gb200", "b300", "gb300"};
}

namespace {

ClusterSpec dgx_node(const char* preset, const char* gpu_name, double nic_Bps, double pcie_Bps) {
  ClusterSpec c;
  c.preset = preset;
  c.gpu = *reference_gpu_preset(gpu_name);
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

std::optional<ClusterSpec> reference_cluster_preset(std::string_view name) {
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

std::vector<std::string> reference_cluster_preset_names() {
  return {"dgx-a100", "dgx-h100", "hgx-h200", "hgx-h800", "dgx-b200", "gb200-nvl72", "gb300-nvl72"};
}



namespace {

ModelSpec gpt3_175b() {
  // Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1 (GPT-3 175B):
  // 96 layers, d_model 12288, 96 heads, d_ff = 4 d_model, context 2048, GPT-2 BPE vocabulary
  // of 50257 tokens; learned positions, LayerNorm, biases, tied input/output embedding.
  ModelSpec m;
  m.name = "gpt3-175b";
  m.layers = 96;
  m.hidden = 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.ffn_hidden = 4 * 12288;
  m.vocab = 50257;
  m.seq_len = 2048;
  m.activation = FfnActivation::gelu;
  m.norm = NormKind::layernorm;
  m.position = PositionEmbedding::learned;
  m.bias = true;
  m.tied_embeddings = true;
  m.dropout = true;
  return m;
}

ModelSpec llama(const char* name, int layers, int hidden, int heads, int kv_heads, int ffn, int vocab, int seq_len) {
  ModelSpec m;
  m.name = name;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.ffn_hidden = ffn;
  m.vocab = vocab;
  m.seq_len = seq_len;
  return m;  // SwiGLU, RMSNorm, RoPE, no biases, untied embeddings, no dropout (defaults)
}

// What a mixture-of-experts preset sets beyond its base shape; each field's default is
// ModelSpec's (routed experts of ffn_hidden, no shared experts, every layer MoE, no router
// bias), so that a preset names only what its paper or config states.
struct MoeShape {
  int experts = 1;
  int top_k = 1;
  int moe_ffn_hidden = 0;
  int shared_experts = 0;
  int dense_layers = 0;
  bool router_bias = false;
};

// `base` with the experts of `moe`.
ModelSpec with_experts(ModelSpec base, const MoeShape& moe) {
  base.experts = moe.experts;
  base.top_k = moe.top_k;
  base.moe_ffn_hidden = moe.moe_ffn_hidden;
  base.shared_experts = moe.shared_experts;
  base.dense_layers = moe.dense_layers;
  base.router_bias = moe.router_bias;
  return base;
}

ModelSpec mixtral_8x7b() {
  // Jiang et al. 2024, "Mixtral of Experts", Table 1: dim 4096, 32 layers, head_dim 128,
  // 32 heads, 8 kv heads, hidden_dim 14336, 8 experts, top-2, vocab 32000, context 32768.
  return with_experts(llama("mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 32768), {.experts = 8, .top_k = 2});
}

ModelSpec deepseek_v3() {
  // DeepSeek-AI 2024, "DeepSeek-V3 Technical Report", §4.2, and the released config.json
  // (huggingface.co/deepseek-ai/DeepSeek-V3): 61 layers, hidden 7168, 128 heads, MLA with
  // q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64,
  // v_head_dim 128; intermediate_size 18432 in the first_k_dense_replace = 3 dense layers;
  // 256 routed experts of moe_intermediate_size 2048, top-8, n_shared_experts 1; the gate's
  // e_score_correction_bias; vocab 129280, untied; num_nextn_predict_layers 1 (MTP); 4K
  // pre-training sequences (§4.2). 671,026,419,200 parameters in the main model plus
  // 11,610,068,224 of the MTP module's own (README_WEIGHTS.md: "671B" and "11.5B unique").
  const MoeShape experts{
      .experts = 256, .top_k = 8, .moe_ffn_hidden = 2048, .shared_experts = 1, .dense_layers = 3, .router_bias = true};
  ModelSpec m = with_experts(llama("deepseek-v3", 61, 7168, 128, 128, 18432, 129280, 4096), experts);
  m.q_lora_rank = 1536;
  m.kv_lora_rank = 512;
  m.qk_nope_head_dim = 128;
  m.qk_rope_head_dim = 64;
  m.v_head_dim = 128;
  m.mtp_depth = 1;
  return m;
}

ModelSpec qwen3_moe(const char* name, int layers, int hidden, int heads, int moe_ffn) {
  // Qwen3 Technical Report (Yang et al. 2025), Table 2, and the released config.json files
  // (huggingface.co/Qwen/Qwen3-30B-A3B, Qwen/Qwen3-235B-A22B): head_dim 128, 4 KV heads,
  // QK-norm, 128 experts of moe_intermediate_size, top-8, no shared experts, every layer MoE
  // (decoder_sparse_step 1), vocab 151936, untied; 4K sequences in pre-training stage 1.
  ModelSpec m =
      with_experts(llama(name, layers, hidden, heads, 4, moe_ffn, 151936, 4096), {.experts = 128, .top_k = 8});
  m.explicit_head_dim = 128;
  m.qk_norm = true;
  return m;
}

ModelSpec gpt_oss_120b() {
  // OpenAI 2025, "gpt-oss-120b & gpt-oss-20b Model Card", "Architecture", and the released
  // config.json (huggingface.co/openai/gpt-oss-120b): 36 layers, hidden 2880, 64 heads of head_dim 64,
  // 8 KV heads, attention with biases and a learned sink per head, layers alternating a
  // 128-token window and full attention (layer_types: sliding first); 128 experts of 2880,
  // top-4, SwiGLU with biases, a router with a bias; vocab 201088, untied; initial context
  // 4096. 116,829,156,672 parameters (the card's 116.83B).
  ModelSpec m = with_experts(llama("gpt-oss-120b", 36, 2880, 64, 8, 2880, 201088, 4096),
                             {.experts = 128, .top_k = 4, .router_bias = true});
  m.explicit_head_dim = 64;
  m.bias = true;
  m.attention_sinks = true;
  m.sliding_window = 128;
  m.full_attention_interval = 2;
  m.rope_scaling = RopeScaling::yarn;  // config.json rope_scaling.rope_type "yarn", factor 32
  m.activation_clamp = 7;              // config.json swiglu_limit 7.0
  return m;
}

ModelSpec nemotron_4_340b() {
  // Nvidia 2024, "Nemotron-4 340B Technical Report", Table 1 and §2.1, and NeMo's
  // Nemotron4Config340B: 96 layers, hidden 18432, 96 heads, 8 KV heads, FFN 73728 with
  // squared ReLU, no linear biases, LayerNorm (scale and shift), RoPE, vocab 256000, untied,
  // sequence 4096. 341,029,195,776 parameters.
  ModelSpec m = llama("nemotron-4-340b", 96, 18432, 96, 8, 73728, 256000, 4096);
  m.activation = FfnActivation::squared_relu;
  m.norm = NormKind::layernorm;
  return m;
}

}  // namespace

std::optional<ModelSpec> reference_model_preset(std::string_view name) {
  // Llama 2 (Touvron et al. 2023, Table 1 and the released config): 7B has 32 layers,
  // hidden 4096, 32 heads (no GQA), FFN 11008, vocab 32000, context 4096.
  // Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models", Table 3): 8B/70B/405B with
  // 32/80/126 layers, model dim 4096/8192/16384, FFN 14336/28672/53248, 32/64/128 heads,
  // 8 KV heads, vocab 128,000 (128256 in the released tokenizer), context 8192 in pre-training.
  if (name == "gpt3-175b") return gpt3_175b();
  if (name == "llama2-7b") return llama("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096);
  if (name == "llama3-8b") return llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192);
  if (name == "llama3-70b") return llama("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192);
  if (name == "llama3-405b") return llama("llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192);
  if (name == "mixtral-8x7b") return mixtral_8x7b();
  if (name == "deepseek-v3") return deepseek_v3();
  if (name == "qwen3-30b-a3b") return qwen3_moe("qwen3-30b-a3b", 48, 2048, 32, 768);
  if (name == "qwen3-235b-a22b") return qwen3_moe("qwen3-235b-a22b", 94, 4096, 64, 1536);
  if (name == "gpt-oss-120b") return gpt_oss_120b();
  if (name == "nemotron-4-340b") return nemotron_4_340b();
  return std::nullopt;
}

std::vector<std::string> reference_model_preset_names() {
  return {"gpt3-175b",   "llama2-7b",     "llama3-8b",       "llama3-70b",   "llama3-405b",    "mixtral-8x7b",
          "deepseek-v3", "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-120b", "nemotron-4-340b"};
}

}  // namespace trainsim::reference
