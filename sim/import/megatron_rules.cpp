#include "sim/import/megatron_rules.hpp"

#include <algorithm>
#include <cctype>

#include "sim/core/error.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim {

MegatronState::MegatronState(const MegatronInput& input) : input_(input) {
  for (const MegatronSetting& s : input.settings) values_[s.name] = {s.value, s.written, true};
  for (const MegatronName& row : megatron_names()) {
    const bool spelled = input.arguments ? row.spelled_as_argument() : row.spelled_in_config();
    if (!spelled || row.megatron_default.empty() || values_.count(row.name)) continue;
    values_[std::string(row.name)] = {std::string(row.megatron_default), "", false};
  }
}

const MegatronValue* MegatronState::value(std::string_view name) const {
  const auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

bool MegatronState::needs_met(const MegatronName& row) const {
  if (row.needs.empty()) return true;
  bool any_spelled = false;
  for (const std::string_view need : parse::pieces(row.needs, "|")) {
    const auto eq = need.find('=');
    const std::string_view name = need.substr(0, eq);
    const MegatronName* other = input_.arguments ? megatron_argument(name) : megatron_config_field(name);
    if (!other) continue;
    any_spelled = true;
    const MegatronValue* v = value(name);
    if (!v || !needs_met(*other)) continue;  // a condition that does not count is not set
    if (eq != std::string_view::npos ? v->text == need.substr(eq + 1)
                                     : v->text != "false" && v->text != "none" && v->text != "None")
      return true;
  }
  return !any_spelled;
}

std::string MegatronState::shown(std::string_view name) const {
  if (const MegatronValue* v = value(name); v && !v->written.empty()) return v->written;
  std::string text(name);
  if (!input_.arguments) return text;
  std::replace(text.begin(), text.end(), '_', '-');
  return "--" + text;
}

void ScenarioValues::set(const std::string& key, const std::string& text, const std::string& written, bool given) {
  const auto it = values_.find(key);
  if (it != values_.end() && it->second.given && !given) return;
  values_[key] = {text, written, given};
}

std::optional<std::string> ScenarioValues::value(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? std::nullopt : std::optional<std::string>(it->second.text);
}

std::optional<long long> ScenarioValues::integer(const std::string& key) const {
  const auto v = value(key);
  return v ? parse::integer(*v) : std::nullopt;
}

std::string ScenarioValues::written(const std::string& key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? std::string() : it->second.written;
}

void ScenarioValues::erase_if(const std::function<bool(const std::string&, const ScenarioValue&)>& drop) {
  std::erase_if(values_, [&](const auto& kv) { return drop(kv.first, kv.second); });
}

namespace {

// A rule's input: the setting's value as an integer >= `min`, or an InputError naming it.
long long integer_setting(const MegatronState& state, std::string_view name, const MegatronValue& v, long long min) {
  const auto n = parse::integer(v.text);
  if (!n || *n < min)
    throw InputError(state.input().origin, state.shown(name), v.text, "expected an integer >= " + std::to_string(min));
  return *n;
}

// Sets `key` from the first of `names` that has a value: as written, or 0 when it equals
// `same` (the key's 0 means "the same as that").
void zero_when_same(const MegatronState& state, ScenarioValues& keys, std::initializer_list<std::string_view> names,
                    const std::string& key, std::optional<long long> same) {
  for (const std::string_view name : names) {
    const MegatronValue* v = state.value(name);
    if (!v) continue;
    const long long n = integer_setting(state, name, *v, 1);
    keys.set(key, same && n == *same ? "0" : std::to_string(n), v->written, v->given);
    return;
  }
}

// The integers in a text: "(4096, 0)", "4096,0", "[0]*3+[1]*58" -> {0,3,1,58}.
std::vector<long long> integers_in(std::string_view text) {
  std::vector<long long> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    out.push_back(parse::integer(text.substr(i, j - i)).value_or(-1));
    i = j;
  }
  return out;
}

// moe_layer_freq: N (every N-th layer MoE), or a pattern of 0s then 1s (the first layers
// dense): a list "0,0,0,1,...", or Megatron-LM's "([0]*3+[1]*58)".
void layer_freq_rule(const MegatronState& state, ScenarioValues& keys, std::vector<std::string>& not_modelled) {
  const MegatronValue* v = state.value("moe_layer_freq");
  if (!v) return;
  if (const auto n = parse::integer(v->text)) {
    keys.set("model.moe_layer_interval", std::to_string(integer_setting(state, "moe_layer_freq", *v, 1)), v->written,
             v->given);
    return;
  }
  long long dense = 0, moe = 0;
  bool pattern = true;
  if (v->text.find('*') != std::string::npos) {
    const std::vector<long long> n = integers_in(v->text);  // [0]*a+[1]*b
    pattern = n.size() == 4 && n[0] == 0 && n[2] == 1;
    if (pattern) dense = n[1], moe = n[3];
  } else {
    for (const long long bit : integers_in(v->text)) {
      if (bit == 0 && moe == 0)
        ++dense;
      else if (bit == 1)
        ++moe;
      else
        pattern = false;
    }
  }
  if (!pattern || moe == 0) {
    not_modelled.push_back(v->written + " (trainsim models N, or dense layers first and then every layer MoE)");
    return;
  }
  keys.set("model.dense_layers", std::to_string(dense), v->written, v->given);
  keys.set("model.moe_layer_interval", "1", v->written, v->given);
}

// cuda_graph_impl with cuda_graph_scope (Megatron-LM arguments.py @ a62e2375: none, local or
// transformer_engine; scope full, attn or full_iteration, Megatron-Bridge's a list of
// CudaGraphScope names): "full" is a whole layer, attn+mlp in trainsim's scopes.
void cuda_graphs_rule(const MegatronState& state, ScenarioValues& keys) {
  const MegatronValue* impl = state.value("cuda_graph_impl");
  std::string how = impl ? impl->text : "none";
  std::string written = impl && impl->given ? impl->written : "";
  for (const auto& [flag, implied] :
       {std::pair{"enable_cuda_graph", "local"}, {"external_cuda_graph", "transformer_engine"}})
    if (const MegatronValue* v = state.value(flag); v && v->text == "true") how = implied, written = v->written;
  const bool given = !written.empty();
  if (how == "none") {
    keys.set("training.cuda_graphs", "none", written, given);
    return;
  }
  const MegatronValue* scope = state.value("cuda_graph_scope");
  const std::string listed = scope ? scope->text : "full";  // outlives the pieces, views of it
  std::string scopes;
  for (const std::string_view piece : parse::pieces(listed, ", +")) {
    std::string_view name = parse::trimmed(piece);
    // A recipe's enum, CudaGraphScope(attn), as its value.
    if (const auto open = name.find('('); open != std::string_view::npos && name.ends_with(")"))
      name = name.substr(open + 1, name.size() - open - 2);
    scopes += (scopes.empty() ? "" : "+") + (name == "full" ? std::string("attn+mlp") : std::string(name));
  }
  keys.set("training.cuda_graphs", scopes.empty() ? "attn+mlp" : scopes,
           scope && scope->given ? scope->written : written, true);
}

}  // namespace

