#include "sim/scenario/scenario_loader.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/nearest_name.hpp"
#include "sim/scenario/fabric_calibration_field.hpp"
#include "sim/scenario/megatron_names.hpp"
#include "sim/scenario/precision_recipe.hpp"
#include "sim/scenario/preset_files.hpp"
#include "sim/scenario/scenario_fields.hpp"
#include "sim/scenario/scenario_rules.hpp"

namespace trainsim {

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string suggestion(const std::string& name, const std::vector<std::string>& candidates, const std::string& before,
                       const std::string& after) {
  const auto nearest = nearest_name(name, candidates);
  return nearest ? "; did you mean " + before + *nearest + after + "?" : "";
}

const ScenarioField& field_for(const IniEntry& entry, const std::vector<ScenarioField>& fields) {
  const auto dot = entry.name.find('.');
  const std::string section = dot == std::string::npos ? std::string() : entry.name.substr(0, dot);
  const std::string key = dot == std::string::npos ? entry.name : entry.name.substr(dot + 1);
  if (section.empty()) throw InputError(entry.origin, entry.name, entry.value, "key outside any [section]");
  if (contains(reserved_sections(), section))
    throw InputError(entry.origin, entry.name, entry.value,
                     "section [" + section + "] is reserved for long-run simulation and not supported yet");
  if (!contains(scenario_sections(), section))
    throw InputError(entry.origin, entry.name, entry.value,
                     "unknown section [" + section + "]" + suggestion(section, scenario_sections(), "[", "]"));
  std::vector<std::string> keys;
  const ScenarioField* elsewhere = nullptr;  // the same key in another section
  for (const ScenarioField& f : fields) {
    if (f.name == entry.name) return f;
    if (f.section() == section) keys.push_back(f.key());
    if (f.key() == key && !elsewhere) elsewhere = &f;
  }
  // A key put in the wrong section (`run.tp`) is named where it belongs: "unknown key in [run]"
  // alone did not say.
  throw InputError(entry.origin, entry.name, entry.value,
                   "unknown key in [" + section + "]" +
                       (elsewhere ? "; did you mean " + elsewhere->name + " (a key of [" + elsewhere->section() + "])?"
                                  : suggestion(key, keys, "'", "'")));
}

void require_model_shape(const Scenario& s, const std::map<std::string, const IniEntry*>& given) {
  if (given.count("model.from")) {
    const IniEntry& from = *given.at("model.from");
    if (given.count("model.preset"))
      throw InputError(from.origin, "model.from", from.value, "give model.preset or model.from, not both");
    // A config.json's max_position_embeddings is the longest context the model accepts, not
    // the sequence it trains on.
    if (!given.count("model.seq_len"))
      throw InputError(s.source, "model.seq_len", "", "required beside model.from (config.json has no training length)");
    return;
  }
  if (given.count("model.preset")) return;
  for (const char* key :
       {"model.layers", "model.hidden", "model.heads", "model.ffn_hidden", "model.vocab", "model.seq_len"}) {
    if (!given.count(key)) throw InputError(s.source, key, "", "required when model.preset is not given");
  }
}

// The --set entry among `keys`, the first given; null when the file gave them all.
const IniEntry* override_among(const std::map<std::string, const IniEntry*>& given,
                               std::initializer_list<const char*> keys) {
  for (const char* key : keys)
    if (const auto it = given.find(key); it != given.end() && it->second->origin == "--set") return it->second;
  return nullptr;
}

void derive_data_parallel(Scenario& s, const std::map<std::string, const IniEntry*>& given) {
  ParallelSpec& p = s.parallel;
  const int gpus = s.cluster.total_gpus();
  if (given.count("parallel.dp")) return;  // checked against the cluster by the rules
  // In double: three ints can overflow any integer type (found by tests/fuzz); the cluster's
  // count is <= 2^20, so a product beyond it cannot divide it.
  const double model_parallel = static_cast<double>(p.tp) * p.pp * p.cp;
  if (model_parallel > gpus || gpus % static_cast<int>(model_parallel) != 0) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", model_parallel);
    const std::string rule =
        "cannot derive dp: the cluster's " + std::to_string(gpus) + " GPUs are not divisible by tp*pp*cp = " + text;
    // A --set that sized the cluster or the model-parallel split is what broke it: named, not the file.
    if (const IniEntry* o = override_among(given, {"cluster.preset", "cluster.nodes", "cluster.gpus_per_node",
                                                   "parallel.tp", "parallel.pp", "parallel.cp"}))
      throw InputError(o->origin, o->name, o->value, "parallel.dp (derived): " + rule);
    throw InputError(s.source, "parallel.dp", "(derived)", rule);
  }
  p.dp = gpus / static_cast<int>(model_parallel);
}

