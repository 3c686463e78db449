// `trainsim drill SCENARIO [--steps N] [--json] [--trace FILE] [--fail-at S,...]
// [--omit ITEM,...] [--checkpoint-every N]`: the training-semantics drill (sim/drill/).
// Interruptions: --fail-at, else the run simulation's failures (a scenario with [run]
// duration), else one at 7/10 of the steps.
// A tiny model trained for real under the scenario's data-parallel layout, gradient
// reduction order and precision, interrupted and recovered from checkpoints, compared with
// the uninterrupted run.

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "sim/cli/formatted_number.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/json_output.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/portable_math.hpp"
#include "sim/drill/drill_runner.hpp"
#include "sim/drill/drill_trace_writer.hpp"
#include "sim/drill/run_failures.hpp"
#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/run/run_in_processes.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim::cli {

namespace {

namespace po = boost::program_options;
namespace dr = trainsim::drill;

constexpr int k_dp_cap = 8;  ///< simulated data-parallel ranks at most: the math of 8 ranks shows every effect
constexpr long long k_max_steps = 100000;
constexpr long long k_default_steps = 100;
const std::string k_who = "trainsim drill";

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) out.push_back(item);
  if (!text.empty() && text.back() == ',') out.push_back("");
  return out;
}

long long parse_count(const std::string& option, const std::string& text, long long min, long long max,
                      const std::string& rule) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < min || v > max) throw InputError(k_who, option, text, rule);
  return v;
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

// The order the scenario's data-parallel gradient reduction runs in: the algorithm the engine
// picks for one gradient bucket on the scenario's DP group (reduce-scatter with ZeRO, which
// is the ring's first half; all-reduce without).
struct ReductionChoice {
  dr::ReductionOrder order = dr::ReductionOrder::ring;
  std::string algorithm;
  int ranks_per_node = 1;
};

ReductionChoice reduction_choice(const Scenario& s) {
  engine::Simulation simulation;
  const engine::Platform platform(s.cluster);
  const RankMapping mapping(s.parallel, s.cluster);
  engine::CollectiveCall call;
  call.op = s.parallel.zero >= 1 ? engine::CollectiveOp::reduce_scatter : engine::CollectiveOp::all_reduce;
  call.gpus = mapping.group_of(0, GroupAxis::dp);
  call.bytes = s.training.dp_bucket_bytes;
  ReductionChoice c;
  const engine::CollectiveAlgo algo = engine::choose_algorithm(call, platform);
  c.algorithm = engine::op_name(call.op) + " " + engine::algo_name(algo);
  switch (algo) {
    case engine::CollectiveAlgo::double_binary_tree:
      c.order = dr::ReductionOrder::tree;
      break;
    case engine::CollectiveAlgo::hierarchical:
      c.order = dr::ReductionOrder::hierarchical;
      break;
    case engine::CollectiveAlgo::nvls:
      c.order = dr::ReductionOrder::nvls;
      break;
    default:
      c.order = dr::ReductionOrder::ring;
  }
  for (const int g : call.gpus) c.ranks_per_node += platform.node_of(g) == platform.node_of(call.gpus.front()) ? 1 : 0;
  c.ranks_per_node -= 1;
  return c;
}

dr::NumberFormat reduction_format(const TrainingSpec& t) {
  switch (t.grad_precision) {
    case GradPrecision::fp32:
      return dr::NumberFormat::fp32;
    case GradPrecision::bf16:
      return dr::NumberFormat::bf16;
    case GradPrecision::fp16:
      return dr::NumberFormat::fp16;
    case GradPrecision::automatic:
      break;
  }
  return t.precision == Precision::fp16 ? dr::NumberFormat::fp16 : dr::NumberFormat::fp32;
}

std::string precision_name(Precision p) {
  switch (p) {
    case Precision::bf16:
      return "bf16";
    case Precision::fp16:
      return "fp16";
    case Precision::fp8:
      return "fp8";
    case Precision::fp32:
      return "fp32";
    case Precision::mxfp8:
      return "mxfp8";
    case Precision::nvfp4:
      return "nvfp4";
  }
  return "?";
}

std::string diff_text(double v) {
  return v == 0 ? std::string("0") : formatted("%.3g", v);
}

struct Context {
  std::string scenario;
  std::string layout_line;
  std::string reduction_line;
  std::string checkpoint_source;
  std::string fail_source;
  std::string fail_kind;        ///< --json's fail_source: "--fail-at", "run simulation" or "default"
  long long run_failures = -1;  ///< the run simulation's unplanned interruptions; -1: no run simulated
  long long run_steps = -1;
  std::string algorithm;
};

