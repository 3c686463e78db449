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

ModelSpec mixtral_8x7b() {
  // Jiang et al. 2024, "Mixtral of Experts", Table 1: dim 4096, 32 layers, head_dim 128,
  // 32 heads, 8 kv heads, hidden_dim 14336, 8 experts, top-2, vocab 32000, context 32768.
  ModelSpec m = llama("mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 32768);
  m.experts = 8;
  m.top_k = 2;
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
  return std::nullopt;
}

std::vector<std::string> model_preset_names() {
  return {"gpt3-175b", "llama2-7b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b"};
}

}  // namespace trainsim