// training.global_batch (issue 55 item 9): the batch users think in, turned into the
// micro-batches each pipeline runs per step, grad_accum = global_batch / (micro_batch x dp)
// (Megatron-LM's num_microbatches = global_batch_size / (micro_batch_size x data_parallel_size),
// megatron/core/num_microbatches_calculator.py), with dp as given or derived. Given beside
// grad_accum, the two must agree.
void derive_grad_accum(Scenario& s, const std::map<std::string, const IniEntry*>& given) {
  TrainingSpec& t = s.training;
  if (t.global_batch == 0) return;
  const std::string origin = given.at("training.global_batch")->origin;
  const std::string value = std::to_string(t.global_batch);
  // micro_batch < 2^31 and dp <= 2^20 (check_cluster_size): the product fits.
  const long long round = static_cast<long long>(t.micro_batch) * s.parallel.dp;
  const std::string shape = "training.micro_batch x parallel.dp = " + std::to_string(t.micro_batch) + " x " +
                            std::to_string(s.parallel.dp) + " = " + std::to_string(round);
  if (given.count("training.grad_accum")) {
    // In double: the product of three ints can pass any integer type; exact below 2^53.
    const double batch = static_cast<double>(round) * t.grad_accum;
    if (batch != static_cast<double>(t.global_batch)) {
      char text[32];
      std::snprintf(text, sizeof text, "%.0f", batch);
      throw InputError(origin, "training.global_batch", value,
                       "disagrees with training.grad_accum = " + std::to_string(t.grad_accum) +
                           ": micro_batch x grad_accum x dp = " + std::to_string(t.micro_batch) + " x " +
                           std::to_string(t.grad_accum) + " x " + std::to_string(s.parallel.dp) + " = " + text +
                           " samples (give one of the two)");
    }
    return;
  }
  if (t.global_batch % round != 0)
    throw InputError(origin, "training.global_batch", value,
                     "must be a multiple of " + shape + " (grad_accum = global_batch / (micro_batch x dp))");
  const long long grad_accum = t.global_batch / round;
  if (grad_accum > k_max_simulated_microbatches)
    throw InputError(origin, "training.global_batch", value,
                     "gives grad_accum = " + std::to_string(grad_accum) + " (global_batch / " + shape + "): " +
                         k_simulated_microbatches_why);
  t.grad_accum = static_cast<int>(grad_accum);
}

// The key a --set of `o` replaces besides its own: training.global_batch and grad_accum are
// two ways of giving one batch, so either, set on the command line or by a sweep, replaces
// the file's other (global_batch = 0 gives the batch back to grad_accum and replaces nothing).
std::string batch_partner(const IniEntry& o) {
  if (o.name == "training.grad_accum") return "training.global_batch";
  if (o.name == "training.global_batch" && o.value != "0") return "training.grad_accum";
  return "";
}

// Likewise model.preset and model.from are two ways of giving one model.
std::string model_partner(const IniEntry& o) {
  if (o.name == "model.preset") return "model.from";
  if (o.name == "model.from") return "model.preset";
  return "";
}

}  // namespace

const std::vector<std::string>& plan_open_keys() {
  static const std::vector<std::string> keys{"parallel.cp", "parallel.ep", "parallel.virtual_stages", "parallel.zero"};
  return keys;
}