std::string table(const dr::DrillResult& r, const Context& ctx, double wall_s) {
  const dr::DrillSpec& s = r.spec;
  std::ostringstream out;
  out << "trainsim drill: " << ctx.layout_line << "\n";
  out << "a " << r.parameters << "-parameter language model trained on one CPU core (Eigen, fp32), " << s.steps
      << " steps, seed " << s.seed << "\n\n";
  out << "layout        dp " << s.layout.dp << " simulated (scenario dp " << r.scenario_dp << ", cap " << r.dp_cap
      << ") x micro_batch " << s.layout.micro_batch << " x grad_accum " << s.layout.grad_accum << " = global batch "
      << s.layout.global_batch() << " samples of " << s.model.tokens_per_sample << " tokens\n";
  out << "              tensor and pipeline parallelism split each rank's math over GPUs without changing it: "
         "not simulated\n";
  out << "reduction     " << ctx.reduction_line << "\n";
  out << "optimizer     Adam (beta2 " << s.optimizer.beta2 << "), lr " << formatted("%g", s.optimizer.lr_peak) << " after "
      << s.optimizer.warmup_steps << " warmup steps, cosine to " << formatted("%g", s.optimizer.lr_min) << "; dropout "
      << s.model.dropout << ", per rank and step\n";
  out << "checkpoints   every " << s.checkpoint_every << " steps (" << ctx.checkpoint_source << "), "
      << (s.sampler == DataSampler::global ? "global" : "per_rank") << " sampler; interruptions at step";
  constexpr size_t k_listed = 12;  // a long run replays hundreds of failures: the first ones, and the count
  for (size_t i = 0; i < std::min(r.fail_at.size(), k_listed); ++i) out << (i ? "," : " ") << r.fail_at[i];
  if (r.fail_at.size() > k_listed) out << ",... (" << r.fail_at.size() << " steps)";
  out << " (" << ctx.fail_source << ")\n";
  out << "uninterrupted loss " << formatted("%.4f", r.reference.front().loss) << " at step 1, "
      << formatted("%.4f", r.reference.back().loss) << " at step " << s.steps << ", " << r.reference_skipped_steps
      << " step(s) skipped for overflow\n\n";

  char line[512];
  std::snprintf(line, sizeof line, "%-26s %3s %5s %5s %11s %11s %10s %9s %4s %6s %7s %7s\n", "run", "dp", "accum",
                "batch", "max|dloss|", "final dloss", "max|dw|", "identical", "rest", "redone", "dup", "skipped");
  out << line;
  for (const dr::RunComparison& c : r.runs) {
    std::snprintf(line, sizeof line, "%-26s %3d %5d %5lld %11s %11s %10s %9s %4d %6lld %7.0f %7.0f\n", c.name.c_str(),
                  c.layout.dp, c.layout.grad_accum, c.layout.global_batch(), diff_text(c.max_abs_loss_diff).c_str(),
                  diff_text(c.final_loss_diff).c_str(), diff_text(c.max_param_diff).c_str(),
                  c.bit_identical ? "yes" : "no", c.restarts, c.steps_redone, c.samples_duplicated, c.samples_skipped);
    out << line;
  }
  out << "\n";
  for (const dr::RunComparison& c : r.runs) {
    out << c.name << ": " << c.description;
    if (c.gradient_rel_l2_diff >= 0)
      out << "; step " << c.gradient_step << " gradient differs by " << formatted("%.3g", c.gradient_max_abs_diff)
          << " at most, " << formatted("%.3g", c.gradient_rel_l2_diff) << " relative (L2)";
    if (c.samples_duplicated > 0 || c.samples_skipped > 0 || c.cursor_model_duplicated > 0 ||
        c.cursor_model_skipped > 0)
      out << "; the run simulation's cursor model counts " << formatted("%.0f", c.cursor_model_duplicated) << " duplicated, "
          << formatted("%.0f", c.cursor_model_skipped) << " skipped";
    out << "\n";
  }
  for (const std::string& n : r.notes) out << "note: " << n << "\n";
  out << "\ndrill wall time " << formatted("%.2f", wall_s) << " s\n";
  return out.str();
}

nlohmann::json curve_json(const std::vector<dr::StepRecord>& curve) {
  nlohmann::json loss = nlohmann::json::array(), lr = nlohmann::json::array(), skipped = nlohmann::json::array();
  for (const dr::StepRecord& s : curve) {
    loss.push_back(s.loss);
    lr.push_back(s.lr);
    skipped.push_back(s.skipped);
  }
  return {{"loss", loss}, {"lr", lr}, {"skipped", skipped}};
}

