#include "sim/sweep/layout_search.hpp"

#include "models/memory_budget.hpp"
#include "sim/core/error.hpp"
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

// Schedules for pp stages and ga micro-batches: 1F1B, and Megatron-LM's interleaved
// schedule with 2 chunks per stage where the micro-batches come in groups of pp.
std::vector<std::pair<std::string, int>> schedules(int pp, int ga) {
  if (pp == 1) return {{"1f1b", 1}};
  std::vector<std::pair<std::string, int>> v{{"1f1b", 1}};
  if (ga % pp == 0) v.push_back({"interleaved", 2});
  return v;
}

}  // namespace

const std::vector<std::string>& layout_keys() {
  static const std::vector<std::string> keys{
      "parallel.tp",          "parallel.pp",         "parallel.dp",       "parallel.sequence_parallel",
      "training.micro_batch", "training.grad_accum", "parallel.schedule", "parallel.virtual_stages",
      "training.recompute"};  // last: chosen per layout
  return keys;
}

LayoutSearch search_layouts(const std::string& scenario_path, const std::vector<std::string>& overrides) {
  const Scenario base = load_scenario(scenario_path, overrides);
  const long long batch =
      static_cast<long long>(base.training.micro_batch) * base.training.grad_accum * base.parallel.dp;
  const int gpus = base.cluster.total_gpus();
  const int cp = base.parallel.cp;
  LayoutSearch search;
  for (const int tp : tensor_sizes(base)) {
    if (gpus % (tp * cp) != 0) continue;
    for (const int pp : divisors(gpus / (tp * cp))) {
      if (pp > base.model.layers) break;
      const int dp = gpus / (tp * cp * pp);
      for (const int mb : {1, 2, 4}) {
        if (batch % (static_cast<long long>(mb) * dp) != 0) continue;
        const int ga = static_cast<int>(batch / (static_cast<long long>(mb) * dp));
        for (const auto& [schedule, chunks] : schedules(pp, ga)) {
          ++search.considered;
          std::vector<std::string> values{
              std::to_string(tp), std::to_string(pp), std::to_string(dp), tp > 1 ? "true" : "false",
              std::to_string(mb), std::to_string(ga), schedule,           std::to_string(chunks)};
          bool valid = true, fits = false;
          for (const char* recompute : {"none", "selective", "full"}) {
            std::vector<std::string> all = overrides;
            for (size_t k = 0; k < values.size(); ++k) all.push_back(layout_keys()[k] + "=" + values[k]);
            all.push_back(layout_keys().back() + "=" + recompute);
            Scenario s;
            try {
              s = load_scenario(scenario_path, all);
            } catch (const InputError&) {
              valid = false;
              break;
            }
            const MemoryReport m = estimate_memory(s.model, s.training, s.parallel, s.gpu_memory_bytes());
            if (!m.fits()) continue;
            values.push_back(recompute);
            search.fitting.push_back({values, m.peak_stage().bytes.total()});
            fits = true;
            break;
          }
          if (!valid)
            ++search.invalid;
          else if (!fits)
            ++search.too_big;
        }
      }
    }
  }
  return search;
}

}  // namespace trainsim::sweep