void apply_megatron_rules(const MegatronState& state, ScenarioValues& keys, std::vector<std::string>& not_modelled) {
  const MegatronInput& input = state.input();
  // The shape Megatron-LM needs too (arguments.py asserts them; a recipe's model has them).
  for (const auto& [key, name] : {std::pair{"model.layers", "num_layers"},
                                  {"model.hidden", "hidden_size"},
                                  {"model.heads", "num_attention_heads"},
                                  {"model.vocab", "vocab_size"},
                                  {"model.seq_len", "seq_length"},
                                  {"training.micro_batch", "micro_batch_size"}})
    if (!keys.value(key))
      throw InputError(input.origin, state.shown(name), "", std::string("required (for ") + key + ")");
  const long long hidden = keys.integer("model.hidden").value_or(0);
  const long long heads = keys.integer("model.heads").value_or(0);
  const long long tp = keys.integer("parallel.tp").value_or(1);
  const long long pp = keys.integer("parallel.pp").value_or(1);

  // kv_channels: Megatron's default hidden / heads, trainsim's 0.
  zero_when_same(state, keys, {"kv_channels"}, "model.head_dim",
                 heads > 0 && hidden % heads == 0 ? std::optional<long long>(hidden / heads) : std::nullopt);
  // The FFN: Megatron-LM's default 4h, with swiglu int(4h x 2/3 / 64) x 64 (arguments.py @ a62e2375).
  if (!keys.value("model.ffn_hidden")) {
    const bool gated = keys.value("model.activation") == "swiglu";
    const long long ffn = gated ? static_cast<long long>(4.0 * hidden * 2 / 3 / 64) * 64 : 4 * hidden;
    keys.set("model.ffn_hidden", std::to_string(ffn), "", false);
  }
  zero_when_same(state, keys, {"moe_ffn_hidden_size"}, "model.moe_ffn_hidden", keys.integer("model.ffn_hidden"));
  if (keys.integer("model.shared_expert_ffn_hidden").value_or(0) > 0)
    keys.set("model.shared_experts", "1", keys.written("model.shared_expert_ffn_hidden"), true);
  zero_when_same(state, keys, {"expert_tensor_parallel_size"}, "parallel.expert_tp", tp);
  zero_when_same(state, keys,
                 {"microbatch_group_size_per_virtual_pipeline_stage", "microbatch_group_size_per_vp_stage"},
                 "parallel.microbatch_group", pp);
  // Layers per virtual stage: virtual stages = layers / (pp x it).
  if (const MegatronValue* v = state.value("num_layers_per_virtual_pipeline_stage")) {
    const long long per = integer_setting(state, "num_layers_per_virtual_pipeline_stage", *v, 1);
    const long long layers = keys.integer("model.layers").value_or(0);
    if (layers % (pp * per) != 0)
      throw InputError(
          input.origin, v->written, v->text,
          "must divide the layers per pipeline stage (" + std::to_string(layers) + " / pp " + std::to_string(pp) + ")");
    keys.set("parallel.virtual_stages", std::to_string(layers / (pp * per)), v->written, true);
  }
  if (const MegatronValue* v = state.value("window_size")) {
    const std::vector<long long> n = integers_in(v->text);
    if (n.empty()) throw InputError(input.origin, v->written, v->text, "expected a window (left, right)");
    keys.set("model.sliding_window", std::to_string(n[0]), v->written, v->given);
  }
  layer_freq_rule(state, keys, not_modelled);
  cuda_graphs_rule(state, keys);
  // Interleaved 1F1B with virtual stages, else 1F1B (Megatron-Core's schedules.py
  // get_forward_backward_func); no global batch: one micro-batch per step.
  keys.set("parallel.schedule", keys.integer("parallel.virtual_stages").value_or(1) > 1 ? "interleaved" : "1f1b",
           keys.written("parallel.virtual_stages"), false);
  if (!keys.value("training.global_batch"))
    keys.set("training.grad_accum", "1", state.shown("global_batch_size") + " (not given: one micro-batch a step)",
             false);
}