namespace {

Scenario load_entries(const std::vector<IniEntry>& entries, const std::string& source, bool neighbour_allowed);
void apply_and_check(Scenario& s, const std::vector<std::pair<const IniEntry*, const ScenarioField*>>& work,
                     const std::map<std::string, const IniEntry*>& given, bool neighbour_allowed);
[[noreturn]] void naming_the_override(const InputError& e, const std::string& source,
                                      const std::map<std::string, const IniEntry*>& given);

// Megatron's names of keys (megatron_names.hpp) as trainsim's: `tensor_model_parallel_size = 8`
// in [parallel] is parallel.tp = 8. A key given twice under two names is an error, unless the
// later is a --set, which replaces the file's. Null when every name is trainsim's (the common
// case, kept free of copies: a sweep loads every point before it starts).
std::optional<std::vector<IniEntry>> with_megatron_names(const std::vector<IniEntry>& entries,
                                                         const std::set<std::string, std::less<>>& keys) {
  if (std::ranges::all_of(entries, [&](const IniEntry& e) { return keys.count(e.name) > 0; })) return std::nullopt;
  std::vector<IniEntry> named;
  std::map<std::string, std::pair<std::size_t, bool>> written;  // key -> (index in named, by an alias)
  for (const IniEntry& e : entries) {
    const std::optional<IniEntry> alias = keys.count(e.name) ? std::nullopt : megatron_alias(e);
    const IniEntry& entry = alias ? *alias : e;
    const auto it = written.find(entry.name);
    if (it != written.end() && (alias || it->second.second)) {
      if (entry.origin != "--set")
        throw InputError(e.origin, e.name, e.value, "sets " + entry.name + " a second time (give it once, by one name)");
      named[it->second.first] = entry;  // a --set replaces the file's
      continue;
    }
    written[entry.name] = {named.size(), alias.has_value()};
    named.push_back(entry);
  }
  return named;
}

// variations.neighbour: the other job's scenario, read from its path (relative to this
// scenario's file; written back absolute), without a neighbour of its own.
void load_neighbour(Scenario& s, bool allowed) {
  if (s.variations.neighbour.empty()) return;
  if (!allowed)
    throw InputError(s.source, "variations.neighbour", s.variations.neighbour,
                     "a neighbour's scenario cannot have a neighbour of its own");
  std::filesystem::path path(s.variations.neighbour);
  if (path.is_relative()) path = std::filesystem::path(s.source).parent_path() / path;
  std::error_code ec;
  path = std::filesystem::absolute(path, ec).lexically_normal();
  if (ec || !std::filesystem::is_regular_file(path, ec))
    throw InputError(s.source, "variations.neighbour", s.variations.neighbour,
                     "must name a scenario file (" + path.string() + " is none)");
  s.variations.neighbour = path.string();
  const std::vector<IniEntry> entries = read_ini_file(s.variations.neighbour);
  s.neighbour = std::make_shared<const Scenario>(load_entries(entries, s.variations.neighbour, false));
  check_neighbour(s);
}

Scenario load_entries(const std::vector<IniEntry>& entries, const std::string& source, bool neighbour_allowed) {
  // Built once: the schema is fixed, and building its ~120 fields cost more than a load
  // (sweeps load every point before starting, the fuzz target millions of texts).
  static const std::vector<ScenarioField> fields = scenario_fields();
  Scenario s;
  s.source = source;
  s.model = ModelSpec{};
  s.cluster = *cluster_preset("dgx-h100");

  std::map<std::string, const IniEntry*> given;
  std::vector<std::pair<const IniEntry*, const ScenarioField*>> work;
  static const std::set<std::string, std::less<>> keys = [] {
    std::set<std::string, std::less<>> names;
    for (const ScenarioField& f : fields) names.insert(f.name);
    return names;
  }();
  const std::optional<std::vector<IniEntry>> named = with_megatron_names(entries, keys);
  for (const IniEntry& e : named ? *named : entries) {
    const ScenarioField& f = field_for(e, fields);
    given[e.name] = &e;
    work.emplace_back(&e, &f);
  }
  std::stable_sort(work.begin(), work.end(),
                   [](const auto& a, const auto& b) { return a.second->priority < b.second->priority; });
  try {
    apply_and_check(s, work, given, neighbour_allowed);
  } catch (const InputError& e) {
    naming_the_override(e, source, given);
  }
  return s;
}

void apply_and_check(Scenario& s, const std::vector<std::pair<const IniEntry*, const ScenarioField*>>& work,
                     const std::map<std::string, const IniEntry*>& given, bool neighbour_allowed) {
  for (const auto& [entry, field] : work) {
    if (entry->value == "auto" && std::ranges::find(plan_open_keys(), entry->name) != plan_open_keys().end())
      throw InputError(entry->origin, entry->name, entry->value,
                       "only trainsim plan searches it; other commands need a number");
    if (const auto rule = field->apply(s, entry->value))
      throw InputError(entry->origin, entry->name, entry->value, *rule);
  }

  require_model_shape(s, given);
  if (!given.count("model.kv_heads") && !given.count("model.preset") && !given.count("model.from"))
    s.model.kv_heads = s.model.heads;
  check_cluster_size(s);
  derive_data_parallel(s, given);
  derive_grad_accum(s, given);
  derive_precision_recipe(s);
  check_scenario_rules(s);
  check_fabric_calibration(s);  // measured on the cluster's GPU (fabric_calibration_field.hpp)
  load_neighbour(s, neighbour_allowed);
}

// Whether `rule` names the key `name` (model.heads in "must be divisible by model.heads = 7",
// not in model.heads_dim).
bool names_key(const std::string& rule, const std::string& name) {
  const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  for (auto at = rule.find(name); at != std::string::npos; at = rule.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at == 0 || !part(rule[at - 1])) && (end == rule.size() || !part(rule[end]) || rule[end] == '.')) return true;
  }
  return false;
}

