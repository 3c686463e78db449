// `trainsim memory SCENARIO [--json]`: the per-GPU memory budget of every pipeline stage.

#include <boost/program_options/options_description.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "models/memory_budget.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/json_output.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace trainsim::cli {

namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", bytes / k_gib);
  return buf;
}

std::string thousands(double v) {
  const std::string digits = std::to_string(static_cast<long long>(v));
  std::string grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

const char* schedule_name(Schedule s) {
  switch (s) {
    case Schedule::gpipe:
      return "gpipe";
    case Schedule::one_f_one_b:
      return "1f1b";
    case Schedule::interleaved:
      return "interleaved";
    case Schedule::zb_h1:
      return "zb-h1";
    case Schedule::dualpipe:
      return "dualpipe";
  }
  return "?";
}

std::string layout_line(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  std::ostringstream out;
  out << s.model.name << " on " << s.cluster.total_gpus() << " x " << s.cluster.gpu.name << " (" << s.cluster.nodes
      << " nodes), tp " << p.tp << " pp " << p.pp << " dp " << p.dp << " cp " << p.cp << " ep " << p.ep
      << (p.expert_folding() ? " expert_tp " + std::to_string(p.expert_tp) : std::string()) << ", zero " << p.zero
      << (p.megatron_fsdp() ? " (Megatron FSDP)" : "") << ", " << schedule_name(p.schedule)
      << (p.sequence_parallel ? ", sequence parallel" : "");
  return out.str();
}

std::string table(const Scenario& s, const MemoryReport& r) {
  std::ostringstream out;
  char line[512];
  out << "trainsim memory: " << layout_line(s) << "\n\n";
  std::snprintf(line, sizeof line, "%-22s %.3f B\n", "parameters", r.parameters / 1e9);
  out << line;
  std::snprintf(line, sizeof line, "%-22s %s  (micro_batch %d x grad_accum %d x dp %d)\n", "global_batch_samples",
                thousands(r.global_batch_samples).c_str(), s.training.micro_batch, s.training.grad_accum,
                s.parallel.dp);
  out << line;
  std::snprintf(line, sizeof line, "%-22s %s\n", "tokens_per_step", thousands(r.tokens_per_step).c_str());
  out << line;
  std::snprintf(line, sizeof line, "%-22s %s GiB per GPU\n\n", "capacity", gib(r.capacity_bytes).c_str());
  out << line;

  out << "per GPU, GiB\n";
  std::snprintf(line, sizeof line, "%5s %6s %9s %8s %9s %9s %11s %8s %9s %9s %8s %8s %8s  %s\n", "stage", "layers",
                "in-flight", "weights", "gradients", "optimizer", "activations", "comm", "framework", "fragment",
                "total", "capacity", "headroom", "fits");
  out << line;
  for (const StageMemory& st : r.stages) {
    const MemoryBreakdown& b = st.bytes;
    std::snprintf(line, sizeof line, "%5d %6d %9.2f %8s %9s %9s %11s %8s %9s %9s %8s %8s %8s  %s\n", st.stage,
                  st.layers, st.inflight_microbatches, gib(b.weights).c_str(), gib(b.gradients).c_str(),
                  gib(b.optimizer_states).c_str(), gib(b.activations).c_str(), gib(b.comm_buffers).c_str(),
                  gib(b.framework).c_str(), gib(b.fragmentation).c_str(), gib(b.total()).c_str(),
                  gib(st.capacity_bytes).c_str(), gib(st.headroom_bytes()).c_str(), st.fits() ? "yes" : "NO");
    out << line;
  }
  const StageMemory& peak = r.peak_stage();
  out << "\n"
      << (r.fits() ? "fits" : "does NOT fit") << ": peak stage " << peak.stage << " needs "
      << units::format_bytes_binary(peak.bytes.total()) << " of " << units::format_bytes_binary(r.capacity_bytes)
      << (r.fits() ? " (headroom " : " (short by ") << units::format_bytes_binary(std::abs(peak.headroom_bytes()))
      << ")\n";
  if (s.training.offload == Offload::cpu)
    out << "host memory per GPU for offloaded states: "
        << units::format_bytes_binary(peak.offloaded_bytes - peak.offloaded_activation_bytes) << "\n";
  if (s.training.offload_activations > 0) {
    // The stage that sends the most to the host, and what left its GPU.
    const StageMemory& most = *std::max_element(r.stages.begin(), r.stages.end(), [](const auto& a, const auto& b) {
      return a.offloaded_activation_bytes < b.offloaded_activation_bytes;
    });
    out << "activations offloaded to host memory: " << units::format_bytes_binary(most.offloaded_activation_bytes)
        << " per GPU on stage " << most.stage << " (" << s.training.offload_activations
        << " layers a stage, over a host link of " << units::format_bytes_binary(s.cluster.host_link_bandwidth_Bps)
        << "/s each way), not in its activations above\n";
  }
  return out.str();
}

std::string json(const Scenario& s, const MemoryReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = s.source;
  j["model"] = s.model.name;
  j["gpu"] = s.cluster.gpu.name;
  j["gpus"] = s.cluster.total_gpus();
  j["units"] = "bytes";
  j["parameters"] = r.parameters;
  j["global_batch_samples"] = r.global_batch_samples;
  j["tokens_per_step"] = r.tokens_per_step;
  j["capacity"] = r.capacity_bytes;
  j["fits"] = r.fits();
  j["peak_stage"] = r.peak_stage().stage;
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const StageMemory& st : r.stages) {
    const MemoryBreakdown& b = st.bytes;
    nlohmann::ordered_json o;
    o["stage"] = st.stage;
    o["layers"] = st.layers;
    o["parameters_per_gpu"] = st.parameters_per_gpu;
    o["inflight_microbatches"] = st.inflight_microbatches;
    o["weights"] = b.weights;
    o["gradients"] = b.gradients;
    o["optimizer_states"] = b.optimizer_states;
    o["activations"] = b.activations;
    o["comm_buffers"] = b.comm_buffers;
    o["framework"] = b.framework;
    o["fragmentation"] = b.fragmentation;
    o["total"] = b.total();
    o["capacity"] = st.capacity_bytes;
    o["fits"] = st.fits();
    o["headroom"] = st.headroom_bytes();
    o["offloaded"] = st.offloaded_bytes;
    o["offloaded_activations"] = st.offloaded_activation_bytes;
    stages.push_back(o);
  }
  j["stages"] = stages;
  return json_output(j);
}

}  // namespace

Command memory_command() {
  Command c;
  c.name = "memory";
  c.summary = "per-GPU peak memory of every pipeline stage, by category, against the GPU's capacity";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    boost::program_options::options_description none;
    const ScenarioOptions o = parse_scenario_options("memory", args, none);
    if (o.help) {
      out << scenario_usage("memory", summary, none);
      return 0;
    }
    const Scenario s = load_scenario(o.scenario_path, o.overrides);
    const MemoryReport r = estimate_memory(s.model, s.training, s.parallel, s.gpu_memory_bytes());
    out << (o.json ? json(s, r) : table(s, r));
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