nlohmann::json to_json(const dr::DrillResult& r, const Context& ctx, double wall_s) {
  const dr::DrillSpec& s = r.spec;
  nlohmann::json j;
  j["scenario"] = ctx.scenario;
  j["steps"] = s.steps;
  j["seed"] = s.seed;
  j["parameters"] = r.parameters;
  j["dp"] = s.layout.dp;
  j["scenario_dp"] = r.scenario_dp;
  j["dp_cap"] = r.dp_cap;
  j["micro_batch"] = s.layout.micro_batch;
  j["grad_accum"] = s.layout.grad_accum;
  j["global_batch"] = s.layout.global_batch();
  j["tokens_per_sample"] = s.model.tokens_per_sample;
  j["reduction_algorithm"] = ctx.algorithm;
  j["reduction_order"] = dr::order_name(s.order);
  j["reduction_precision"] = dr::format_name(s.reduction_format);
  j["loss_scaling"] = s.loss_scale.enabled;
  j["sampler"] = s.sampler == DataSampler::global ? "global" : "per_rank";
  j["checkpoint_every"] = s.checkpoint_every;
  j["fail_at"] = r.fail_at;
  j["fail_source"] = ctx.fail_kind;
  if (ctx.run_failures >= 0) {
    j["run_failures"] = ctx.run_failures;
    j["run_steps"] = ctx.run_steps;
  }
  j["uninterrupted"] = curve_json(r.reference);
  j["uninterrupted"]["skipped_steps"] = r.reference_skipped_steps;
  nlohmann::json runs = nlohmann::json::array();
  for (const dr::RunComparison& c : r.runs) {
    nlohmann::json x = curve_json(c.curve);
    x["name"] = c.name;
    x["description"] = c.description;
    x["dp"] = c.layout.dp;
    x["grad_accum"] = c.layout.grad_accum;
    x["global_batch"] = c.layout.global_batch();
    x["max_abs_loss_diff"] = c.max_abs_loss_diff;
    x["final_loss_diff"] = c.final_loss_diff;
    x["max_param_diff"] = c.max_param_diff;
    x["bit_identical"] = c.bit_identical;
    x["restarts"] = c.restarts;
    x["steps_redone"] = c.steps_redone;
    x["skipped_steps"] = c.skipped_steps;
    x["samples_duplicated"] = c.samples_duplicated;
    x["samples_skipped"] = c.samples_skipped;
    x["cursor_model_duplicated"] = c.cursor_model_duplicated;
    x["cursor_model_skipped"] = c.cursor_model_skipped;
    if (c.gradient_rel_l2_diff >= 0) {
      x["gradient_step"] = c.gradient_step;
      x["gradient_max_abs_diff"] = c.gradient_max_abs_diff;
      x["gradient_rel_l2_diff"] = c.gradient_rel_l2_diff;
    }
    runs.push_back(x);
  }
  j["runs"] = runs;
  j["notes"] = r.notes;
  j["wall_s"] = wall_s;
  return j;
}

}  // namespace

