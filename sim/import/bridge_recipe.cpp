// read_bridge_recipe: a Megatron-Bridge ConfigContainer as YAML (megatron_import.hpp).
// The dump's shape: Megatron-Bridge src/megatron/bridge/training/utils/config_utils.py
// (to_dict: every dataclass a mapping with its `_target_`) and utils/yaml_utils.py (functions
// and dtypes as {_target_, _call_: false}, enums as {_target_, _call_: true, _args_: [value]})
// @ 00b7660b, written by yaml.safe_dump.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/import/megatron_import.hpp"
#include "sim/scenario/megatron_names.hpp"

namespace trainsim {

namespace {

// The sections whose fields the table reads, in the order a later one's value wins.
constexpr std::array<const char*, 7> k_read_sections{"model",        "train",          "ddp", "optimizer", "dist",
                                                     "comm_overlap", "mixed_precision"};

std::string scalar_text(const YAML::Node& node) {
  const std::string text = node.Scalar();
  if (text == "True" || text == "TRUE") return "true";
  if (text == "False" || text == "FALSE") return "false";
  return text;
}

bool is_metadata(const std::string& key) {
  return key == "_target_" || key == "_call_";
}

// What one walk of the recipe may visit. YAML aliases repeat a node wherever they are used: a
// 700-byte file of nested aliases (ten of ten of ... nine levels) made `import bridge` walk 10^9
// nodes (no end in 30 s), and an alias inside its own anchor (`&r [1, *r]`) recursed until the
// stack overflowed (SIGSEGV) or, as a mapping, until memory ran out (std::bad_alloc). A resolved
// recipe is some 500 nodes, at most 4 deep (tests/data/import/).
struct WalkBudget {
  static constexpr long k_nodes = 1000000;
  static constexpr int k_depth = 64;
  const std::string& file;
  long nodes = k_nodes;
  int depth = 0;
};

// Counts one visit, one level deeper, for the scope's life; InputError past either limit.
class Visit {
 public:
  Visit(WalkBudget& b, const std::string& where) : b_(b) {
    if (--b_.nodes < 0 || ++b_.depth > WalkBudget::k_depth)
      throw InputError(b_.file, where, "",
                       "the recipe's YAML nests deeper than " + std::to_string(WalkBudget::k_depth) +
                           " levels or holds more than " + std::to_string(WalkBudget::k_nodes) +
                           " nodes once its aliases are expanded (an alias inside its own anchor never ends): "
                           "not a ConfigContainer dump");
  }
  ~Visit() { --b_.depth; }
  Visit(const Visit&) = delete;
  Visit& operator=(const Visit&) = delete;

 private:
  WalkBudget& b_;
};

// A mapping that stands for one value: a function or dtype ({_target_, _call_}), or an enum
// ({_target_, _call_, _args_: [v]}); nullopt for a dataclass's fields.
std::optional<std::string> object_value(const YAML::Node& node, WalkBudget& budget, const std::string& where) {
  const Visit visit(budget, where);
  if (!node["_target_"] || !node["_target_"].IsScalar()) return std::nullopt;
  const std::string target = node["_target_"].Scalar();
  std::size_t others = 0;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (!is_metadata(key) && key != "_args_") ++others;
  }
  if (others > 0) return std::nullopt;
  const YAML::Node args = node["_args_"];
  if (!args) return target;
  std::string text = target + "(";
  if (args.IsSequence())
    for (std::size_t i = 0; i < args.size(); ++i)
      text += (i ? "," : "") + (args[i].IsScalar() ? args[i].Scalar() : "?");
  return text + ")";
}

// A node's value as one text, or nullopt when it is a mapping of fields (read one by one).
std::optional<std::string> value_text(const YAML::Node& node, WalkBudget& budget, const std::string& where) {
  const Visit visit(budget, where);
  if (node.IsScalar()) return scalar_text(node);
  if (node.IsSequence()) {
    std::string text;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::optional<std::string> item =
          node[i].IsMap() ? object_value(node[i], budget, where) : value_text(node[i], budget, where);
      text += (i ? "," : "") + item.value_or("?");
    }
    return text;
  }
  if (node.IsMap()) return object_value(node, budget, where);
  return std::nullopt;
}

// Every set leaf under `node`, at `path`, as not modelled (nulls are settings left unset).
void list_not_modelled(const YAML::Node& node, const std::string& path, std::vector<std::string>& out,
                       WalkBudget& budget) {
  if (!node || node.IsNull()) return;
  const Visit visit(budget, path);
  if (const auto text = value_text(node, budget, path)) {
    out.push_back(path + ": " + *text);
    return;
  }
  if (!node.IsMap()) return;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    if (!is_metadata(key)) list_not_modelled(kv.second, path + "." + key, out, budget);
  }
}

}  // namespace

MegatronInput read_bridge_recipe(const std::string& path) {
  const std::string text = read_input_file(path, {"the recipe", "cannot open the recipe", k_max_megatron_input_bytes});
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(path, "", "", "not YAML: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")");
  }
  if (!root.IsMap() || !root["model"] || !root["model"].IsMap())
    throw InputError(
        path, "model", "",
        "not a Megatron-Bridge recipe's config: expected a mapping with a model section (ConfigContainer)");
  MegatronInput input;
  input.origin = path;
  WalkBudget budget{path};
  for (const char* section : k_read_sections) {
    const YAML::Node fields = root[section];
    if (!fields || fields.IsNull()) continue;
    if (!fields.IsMap()) {
      list_not_modelled(fields, section, input.not_modelled, budget);
      continue;
    }
    for (const auto& kv : fields) {
      const std::string name = kv.first.Scalar();
      if (is_metadata(name) || kv.second.IsNull()) continue;
      const std::string where = std::string(section) + "." + name;
      const std::optional<std::string> value = value_text(kv.second, budget, where);
      if (value && megatron_config_field(name))
        input.settings.push_back({name, *value, where + ": " + *value});
      else
        list_not_modelled(kv.second, where, input.not_modelled, budget);
    }
  }
  for (const auto& kv : root) {
    const std::string section = kv.first.Scalar();
    if (is_metadata(section) || std::ranges::find(k_read_sections, section) != k_read_sections.end()) continue;
    list_not_modelled(kv.second, section, input.not_modelled, budget);
  }
  return input;
}

}  // namespace trainsim