int replica_gpus(const ScenarioValues& keys) {
  const long long gpus = keys.integer("parallel.tp").value_or(1) * keys.integer("parallel.pp").value_or(1) *
                         keys.integer("parallel.cp").value_or(1);
  return static_cast<int>(std::clamp<long long>(gpus, 1, 1 << 20));
}

int replica_nodes(const ScenarioValues& keys, int gpus_per_node) {
  const long long replica = replica_gpus(keys);
  const long long tp_cp = keys.integer("parallel.tp").value_or(1) * keys.integer("parallel.cp").value_or(1);
  const long long ep = keys.integer("parallel.ep").value_or(1);
  const long long etp_set = keys.integer("parallel.expert_tp").value_or(0);
  const long long etp = etp_set > 0 ? etp_set : keys.integer("parallel.tp").value_or(1);
  // Whole nodes of whole replicas, grown until tp x cp x dp holds the expert groups ep x etp.
  for (long long nodes = 1; nodes <= (1 << 20) / std::max(gpus_per_node, 1); ++nodes) {
    const long long gpus = nodes * gpus_per_node;
    if (gpus % replica != 0) continue;
    if ((tp_cp * (gpus / replica)) % (ep * etp) == 0) return static_cast<int>(nodes);
  }
  return 1;
}

}  // namespace trainsim