Command drill_command() {
  Command c;
  c.name = "drill";
  c.summary = "training semantics: a tiny model trained under the layout, recovered from checkpoints";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    po::options_description extra("Drill options");
    extra.add_options()("steps", po::value<std::string>(), "training steps (default 100)")(
        "trace", po::value<std::string>(), "write the curves as HDF5 (/drill/loss, /drill/divergence)")(
        "fail-at", po::value<std::string>(),
        "interrupt at these steps, S,S,... (default: the run simulation's failures, scaled to the drill; else one at "
        "7/10 of the steps)")(
        "omit", po::value<std::string>(),
        "also recover without these checkpoint items: rng, cursor, optimizer, scheduler, loss_scale (comma list)")(
        "checkpoint-every", po::value<std::string>(),
        "steps between checkpoints (default: the scenario's checkpoint.interval in steps, else steps/5)");
    const ScenarioOptions o = parse_scenario_options("drill", args, extra);
    if (o.help) {
      out << scenario_usage("drill", summary, extra);
      return 0;
    }
    const auto& vm = o.variables;
    const long long steps = vm.count("steps")
                                ? parse_count("--steps", vm["steps"].as<std::string>(), 1, k_max_steps,
                                              "expected an integer from 1 to " + std::to_string(k_max_steps))
                                : k_default_steps;
    std::vector<dr::CheckpointItem> omit;
    if (vm.count("omit"))
      for (const std::string& item : split_commas(vm["omit"].as<std::string>())) {
        const auto parsed = dr::parse_item(item);
        if (!parsed) throw InputError(k_who, "--omit", item, "expected one of " + join(dr::item_names()));
        omit.push_back(*parsed);
      }
    std::vector<long long> fail_at;
    if (vm.count("fail-at"))
      for (const std::string& item : split_commas(vm["fail-at"].as<std::string>()))
        fail_at.push_back(parse_count("--fail-at", item, 1, steps,
                                      "expected steps from 1 to --steps (" + std::to_string(steps) + ")"));
    std::string trace_path;
    if (vm.count("trace")) {
      trace_path = vm["trace"].as<std::string>();
    }

    const Scenario s = load_scenario(o.scenario_path, o.overrides);
    // Every file the scenario reads (model.from, a calibration): --trace naming the HF config
    // wrote the HDF5 trace over it, exit 0.
    if (vm.count("trace")) check_output_path(trace_path, "--trace", scenario_input_files(s));
    Context ctx;
    ctx.scenario = s.source;
    dr::DrillSpec spec;
    spec.steps = steps;
    spec.seed = s.run.seed;
    spec.layout.dp = std::min(s.parallel.dp, k_dp_cap);
    spec.layout.micro_batch = s.training.micro_batch;
    spec.layout.grad_accum = s.training.grad_accum;
    spec.sampler = s.checkpoint.sampler;
    spec.reduction_format = reduction_format(s.training);
    spec.loss_scale.enabled = s.training.precision == Precision::fp16;
    spec.optimizer.warmup_steps = std::max<long long>(1, steps / 10);
    spec.optimizer.decay_steps = steps;
    // Without --fail-at, a scenario with a run-level simulation gives the interruptions: its
    // failures replayed on the drill's steps (sim/drill/run_failures.hpp). The run simulates in
    // child processes, before this process starts its own engine (reduction_choice).
    std::optional<dr::ReplayedFailures> replayed;
    if (fail_at.empty() && s.run.simulates_run()) {
      const RunResult run = simulate_run_in_processes(s, *scenario_compute_model(s));
      replayed = dr::replay_run_failures(run, steps);
      fail_at = replayed->fail_at;
    }
    if (vm.count("checkpoint-every")) {
      spec.checkpoint_every = parse_count("--checkpoint-every", vm["checkpoint-every"].as<std::string>(), 1,
                                          k_max_steps, "expected an integer >= 1");
      ctx.checkpoint_source = "--checkpoint-every";
    } else if (replayed && replayed->checkpoint_every > 0) {
      spec.checkpoint_every = replayed->checkpoint_every;
      ctx.checkpoint_source = "the run simulation's interval, scaled to the drill";
    } else if (!s.checkpoint.automatic && s.checkpoint.interval_steps > 0) {
      spec.checkpoint_every = s.checkpoint.interval_steps;
      ctx.checkpoint_source = "the scenario's checkpoint.interval";
    } else {
      spec.checkpoint_every = std::max<long long>(1, steps / 5);
      ctx.checkpoint_source = "steps/5: the scenario gives no interval in steps";
    }
    ctx.fail_kind = vm.count("fail-at") ? "--fail-at" : !fail_at.empty() ? "run simulation" : "default";
    if (replayed) {
      ctx.run_failures = replayed->run_failures;
      ctx.run_steps = replayed->run_steps;
    }
    if (replayed && !fail_at.empty())
      ctx.fail_source = "the run simulation's " + std::to_string(replayed->run_failures) + " failure(s) over " +
                        std::to_string(replayed->run_steps) + " steps, placed at the same fraction of the drill";
    else if (replayed)
      ctx.fail_source = "the run simulation had no failure: 7/10 of the steps";
    else
      ctx.fail_source = fail_at.empty() ? "7/10 of the steps; --fail-at sets them" : "--fail-at";

    const ReductionChoice choice = reduction_choice(s);
    spec.order = choice.order;
    spec.layout.ranks_per_node = std::max(1, choice.ranks_per_node);
    ctx.algorithm = choice.algorithm;
    {
      std::ostringstream l;
      l << s.model.name << " on " << s.cluster.total_gpus() << " x " << s.cluster.gpu.name << ", tp " << s.parallel.tp
        << " pp " << s.parallel.pp << " dp " << s.parallel.dp << " cp " << s.parallel.cp;
      ctx.layout_line = l.str();
      std::ostringstream red;
      red << dr::order_name(spec.order) << " order (the scenario's gradient " << choice.algorithm
          << ", as the engine picks it for one " << formatted("%g", s.training.dp_bucket_bytes / (1024.0 * 1024.0))
          << " MiB bucket) in " << dr::format_name(spec.reduction_format) << " ("
          << precision_name(s.training.precision) << " training), "
          << (spec.loss_scale.enabled
                  ? "dynamic loss scaling from 2^" + formatted("%.0f", portable::log2(spec.loss_scale.initial))
                  : std::string("no loss scaling"));
      ctx.reduction_line = red.str();
    }

    dr::DrillOptions options;
    options.fail_at = fail_at;
    options.omit = omit;
    options.scenario_dp = s.parallel.dp;
    options.dp_cap = k_dp_cap;
    const auto start = std::chrono::steady_clock::now();
    const dr::DrillResult result = dr::run_drill(spec, options);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    if (!trace_path.empty()) dr::write_drill_trace(trace_path, result, s.source);
    if (o.json)
      out << json_output(to_json(result, ctx, wall_s));
    else
      out << table(result, ctx, wall_s);
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