// `e` as the user's --set made it: a rule across keys names the scenario file as the origin of
// every key, so `--set parallel.dp=3` and `--set model.heads=7` were blamed on the file
// (`scenarios/default.ini: model.hidden = '8192': must be divisible by model.heads = 7`). The
// key a --set gave, or one its rule names, is named with --set and its value; the file's key
// the rule is about stays in the message. Errors of other files (a preset, the neighbour) and
// rules about the file's keys alone are thrown as they are.
[[noreturn]] void naming_the_override(const InputError& e, const std::string& source,
                                      const std::map<std::string, const IniEntry*>& given) {
  if (e.file() != source) throw e;
  if (const auto it = given.find(e.key()); it != given.end()) {
    if (it->second->origin == "--set") throw InputError("--set", e.key(), e.value(), e.rule());
  }
  for (const auto& [name, entry] : given) {
    if (entry->origin != "--set" || !names_key(e.rule(), name)) continue;
    std::string what = e.key();
    if (!e.value().empty()) what += " = '" + e.value() + "'";
    throw InputError("--set", name, entry->value, (what.empty() ? "" : "with " + what + " (" + source + "): ") + e.rule());
  }
  throw e;
}

}  // namespace

Scenario load_scenario(const std::vector<IniEntry>& entries, const std::string& source) {
  return load_entries(entries, source, true);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  // A directory or an empty file would otherwise get "model.layers: required", as if a
  // scenario had been given and a key forgotten.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "", "not a scenario file: it is a directory");
  std::vector<IniEntry> entries = read_ini_file(path);
  if (entries.empty()) throw InputError(path, "", "", "not a scenario file: it has no 'key = value' lines");
  for (const std::string& text : overrides) {
    IniEntry o = parse_override(text);
    if (auto alias = megatron_alias(o)) o = std::move(*alias);  // --set training.global_batch_size=64
    const std::string partner = batch_partner(o);
    const std::string model = model_partner(o);
    std::erase_if(entries, [&](const IniEntry& e) {
      return e.name == o.name || (!partner.empty() && e.name == partner && e.origin == path) ||
             (!model.empty() && e.name == model && e.origin == path);
    });
    // A path on the command line is the current folder's, not the scenario file's.
    if ((o.name == "model.from" && !o.value.empty()) ||
        ((o.name == "model.preset" || o.name == "cluster.preset") && names_a_preset_file(o.value))) {
      std::error_code path_ec;
      const auto absolute = std::filesystem::absolute(o.value, path_ec);
      if (!path_ec) o.value = absolute.lexically_normal().string();
    }
    entries.push_back(std::move(o));
  }
  return load_scenario(entries, path);
}

void check_overrides_given_once(const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> given;  // key -> the value first given
  for (const std::string& text : overrides) {
    IniEntry o = parse_override(text);
    if (auto alias = megatron_alias(o)) o = std::move(*alias);
    const auto [it, first] = given.emplace(o.name, o.value);
    if (!first)
      throw InputError("--set", o.name, o.value,
                       "the key is set twice (first to '" + it->second + "'): give each key once");
  }
}

std::string resolved_ini(const Scenario& s) {
  std::ostringstream out;
  std::string section;
  Scenario probe;  // scratch: checks that a preset name is one
  for (const ScenarioField& f : scenario_fields()) {
    if (f.section() != section) {
      section = f.section();
      out << (out.tellp() > 0 ? "\n" : "") << "[" << section << "]\n";
    }
    // A preset is written first, then every key it filled in, explicitly: reading the text
    // back applies the preset and then the same values. A model given key by key has none.
    const std::string value = f.show(s);
    if (f.priority == 0 && f.apply(probe, value).has_value())
      out << "# " << f.key() << ": none\n";
    else
      out << f.key() << " = " << value << "\n";
  }
  return out.str();
}

}  // namespace trainsim
