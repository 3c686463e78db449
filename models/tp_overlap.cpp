#include "models/tp_overlap.hpp"

#include <charconv>

namespace trainsim {

namespace {

constexpr std::array<const char*, k_tp_overlap_gemms> k_names = {
    "qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop", "proj_dgrad", "fc2_dgrad", "qkv_wgrad", "fc1_wgrad"};

// Transformer Engine's defaults for a setting written without its numbers
// (transformer_engine/pytorch/module/base.py @ fecb10bd, get_default_config): 16 SMs for
// the SM-kernel methods, pipeline in 4 chunks; ring exchange takes no SM from its GEMM.
constexpr int k_te_default_sms = 16;
constexpr int k_te_default_splits = 4;

bool blackwell(std::string_view gpu) {
  return gpu == "b200" || gpu == "gb200" || gpu == "b300" || gpu == "gb300";
}

bool gathers(TpOverlapGemm g) {
  return g == TpOverlapGemm::qkv_fprop || g == TpOverlapGemm::fc1_fprop || g == TpOverlapGemm::proj_dgrad ||
         g == TpOverlapGemm::fc2_dgrad;
}

bool weight_gradient(TpOverlapGemm g) { return g == TpOverlapGemm::qkv_wgrad || g == TpOverlapGemm::fc1_wgrad; }

// The default of a GPU family, from Megatron-Bridge's comm_overlap.py @ aae82005, the Llama 3
// 70B configs (hidden 8192), the shape both families have one for:
//   Hopper: userbuffers_{bf16,fp8}_h100_h8192_tp4_mbs1_seqlen8192;
//   Blackwell: userbuffers_{bf16,fp8}_b200_h8192_tp2_mbs1_seqlen8192.
// All-gathers (qkv/fc1 fprop, proj/fc2 dgrad): ring exchange, no SM margin. The backward
// reduce-scatters: bulk on 24 SMs beside QKV's weight gradient, 4 beside fc1's. The forward
// reduce-scatters: in BF16 pipelined on num_sm SMs in 4 chunks (proj 24 on Hopper, 32 on
// Blackwell; fc2 16 on both); in FP8 (and the block-scaled formats, which these configs
// predate) ring exchange with one SM of margin. The A100 has no userbuffers config: it
// takes Hopper's (a stated assumption).
TpOverlapSetting family_default(TpOverlapGemm g, Precision precision, std::string_view gpu) {
  switch (g) {
    case TpOverlapGemm::qkv_wgrad:
      return {TpOverlapMethod::bulk, 24, 1};
    case TpOverlapGemm::fc1_wgrad:
      return {TpOverlapMethod::bulk, 4, 1};
    case TpOverlapGemm::proj_fprop:
    case TpOverlapGemm::fc2_fprop:
      if (is_quantized(precision)) return {TpOverlapMethod::ring_exchange, 1, 0};
      if (g == TpOverlapGemm::fc2_fprop) return {TpOverlapMethod::pipeline, 16, 4};
      return {TpOverlapMethod::pipeline, blackwell(gpu) ? 32 : 24, 4};
    default:
      return {TpOverlapMethod::ring_exchange, 0, 0};
  }
}

std::optional<int> number(std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

const char* tp_overlap_gemm_name(TpOverlapGemm g) { return k_names[static_cast<size_t>(g)]; }

TpOverlapSetting tp_overlap_setting(const TpOverlapSettings& settings, TpOverlapGemm g, Precision precision,
                                    std::string_view gpu) {
  const auto& set = settings.gemm[static_cast<size_t>(g)];
  TpOverlapSetting s = set ? *set : family_default(g, precision, gpu);
  if (settings.sms > 0 && s.method != TpOverlapMethod::ring_exchange) s.sms = settings.sms;
  return s;
}

int tp_overlap_splits(const TpOverlapSetting& s, int tp) {
  switch (s.method) {
    case TpOverlapMethod::ring_exchange:
      return tp;
    case TpOverlapMethod::pipeline:
      return s.splits > 0 ? s.splits : k_te_default_splits;
    case TpOverlapMethod::bulk:
      return 1;
  }
  return 1;
}

std::array<int, k_tp_overlap_gemms> tp_overlap_chunks(const TpOverlapSettings& settings, Precision precision, int tp,
                                                      bool overlap) {
  std::array<int, k_tp_overlap_gemms> chunks{};
  for (int g = 0; g < k_tp_overlap_gemms; ++g)
    chunks[static_cast<size_t>(g)] =
        overlap ? tp_overlap_splits(tp_overlap_setting(settings, static_cast<TpOverlapGemm>(g), precision, ""), tp) : 1;
  return chunks;
}

std::string tp_overlap_setting_text(const TpOverlapSetting& s) {
  switch (s.method) {
    case TpOverlapMethod::ring_exchange:
      return s.sms > 0 ? "ring_exchange:" + std::to_string(s.sms) : "ring_exchange";
    case TpOverlapMethod::pipeline:
      return "pipeline:" + std::to_string(s.sms) + ":" + std::to_string(s.splits > 0 ? s.splits : k_te_default_splits);
    case TpOverlapMethod::bulk:
      return "bulk:" + std::to_string(s.sms);
  }
  return "";
}

std::optional<TpOverlapSetting> parse_tp_overlap_setting(std::string_view text, TpOverlapGemm g, std::string* rule) {
  const auto fail = [&](std::string why) -> std::optional<TpOverlapSetting> {
    *rule = std::move(why);
    return std::nullopt;
  };
  const std::string_view method = text.substr(0, text.find(':'));
  std::string_view rest = method.size() < text.size() ? text.substr(method.size() + 1) : std::string_view();
  const std::string_view sms_text = rest.substr(0, rest.find(':'));
  const std::string_view splits_text = sms_text.size() < rest.size() ? rest.substr(sms_text.size() + 1) : "";
  TpOverlapSetting s;
  if (method == "ring_exchange") {
    s.method = TpOverlapMethod::ring_exchange;
  } else if (method == "pipeline") {
    s.method = TpOverlapMethod::pipeline;
  } else if (method == "bulk") {
    s.method = TpOverlapMethod::bulk;
  } else {
    return fail("expected ring_exchange[:SMS], pipeline[:SMS[:SPLITS]] or bulk[:SMS]");
  }
  if (weight_gradient(g) && s.method != TpOverlapMethod::bulk)
    return fail("a weight gradient's reduce-scatter runs as bulk[:SMS] (Transformer Engine)");
  if (gathers(g) && s.method == TpOverlapMethod::pipeline)
    return fail("an all-gather runs as ring_exchange[:SMS] or bulk[:SMS]: pipeline is reduce-scatter only");
  if (!splits_text.empty() && s.method != TpOverlapMethod::pipeline)
    return fail("only pipeline takes a chunk count (ring exchange runs tp chunks, bulk one)");
  s.sms = s.method == TpOverlapMethod::ring_exchange ? 0 : k_te_default_sms;
  if (!rest.empty()) {
    const auto v = number(sms_text);
    if (!v || *v < 0 || *v > 1024) return fail("expected SMS, an integer from 0 to 1024");
    s.sms = *v;
  }
  if (s.method == TpOverlapMethod::pipeline) {
    s.splits = k_te_default_splits;
    if (!splits_text.empty()) {
      const auto v = number(splits_text);
      if (!v || *v < 1 || *v > 64) return fail("expected SPLITS, an integer from 1 to 64");
      s.splits = *v;
    }
  } else {
    s.splits = s.method == TpOverlapMethod::bulk ? 1 : 0;
  }
  return s;
}

}  // namespace trainsim
