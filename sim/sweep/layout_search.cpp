#include "sim/sweep/layout_search.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "models/memory_budget.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace trainsim::sweep {

namespace {

// Tensor parallelism stays inside an NVLink domain, as Megatron-LM advises (Narayanan et al.
// SC21 §3.3, Takeaway #1: tensor parallelism up to the GPUs of a server, pipeline
// parallelism across servers; our paraphrase): what the advice rests on is NVLink, so on a
// GB200 NVL72 rack TP may span its 72 GPUs. Every divisor of the domain, so that each TP
// group sits in one domain (on 8-GPU nodes: 1, 2, 4, 8); sizes the model cannot split
// (heads, KV heads, MLP width) are refused by the scenario rules and counted as such.
std::vector<int> tensor_sizes(const Scenario& s) {
  std::vector<int> sizes;
  const int domain = s.cluster.domain_gpus();
  for (int tp = 1; tp <= domain; ++tp)
    if (domain % tp == 0) sizes.push_back(tp);
  return sizes;
}

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

std::vector<int> powers_of_two_up_to(int n) {
  std::vector<int> v;
  for (int x = 1; x <= n; x *= 2) v.push_back(x);
  return v;
}

bool is_open(const std::vector<std::string>& open, const std::string& key) {
  return std::ranges::find(open, key) != open.end();
}

// Context-parallel sizes: the scenario's, or, open, powers of two up to 32 that split the
// sequence into 2 cp chunks (Megatron-LM's load-balanced causal split).
std::vector<int> context_sizes(const Scenario& s, const std::vector<std::string>& open) {
  if (!is_open(open, "parallel.cp")) return {s.parallel.cp};
  std::vector<int> v;
  for (const int cp : powers_of_two_up_to(32))
    if (s.model.seq_len % (2 * cp) == 0 || cp == 1) v.push_back(cp);
  return v;
}

// Expert-parallel sizes: the scenario's, or, open, powers of two dividing the experts.
std::vector<int> expert_sizes(const Scenario& s, const std::vector<std::string>& open) {
  if (!is_open(open, "parallel.ep") || !s.model.is_moe()) return {s.parallel.ep};
  std::vector<int> v;
  for (const int ep : powers_of_two_up_to(s.model.experts))
    if (s.model.experts % ep == 0) v.push_back(ep);
  return v;
}

// Schedules for pp stages and ga micro-batches: 1F1B, and Megatron-LM's interleaved
// schedule where the micro-batches come in groups of pp, with 2 chunks per stage, or, with
// virtual_stages open, 2, 4 and 8, or the chunks --set fixed.
std::vector<std::pair<std::string, int>> schedules(int pp, int ga, bool chunks_open, std::optional<int> fixed_chunks) {
  if (pp == 1) return {{"1f1b", 1}};
  std::vector<std::pair<std::string, int>> v{{"1f1b", 1}};
  if (ga % pp != 0) return v;
  const std::vector<int> chunks = fixed_chunks ? std::vector<int>{*fixed_chunks}
                                  : chunks_open ? std::vector<int>{2, 4, 8}
                                                : std::vector<int>{2};
  for (const int c : chunks)
    if (c > 1) v.push_back({"interleaved", c});
  return v;
}

// The integer --set fixed for `key`, if any (a value that is no integer: none, and the rules
// refuse it where the layout loads).
std::optional<int> fixed_int(const LayoutSearch& search, const std::string& key) {
  for (const auto& [k, v] : search.fixed)
    if (k == key) {
      try {
        return std::stoi(v);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  return std::nullopt;
}

// What saves memory, cheapest first: ZeRO-1 and -2 cost no time over plain data
// parallelism (a reduce-scatter and an all-gather move what an all-reduce moves: Rajbhandari
// et al. §7), recomputation costs compute, ZeRO-3 gathers every layer twice. With the ZeRO
// stage kept only the recomputation varies; Megatron FSDP runs ZeRO 2 or 3 only.
std::vector<std::pair<std::string, std::string>> memory_savers(const Scenario& s, bool zero_open) {
  const std::vector<std::string> open_zeros =
      s.parallel.fsdp == Fsdp::megatron ? std::vector<std::string>{"2"} : std::vector<std::string>{"0", "1", "2"};
  const std::vector<std::string> zeros =
      zero_open ? open_zeros : std::vector<std::string>{std::to_string(s.parallel.zero)};
  std::vector<std::pair<std::string, std::string>> ladder;
  for (const char* recompute : {"none", "selective"})
    for (const std::string& z : zeros) ladder.push_back({z, recompute});
  if (zero_open)
    for (const char* recompute : {"none", "selective"}) ladder.push_back({"3", recompute});
  for (const std::string& z : zeros) ladder.push_back({z, "full"});
  if (zero_open) ladder.push_back({"3", "full"});
  return ladder;
}

// One split of the cluster and the batch: the values of the searched keys but the memory
// savers.
struct Candidate {
  int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1, micro_batch = 1, grad_accum = 1, chunks = 1;
  std::string schedule;
};

// Every split of `base`'s GPUs and batch, in the order the search reports them: context and
// expert sizes, then tensor, pipeline, micro-batch and schedule. The global batch is the
// base's (training.global_batch, or micro_batch x grad_accum x dp), so each split's
// grad_accum is global_batch / (micro_batch x dp); the splits where that does not divide are
// counted in `indivisible` and left out.
// A fixed tensor size, micro-batch or chunk count is tried even where the search would not
// (tp 16 across two 8-GPU nodes, micro-batch 8): the scenario rules judge it.
std::vector<Candidate> candidates(const Scenario& base, const LayoutSearch& search, int& indivisible) {
  const std::vector<std::string>& open = search.searched;
  const std::optional<int> fixed_tp = fixed_int(search, "parallel.tp");
  const std::optional<int> fixed_mb = fixed_int(search, "training.micro_batch");
  const std::optional<int> fixed_chunks = fixed_int(search, "parallel.virtual_stages");
  const long long batch =
      static_cast<long long>(base.training.micro_batch) * base.training.grad_accum * base.parallel.dp;
  const int gpus = base.cluster.total_gpus();
  std::vector<Candidate> out;
  for (const int cp : context_sizes(base, open))
    for (const int ep : expert_sizes(base, open))
      for (const int tp : fixed_tp ? std::vector<int>{*fixed_tp} : tensor_sizes(base)) {
        if (tp < 1 || gpus % (tp * cp) != 0) continue;
        for (const int pp : divisors(gpus / (tp * cp))) {
          if (pp > base.model.layers) break;
          const int dp = gpus / (tp * cp * pp);
          for (const int mb : fixed_mb ? std::vector<int>{*fixed_mb} : std::vector<int>{1, 2, 4}) {
            if (mb < 1) continue;
            if (batch % (static_cast<long long>(mb) * dp) != 0) {
              ++indivisible;
              continue;
            }
            const int ga = static_cast<int>(batch / (static_cast<long long>(mb) * dp));
            for (const auto& [schedule, chunks] :
                 schedules(pp, ga, is_open(open, "parallel.virtual_stages"), fixed_chunks))
              out.push_back({tp, pp, dp, cp, ep, mb, ga, chunks, schedule});
          }
        }
      }
  return out;
}

// The candidate's values for search.keys, the ZeRO stage's slot (if open) left empty and
// the recomputation (the last key) left out.
std::vector<std::string> key_values(const Candidate& c, const std::vector<std::string>& open) {
  std::vector<std::string> values{std::to_string(c.tp),          std::to_string(c.pp),
                                  std::to_string(c.dp),          c.tp > 1 ? "true" : "false",
                                  std::to_string(c.micro_batch), std::to_string(c.grad_accum),
                                  c.schedule,                    std::to_string(c.chunks)};
  if (is_open(open, "parallel.cp")) values.push_back(std::to_string(c.cp));
  if (is_open(open, "parallel.ep")) values.push_back(std::to_string(c.ep));
  if (is_open(open, "parallel.zero")) values.push_back("");
  return values;
}

// The fixed value of `key`, or nothing.
const std::string* fixed_value(const LayoutSearch& search, const std::string& key) {
  for (const auto& [k, v] : search.fixed)
    if (k == key) return &v;
  return nullptr;
}

// Whether `values` (for search.keys, the memory savers left out) keep every fixed key.
bool keeps_fixed(const LayoutSearch& search, const std::vector<std::string>& values) {
  for (size_t k = 0; k < values.size(); ++k) {
    const std::string* v = fixed_value(search, search.keys[k]);
    if (v != nullptr && !values[k].empty() && *v != values[k]) return false;
  }
  return true;
}

// Tries the memory savers on `values` cheapest first and records the first that fits, or
// counts the layout as too big, or as invalid when the rules refuse every rung. A fixed
// ZeRO stage or recomputation leaves only its rungs.
void try_memory_savers(LayoutSearch& search, const std::string& scenario_path, const Scenario& base,
                       std::vector<std::string> values) {
  const bool zero_open = is_open(search.searched, "parallel.zero");
  const size_t zero_slot = values.size() - 1;
  const std::string* fixed_zero = fixed_value(search, "parallel.zero");
  const std::string* fixed_recompute = fixed_value(search, "training.recompute");
  bool loaded = false;
  for (const auto& [zero, recompute] : memory_savers(base, zero_open)) {
    if ((fixed_zero && zero_open && *fixed_zero != zero) || (fixed_recompute && *fixed_recompute != recompute))
      continue;
    if (zero_open) values[zero_slot] = zero;
    std::vector<std::string> all = search.resolved_overrides;
    for (size_t k = 0; k < values.size(); ++k) all.push_back(search.keys[k] + "=" + values[k]);
    all.push_back(search.keys.back() + "=" + recompute);
    Scenario s;
    try {
      s = load_scenario(scenario_path, all);
    } catch (const InputError&) {
      // A rung the rules refuse here (ZeRO-3 with pipelining; no recomputation where the
      // scenario recomputes some layers, training.recompute_layers) need not be the only
      // one: the layout is invalid only when every rung is refused.
      continue;
    }
    loaded = true;
    const MemoryReport m = estimate_memory(s.model, s.training, s.parallel, s.gpu_memory_bytes());
    if (!m.fits()) continue;
    values.push_back(recompute);
    search.fitting.push_back({values, m.peak_stage().bytes.total()});
    return;
  }
  ++(loaded ? search.too_big : search.invalid);
}

// The keys of `keys` that `overrides` set (the last one of each; auto is the search's, not a
// fixed value), in `keys` order. Data parallelism and gradient accumulation are not among
// them: given with --set they size the global batch, as in the scenario file, and each layout
// derives its own.
std::vector<std::pair<std::string, std::string>> fixed_keys(const std::vector<std::string>& keys,
                                                            const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> given;
  for (const std::string& text : overrides) {
    const IniEntry o = parse_override(text);
    given[o.name] = o.value;
  }
  std::vector<std::pair<std::string, std::string>> fixed;
  for (const std::string& key : keys) {
    if (key == "parallel.dp" || key == "training.grad_accum") continue;
    if (const auto it = given.find(key); it != given.end() && it->second != "auto") fixed.push_back(*it);
  }
  return fixed;
}

// The search's base: the scenario with the overrides the search does not set, so that the
// global batch (micro-batch x accumulation x the derived dp) is the scenario's own whatever
// the fixed keys; with them too where the scenario's own split is no split of its GPUs
// without them (pp 4 on 16 GPUs with --set parallel.pp=2).
Scenario load_fixed_base(const std::string& scenario_path, const LayoutSearch& search) {
  std::vector<std::string> without;
  for (const std::string& text : search.resolved_overrides) {
    const std::string name = parse_override(text).name;
    if (std::ranges::none_of(search.fixed, [&](const auto& f) { return f.first == name; })) without.push_back(text);
  }
  try {
    return load_search_base(scenario_path, without, search.searched);
  } catch (const InputError&) {
    if (search.fixed.empty()) throw;
    return load_search_base(scenario_path, search.resolved_overrides, search.searched);
  }
}

}  // namespace

std::vector<std::string> resolve_open_keys(const std::string& scenario_path, const std::vector<std::string>& overrides,
                                           std::vector<std::string>& open) {
  std::map<std::string, std::string> given;
  for (const IniEntry& e : read_ini_file(scenario_path)) given[e.name] = e.value;
  for (const std::string& text : overrides) {
    const IniEntry o = parse_override(text);
    given[o.name] = o.value;
  }
  static const std::map<std::string, std::string> defaults{
      {"parallel.cp", "1"}, {"parallel.ep", "1"}, {"parallel.virtual_stages", "1"}, {"parallel.zero", "0"}};
  std::vector<std::string> resolved = overrides;
  open.clear();
  for (const std::string& key : plan_open_keys()) {
    const auto it = given.find(key);
    if (it == given.end() || it->second != "auto") continue;
    open.push_back(key);
    // The search's base: the smallest value the scenario allows (Megatron FSDP: ZeRO 2).
    const auto fsdp = given.find("parallel.fsdp");
    const bool megatron = fsdp != given.end() && fsdp->second == "megatron";
    resolved.push_back(key + "=" + (key == "parallel.zero" && megatron ? "2" : defaults.at(key)));
    // One chunk per stage is valid only with a schedule of one chunk; every layout of the
    // search names its schedule, so the base's does not matter.
    if (key == "parallel.virtual_stages") resolved.push_back("parallel.schedule=1f1b");
  }
  return resolved;
}

Scenario load_search_base(const std::string& scenario_path, const std::vector<std::string>& resolved,
                          const std::vector<std::string>& open) {
  try {
    return load_scenario(scenario_path, resolved);
  } catch (const InputError& e) {
    // The base's one-chunk schedule stands for every schedule the search tries
    // (resolve_open_keys): the MoE all-to-all overlap, which needs virtual stages with
    // pipelining, is the layouts' to refuse, not the base's; the base sizes the search only.
    // Its refusal names the overlap, or (when the schedule that broke it came as an override,
    // load_scenario names that override) holds it in its rule: "with parallel.moe_a2a_overlap = ...".
    const bool overlap = e.key() == "parallel.moe_a2a_overlap" ||
                         e.rule().find("with parallel.moe_a2a_overlap = ") != std::string::npos;
    if (is_open(open, "parallel.virtual_stages") && overlap) {
      std::vector<std::string> without = resolved;
      without.insert(without.end(), {"parallel.moe_a2a_overlap=false", "parallel.delay_wgrad_compute=false"});
      return load_search_base(scenario_path, without, open);
    }
    if (!is_open(open, e.key())) throw;
    throw InputError(e.file(), e.key(), "auto", e.rule() + " (whatever the search would try there)");
  }
}

LayoutSearch search_layouts(const std::string& scenario_path, const std::vector<std::string>& overrides) {
  LayoutSearch search;
  search.resolved_overrides = resolve_open_keys(scenario_path, overrides, search.searched);
  const std::vector<std::string>& open = search.searched;
  search.keys = {"parallel.tp",          "parallel.pp",         "parallel.dp",       "parallel.sequence_parallel",
                 "training.micro_batch", "training.grad_accum", "parallel.schedule", "parallel.virtual_stages"};
  for (const char* key : {"parallel.cp", "parallel.ep", "parallel.zero"})
    if (is_open(open, key)) search.keys.push_back(key);
  search.keys.push_back("training.recompute");
  search.fixed = fixed_keys(search.keys, overrides);
  search.base = load_fixed_base(scenario_path, search);
  const Scenario& base = search.base;
  int indivisible = 0;
  const std::vector<Candidate> splits = candidates(base, search, indivisible);
  search.batch_indivisible = indivisible;
  for (const Candidate& c : splits) {
    std::vector<std::string> values = key_values(c, open);
    // Sequence parallelism follows tp (on with tp > 1) unless --set fixes it.
    if (const std::string* sp = fixed_value(search, "parallel.sequence_parallel")) values[3] = *sp;
    if (!keeps_fixed(search, values)) continue;
    ++search.considered;
    try_memory_savers(search, scenario_path, base, std::move(values));
  }
  return search;
}

}  // namespace trainsim::sweep
