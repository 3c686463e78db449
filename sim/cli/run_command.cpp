// `trainsim run SCENARIO [--json] [--full]`: one training step simulated on SimGrid.

#include <boost/program_options/options_description.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "sim/cli/command.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/step_simulation.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim::cli {

namespace {

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

nlohmann::ordered_json breakdown_json(const StepBreakdown& b) {
  nlohmann::ordered_json j;
  j["data"] = b.data;
  j["forward"] = b.forward;
  j["backward"] = b.backward;
  j["recompute"] = b.recompute;
  j["optimizer"] = b.optimizer;
  j["tp_comm"] = b.tp_comm;
  j["pp_comm"] = b.pp_comm;
  j["dp_comm"] = b.dp_comm;
  j["zero_comm"] = b.zero_comm;
  j["ep_comm"] = b.ep_comm;
  j["cp_comm"] = b.cp_comm;
  j["idle"] = b.idle;
  return j;
}

nlohmann::ordered_json comm_bytes_json(const CommBytes& c) {
  nlohmann::ordered_json j;
  j["tp"] = c.tp;
  j["pp"] = c.pp;
  j["dp"] = c.dp;
  j["zero"] = c.zero;
  j["ep"] = c.ep;
  j["cp"] = c.cp;
  return j;
}

std::string json(const Scenario& s, const StepResult& r, const std::string& compute) {
  nlohmann::ordered_json j;
  j["scenario"] = s.source;
  j["model"] = s.model.name;
  j["step_time_s"] = r.step_time_s;
  j["gpus"] = r.gpus;
  j["global_batch_samples"] = r.global_batch_samples;
  j["tokens_per_step"] = r.tokens_per_step;
  j["tokens_per_s"] = r.tokens_per_s;
  j["tokens_per_s_per_gpu"] = r.tokens_per_s_per_gpu;
  j["model_tflops_per_gpu"] = r.model_tflops_per_gpu;
  j["hardware_tflops_per_gpu"] = r.hardware_tflops_per_gpu;
  j["mfu"] = r.mfu;
  j["hfu"] = r.hfu;
  j["bubble_fraction"] = r.bubble_fraction;
  j["collective_fraction"] = r.collective_fraction;
  j["exposed_comm_fraction"] = r.exposed_comm_fraction;
  j["breakdown_s"] = breakdown_json(r.breakdown_s);
  j["comm_bytes_per_gpu"] = comm_bytes_json(r.comm_bytes_per_gpu);
  j["peak_memory_bytes"] = r.peak_memory_bytes;
  j["energy_per_step_j"] = r.energy_per_step_j;
  j["energy_per_token_j"] = r.energy_per_token_j;
  j["avg_power_w"] = r.avg_power_w;
  j["dp_reductions_per_step"] = r.dp_reductions;
  j["steps"] = r.steps;
  j["compute_model"] = compute;
  j["sim_wall_s"] = r.sim_wall_s;
  return j.dump(2) + "\n";
}

std::string table(const Scenario& s, const StepResult& r, const std::string& compute,
                  const std::vector<std::string>& warnings) {
  std::ostringstream out;
  const ParallelSpec& p = s.parallel;
  out << "trainsim run: " << s.model.name << " on " << r.gpus << " x " << s.cluster.gpu.name << ", tp " << p.tp
      << " pp " << p.pp << " dp " << p.dp << " cp " << p.cp << "\n";
  for (const std::string& w : warnings) out << "warning: " << w << "\n";
  out << "\nstep time             " << format("%.4f s", r.step_time_s) << "  (" << r.steps << " step(s) simulated in "
      << format("%.2f s", r.sim_wall_s) << ")\n"
      << "tokens/s              " << format("%.0f", r.tokens_per_s) << "  (" << format("%.1f", r.tokens_per_s_per_gpu)
      << " per GPU)\n"
      << "model TFLOP/s per GPU " << format("%.1f", r.model_tflops_per_gpu) << "  MFU "
      << format("%.1f %%", 100 * r.mfu) << "  HFU " << format("%.1f %%", 100 * r.hfu) << "\n"
      << "bubble                " << format("%.1f %%", 100 * r.bubble_fraction) << "   collectives "
      << format("%.1f %%", 100 * r.collective_fraction) << " of the step, exposed "
      << format("%.1f %%", 100 * r.exposed_comm_fraction) << "\n\n";
  const StepBreakdown& b = r.breakdown_s;
  out << "per GPU, seconds   data  forward backward recompute optimizer  tp_comm  pp_comm  dp_comm zero_comm  ep_comm"
         "  cp_comm     idle\n"
      << "               " << format("%8.4f", b.data) << format(" %8.4f", b.forward) << format(" %8.4f", b.backward)
      << format(" %9.4f", b.recompute) << format(" %9.4f", b.optimizer) << format(" %8.4f", b.tp_comm)
      << format(" %8.4f", b.pp_comm) << format(" %8.4f", b.dp_comm) << format(" %9.4f", b.zero_comm)
      << format(" %8.4f", b.ep_comm) << format(" %8.4f", b.cp_comm) << format(" %8.4f", b.idle) << "\n\n";
  out << "peak memory           " << units::format_bytes_binary(r.peak_memory_bytes) << " per GPU\n"
      << "energy                " << format("%.1f kJ per step", r.energy_per_step_j / 1e3) << ", "
      << format("%.3f J per token", r.energy_per_token_j) << ", " << format("%.1f kW average", r.avg_power_w / 1e3)
      << "\n"
      << "compute model         " << compute << "\n";
  return out.str();
}

}  // namespace

Command run_command() {
  Command c;
  c.name = "run";
  c.summary = "simulate training steps on SimGrid: step time, breakdown, MFU, bubbles, energy";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    boost::program_options::options_description extra("Simulation");
    extra.add_options()("full", "simulate every data-parallel replica and every collective (slow; for checks)");
    const ScenarioOptions o = parse_scenario_options("run", args, extra);
    if (o.help) {
      out << scenario_usage("run", summary, extra);
      return 0;
    }
    const Scenario s = load_scenario(o.scenario_path, o.overrides);
    const auto compute = scenario_compute_model(s);
    StepOptions options;
    options.reduce_symmetry = !o.variables.count("full");
    const StepResult r = simulate_step(s, *compute, options);
    out << (o.json ? json(s, r, compute->description())
                   : table(s, r, compute->description(), RankMapping(s.parallel, s.cluster).warnings()));
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
