// megatron_scenario: Megatron's settings, read by the table of sim/scenario/megatron_names.hpp,
// as a scenario file (megatron_import.hpp).

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "sim/core/comment_line.hpp"
#include "sim/core/error.hpp"
#include "sim/import/megatron_import.hpp"
#include "sim/import/megatron_rules.hpp"
#include "sim/scenario/megatron_names.hpp"
#include "sim/scenario/scenario_fields.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim {

namespace {

bool spelled_in(const MegatronName& row, const MegatronInput& input) {
  return input.arguments ? row.spelled_as_argument() : row.spelled_in_config();
}

std::string shown_name(const MegatronName& row, const MegatronInput& input) {
  return input.arguments ? row.argument() : std::string(row.name);
}

// The MoE keys, left out of a dense model's scenario unless the input set them.
bool moe_only(const std::string& key) {
  static const std::set<std::string> keys{"model.top_k",
                                          "model.moe_ffn_hidden",
                                          "model.shared_expert_ffn_hidden",
                                          "model.shared_experts",
                                          "model.moe_layer_interval",
                                          "model.dense_layers",
                                          "model.capacity_factor",
                                          "model.pad_to_capacity",
                                          "model.token_drop_policy",
                                          "model.router_bias",
                                          "model.router_balance",
                                          "model.router_num_groups",
                                          "model.router_group_topk",
                                          "parallel.moe_dispatcher",
                                          "parallel.moe_dispatcher_sms",
                                          "parallel.moe_a2a_overlap",
                                          "parallel.delay_wgrad_compute",
                                          "parallel.expert_tp"};
  return keys.count(key) > 0;
}

}  // namespace

std::string megatron_scenario(const MegatronInput& input, const ImportCluster& cluster, const std::string& command) {
  MegatronState state(input);
  std::vector<std::string> not_modelled = input.not_modelled;
  ScenarioValues keys;

  for (const MegatronName& row : megatron_names()) {
    if (row.key.empty() || !spelled_in(row, input)) continue;
    const MegatronValue* v = state.value(row.name);
    if (!v) continue;
    if (!state.needs_met(row)) {
      if (v->given && v->text != row.megatron_default)
        not_modelled.push_back(v->written + " (counts only with " + std::string(row.needs) + ")");
      continue;
    }
    std::optional<std::string> text;
    if (row.values == "#positive") {  // dropout: a probability above 0
      const auto p = parse::number(v->text);
      if (!p || *p < 0 || *p > 1)
        throw InputError(input.origin, shown_name(row, input), v->text, "expected a probability from 0 to 1");
      text = *p > 0 ? "true" : "false";
    } else if (row.values.starts_with("#")) {
      continue;  // worked out with other settings (megatron_rules.cpp)
    } else {
      text = row.translate(v->text);
      if (text && text->empty()) continue;  // another row gives the key (flex: its backend)
    }
    if (!text) {
      // A switch left off, or a value at Megatron's default, sets nothing the key needs.
      if (v->given && v->text != row.megatron_default)
        not_modelled.push_back(v->written + " (trainsim models " + row.accepted_values() + ")");
      continue;
    }
    keys.set(std::string(row.key), *text,
             v->given ? v->written
                      : shown_name(row, input) + " (not given: Megatron's default " +
                            std::string(row.megatron_default) + ")",
             v->given);
  }
  apply_megatron_rules(state, keys, not_modelled);

  // A dense model: the MoE keys are left out, and any the input set is said.
  if (keys.value("model.experts").value_or("1") == "1")
    keys.erase_if([&](const std::string& key, const ScenarioValue& v) {
      if (!moe_only(key)) return false;
      if (v.given) not_modelled.push_back(v.written + " (a dense model: no experts)");
      return true;
    });

  // The cluster: the preset, and its nodes (given, or one model replica's).
  const std::optional<ClusterSpec> preset = cluster_preset(cluster.preset);
  if (!preset) {
    std::string names;
    for (const std::string& n : cluster_preset_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError("", "--cluster", cluster.preset, "expected one of " + names);
  }
  keys.set("cluster.preset", cluster.preset, "--cluster " + cluster.preset, true);
  std::string nodes_note;
  if (cluster.nodes) {
    keys.set("cluster.nodes", std::to_string(*cluster.nodes), "--nodes " + std::to_string(*cluster.nodes), true);
  } else {
    const int replica = replica_gpus(keys);
    const int nodes = replica_nodes(keys, preset->gpus_per_node);
    keys.set("cluster.nodes", std::to_string(nodes), "--nodes", false);
    nodes_note = "# cluster.nodes: no --nodes given, so the fewest nodes holding one model replica (tp x pp x cp = " +
                 std::to_string(replica) + " GPUs); give --nodes N for the job's\n";
  }

  std::ostringstream out;
  out << "# Made by `" << comment_line(command) << "` from " << comment_line(input.origin) << " (docs/megatron-names.md)\n" << nodes_note;
  std::string section;
  static const std::vector<ScenarioField> fields = scenario_fields();
  for (const ScenarioField& f : fields) {
    const std::optional<std::string> value = keys.value(f.name);
    if (!value) continue;
    if (f.section() != section) {
      section = f.section();
      out << "\n[" << section << "]\n";
    }
    out << f.key() << " = " << *value << "\n";
  }
  if (!not_modelled.empty()) out << "\n";
  for (const std::string& n : not_modelled) out << "# not modelled: " << comment_line(n) << "\n";
  const std::string text = out.str();

  // The scenario loads, or the setting that made the refused key is named.
  try {
    (void)load_scenario(read_ini_text(text, input.origin), input.origin);
  } catch (const InputError& e) {
    // dp is derived from the nodes: a dp that cannot be is the nodes' doing.
    const std::string written = keys.written(e.key() == "parallel.dp" ? "cluster.nodes" : e.key());
    throw InputError(input.origin, written.empty() ? e.key() : written, e.value(),
                     e.rule() + (written.empty() ? std::string() : " (as " + e.key() + ")"));
  }
  return text;
}

}  // namespace trainsim
