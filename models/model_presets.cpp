#include "models/model_presets.hpp"

#include <array>

namespace trainsim {

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

std::optional<ModelSpec> model_preset(std::string_view name) {
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

std::vector<std::string> model_preset_names() {
  return {"gpt3-175b",   "llama2-7b",     "llama3-8b",       "llama3-70b",   "llama3-405b",    "mixtral-8x7b",
          "deepseek-v3", "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-120b", "nemotron-4-340b"};
}

}  // namespace trainsim
