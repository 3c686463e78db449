// `trainsim run SCENARIO [--json] [--full] [--trace FILE [--trace-level L]] [--chrome-trace FILE]
// [--kineto-out DIR] [--chakra-out DIR [--ranks LIST]]`: one training step simulated on SimGrid,
// optionally recorded as an HDF5 trace, a Chrome trace, Kineto traces (one per simulated rank,
// for Holistic Trace Analysis) and Chakra execution traces.

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "models/memory_budget.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/formatted_number.hpp"
#include "sim/cli/full_platform_limit.hpp"
#include "sim/cli/json_output.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/cli/simulated_replicas.hpp"
#include "sim/cli/step_progress.hpp"
#include "sim/cli/variation_report.hpp"
#include "sim/core/distinct_outputs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/library_versions.hpp"
#include "sim/core/new_output_folder.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/progress_line.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/core/units.hpp"
#include "sim/run/run_in_processes.hpp"
#include "sim/run/run_json.hpp"
#include "sim/scenario/accuracy_caveats.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/step/memory_fit.hpp"
#include "sim/step/observer_pair.hpp"
#include "sim/step/step_fields.hpp"
#include "sim/step/step_simulation.hpp"
#include "sim/trace/chrome_trace_writer.hpp"
#include "sim/trace/hdf5_trace_writer.hpp"
#include "sim/trace/kineto_trace_writer.hpp"
#include "sim/trace/trace_recorder.hpp"
#include "sim/workload/export_folder.hpp"
#include "sim/workload/step_export.hpp"
#include "topologies/rank_mapping.hpp"
#include "trainsim/version.hpp"

namespace trainsim::cli {

namespace {

std::string run_table(const RunResult& r) {
  std::ostringstream out;
  out << "\nrun of " << formatted("%.1f h", r.wall_time_s / 3600) << ": effective training time "
      << formatted("%.1f %%", 100 * r.effective_training_time_ratio) << ", " << r.steps_completed << " steps\n"
      << "interruptions         " << r.failures << " failures (MTTI " << formatted("%.2f h", r.mtti_s / 3600) << "), "
      << r.planned_interruptions << " planned; restarts " << r.restarts << ", lost work "
      << formatted("%.2f h", r.lost_work_s / 3600) << ", restart overhead "
      << formatted("%.2f h", r.restart_overhead_s / 3600) << ", waiting for nodes "
      << formatted("%.2f h", r.waiting_for_nodes_s / 3600) << ", unfinished step " << formatted("%.1f s", r.unfinished_step_s)
      << "\n"
      << "checkpoints           " << r.checkpoints_written << " written, " << r.checkpoints_interrupted
      << " interrupted; every " << formatted("%.1f min", r.checkpoint_interval_s / 60) << " of training, "
      << formatted("%.1f s", r.checkpoint_cost_s) << " each (" << units::format_bytes_binary(r.checkpoint_bytes) << "), "
      << formatted("%.2f h", r.checkpoint_overhead_s / 3600) << " of stalls in all\n"
      << "size                  " << r.resizes << " resizes, data parallel down to " << r.min_dp << ", global batch "
      << formatted("%.0f", r.global_batch_min) << ".." << formatted("%.0f", r.global_batch_max) << " samples\n"
      << "data                  " << formatted("%.0f", r.samples_trained) << " samples trained, "
      << formatted("%.0f", r.samples_duplicated) << " trained on twice, " << formatted("%.0f", r.samples_skipped)
      << " skipped\n";
  if (r.stragglers > 0)
    out << "stragglers            " << r.stragglers << " GPUs turned slow, " << r.straggler_drains << " drained; "
        << formatted("%.2f h", r.straggler_slowdown_s / 3600) << " of training lost to their slower steps\n";
  return out.str();
}

std::string json(const Scenario& s, const StepResult& r, const std::string& compute) {
  nlohmann::ordered_json j;
  j["scenario"] = s.source;
  j["model"] = s.model.name;
  for_each_step_field(r, [&j](const char* group, const char* name, const auto& value) {
    if (group == nullptr)
      j[name] = value;
    else
      j[group][name] = value;
  });
  // The step's fixed costs by name, parts of the breakdown (sim/step/fixed_costs.hpp).
  const FixedCosts& f = r.fixed_costs_s;
  j["fixed_costs_s"] = {{"amax_reductions", f.amax_reductions},
                        {"grad_norm_allreduce", f.grad_norm_allreduce},
                        {"host_after_norm", f.host_after_norm},
                        {"fp8_param_amax_allreduce", f.fp8_param_amax_allreduce},
                        {"host_before_norm", f.host_before_norm}};
  j["compute_model"] = compute;
  j["sim_wall_s"] = r.sim_wall_s;
  // Whether the step's peak fits the GPU, so that a script never takes a layout that does not
  // for one that does (issue 55): the headroom is negative when it does not.
  const MemoryFit fit = memory_fit(s, r);
  j["fits"] = fit.fits;
  j["capacity_bytes"] = fit.capacity_bytes;
  j["headroom_bytes"] = fit.headroom_bytes;
  // How far to trust it (issue 55): the validation family, and what its published runs say.
  j["validation_family"] = validation_family(s).id;
  j["caveats"] = scenario_caveat(s).value_or("");
  return json_output(j);
}

std::string table(const Scenario& s, const StepResult& r, const std::string& compute,
                  const std::vector<std::string>& warnings) {
  std::ostringstream out;
  const ParallelSpec& p = s.parallel;
  out << "trainsim run: " << s.model.name << " on " << r.gpus << " x " << s.cluster.gpu.name << ", tp " << p.tp
      << " pp " << p.pp << " dp " << p.dp << " cp " << p.cp << "\n";
  for (const std::string& w : warnings) out << "warning: " << w << "\n";
  if (const auto caveat = scenario_caveat(s)) out << "caveat: " << *caveat << "\n";
  out << "\nstep time             " << formatted("%.4f s", r.step_time_s) << "  (" << r.steps << " step(s) simulated in "
      << formatted("%.2f s", r.sim_wall_s) << ")\n"
      << "tokens/s              " << formatted("%.0f", r.tokens_per_s) << "  (" << formatted("%.1f", r.tokens_per_s_per_gpu)
      << " per GPU)\n"
      << "model TFLOP/s per GPU " << formatted("%.1f", r.model_tflops_per_gpu) << "  MFU "
      << formatted("%.1f %%", 100 * r.mfu) << "  HFU " << formatted("%.1f %%", 100 * r.hfu) << "\n"
      << "bubble                " << formatted("%.1f %%", 100 * r.bubble_fraction) << "   collectives "
      << formatted("%.1f %%", 100 * r.collective_fraction) << " of the step, exposed "
      << formatted("%.1f %%", 100 * r.exposed_comm_fraction) << "\n\n";
  const StepBreakdown& b = r.breakdown_s;
  out << "per GPU, seconds   data  forward backward recompute optimizer  tp_comm  pp_comm  dp_comm zero_comm  ep_comm"
         "  cp_comm  offload     idle\n"
      << "               " << formatted("%8.4f", b.data) << formatted(" %8.4f", b.forward) << formatted(" %8.4f", b.backward)
      << formatted(" %9.4f", b.recompute) << formatted(" %9.4f", b.optimizer) << formatted(" %8.4f", b.tp_comm)
      << formatted(" %8.4f", b.pp_comm) << formatted(" %8.4f", b.dp_comm) << formatted(" %9.4f", b.zero_comm)
      << formatted(" %8.4f", b.ep_comm) << formatted(" %8.4f", b.cp_comm) << formatted(" %8.4f", b.offload)
      << formatted(" %8.4f", b.idle) << "\n";
  // Part of forward, backward and recompute above (sim/step/host_bound_pass.hpp).
  if (r.host_wait_s > 0)
    out << "host-bound       " << formatted("%8.4f", r.host_wait_s)
        << "  of forward, backward and recompute: the GPU waiting for the host's kernel launches\n";
  const FixedCosts& f = r.fixed_costs_s;
  if (f.amax_reductions + f.grad_norm_allreduce + f.host_after_norm + f.fp8_param_amax_allreduce +
          f.host_before_norm >
      0) {
    out << "fixed per step, ms  " << formatted(" amax_reductions %.3f", 1e3 * f.amax_reductions) << " (of tp_comm)"
        << formatted("  grad_norm_allreduce %.3f", 1e3 * f.grad_norm_allreduce)
        << formatted("  host_after_norm %.3f", 1e3 * f.host_after_norm);
    if (f.fp8_param_amax_allreduce > 0)  // sim/step/fp8_param_gather.hpp
      out << formatted("  fp8_param_amax_allreduce %.3f", 1e3 * f.fp8_param_amax_allreduce);
    if (f.host_before_norm > 0)  // sim/step/loss_host_sync.hpp
      out << formatted("  host_before_norm %.3f", 1e3 * f.host_before_norm);
    out << " (of optimizer)\n";
  }
  out << "\n";
  out << "peak memory           " << units::format_bytes_binary(r.peak_memory_bytes) << " per GPU\n"
      << "energy                " << formatted("%.1f kJ per step", r.energy_per_step_j / 1e3) << ", "
      << formatted("%.3f J per token", r.energy_per_token_j) << ", " << formatted("%.1f kW average", r.avg_power_w / 1e3)
      // The job's GPUs together, by their board power alone (sim/step/account_summary.cpp): a
      // budget for the racks' power needs the hosts, network and cooling beside it.
      << ", the " << r.gpus << " GPUs' own power (no hosts, network or cooling)\n"
      << "compute model         " << compute << "\n"
      << "validation            " << validation_summary(validation_family(s)) << "\n";
  return out.str();
}

// Events kept as they are before the recorder aggregates (about 110 bytes a row before
// compression): a 16,384-GPU step has far fewer, since one replica is simulated.
constexpr std::int64_t k_max_trace_events = 2'000'000;

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TraceMetadata trace_metadata(const Scenario& s, const ScenarioOptions& o, bool reduce_symmetry,
                             const std::string& simulated_gpus) {
  TraceMetadata m;
  m.trainsim_version = k_version;
  m.simgrid_version = simgrid_runtime_version();
  m.hdf5_version = hdf5_runtime_version();
  m.scenario_path = o.scenario_path;
  m.scenario_text = read_ini_file_text(o.scenario_path);
  m.scenario_overrides = joined_lines(o.overrides);
  m.scenario_resolved = resolved_ini(s);
  m.seed = s.run.seed;
  m.reduce_symmetry = reduce_symmetry;
  m.simulated_gpus = simulated_gpus;
  return m;
}

TraceContents trace_contents(const Scenario& s, const ScenarioOptions& o, bool reduce_symmetry,
                             const std::string& simulated_gpus, TraceLevel level, const TraceRecorder& recorder,
                             const StepResult& r, const std::optional<RunResult>& run, const std::string& compute) {
  TraceContents c;
  c.metadata = trace_metadata(s, o, reduce_symmetry, simulated_gpus);
  c.level = level;
  c.summary = r;
  c.compute_model = compute;
  c.model_name = s.model.name;
  const MemoryFit fit = memory_fit(s, r);
  c.verdict = TraceVerdict{fit.fits, fit.capacity_bytes, fit.headroom_bytes, validation_family(s).id,
                           scenario_caveat(s).value_or("")};
  c.steps = recorder.steps();
  for (TraceStep& step : c.steps) {
    step.tokens = r.tokens_per_step;
    step.samples = r.global_batch_samples;
  }
  c.events = recorder.events();
  c.events_rule = recorder.rule();
  c.events_observed = recorder.observed();
  c.max_events = recorder.max_events();
  c.memory = estimate_memory(s.model, s.training, s.parallel, s.gpu_memory_bytes()).stages;
  if (level != TraceLevel::summary) c.links = recorder.links();
  c.run = run;
  return c;
}

}  // namespace

Command run_command() {
  Command c;
  c.name = "run";
  c.summary = "simulate training steps on SimGrid: step time, breakdown, MFU, bubbles, energy";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    boost::program_options::options_description extra("Simulation");
    extra.add_options()("full", "simulate every data-parallel replica and every collective (slow; for checks)")(
        "trace", boost::program_options::value<std::string>()->value_name("FILE"),
        "write an HDF5 trace (schema: analysis/SCHEMA.md)")(
        "trace-level", boost::program_options::value<std::string>()->value_name("LEVEL")->default_value("events"),
        "what the trace holds: summary, steps or events")(
        "chrome-trace", boost::program_options::value<std::string>()->value_name("FILE"),
        "write the events as a Chrome trace (JSON) for Perfetto")(
        "kineto-out", boost::program_options::value<std::string>()->value_name("DIR"),
        "write the events as PyTorch profiler (Kineto) traces, DIR/rank-<R>.pt.trace.json, one per simulated "
        "rank, for Holistic Trace Analysis (DIR is created, or must be empty)")(
        "chakra-out", boost::program_options::value<std::string>()->value_name("DIR"),
        "write the simulated step as Chakra execution traces, DIR/step.<rank>.et (trainsim replay DIR/step)")(
        "ranks", boost::program_options::value<std::string>()->value_name("LIST"),
        "with --chakra-out: only these ranks' traces, e.g. 0-7,12 (default: every rank)")(
        "trace-links",
        "with --trace: sample link utilization into /links (the sampling wakes the engine, so results can "
        "differ from an unsampled run in the last digits)");
    const ScenarioOptions o = parse_scenario_options("run", args, extra);
    if (o.help) {
      out << scenario_usage("run", summary, extra);
      return 0;
    }
    const std::string trace_path = o.variables.count("trace") ? o.variables["trace"].as<std::string>() : "";
    const std::string chrome_path =
        o.variables.count("chrome-trace") ? o.variables["chrome-trace"].as<std::string>() : "";
    const std::string kineto_dir = o.variables.count("kineto-out") ? o.variables["kineto-out"].as<std::string>() : "";
    const TraceLevel level = parse_trace_level(o.variables["trace-level"].as<std::string>(), "--trace-level");
    // Options of the HDF5 trace mean nothing without one: refused rather than ignored.
    if (!o.variables.count("trace")) {
      if (!o.variables["trace-level"].defaulted())
        throw InputError("trainsim run", "--trace-level", o.variables["trace-level"].as<std::string>(),
                         "needs --trace FILE (it sets what the HDF5 trace holds)");
      if (o.variables.count("trace-links"))
        throw InputError("trainsim run", "--trace-links", "", "needs --trace FILE (link samples go into its /links)");
    }
    const std::string chakra_dir = o.variables.count("chakra-out") ? o.variables["chakra-out"].as<std::string>() : "";
    if (o.variables.count("ranks") && chakra_dir.empty())
      throw InputError("trainsim run", "--ranks", o.variables["ranks"].as<std::string>(),
                       "needs --chakra-out DIR (it picks the ranks whose traces are written)");
    const Scenario s = load_scenario(o.scenario_path, o.overrides);
    // --full builds every GPU, as collective and replay do (full_platform_limit.hpp): at 2^20
    // GPUs it passed 4.8 GB in its first minute, still building; the default scenario at 2^17
    // took 166 s of CPU and 2.3 GB (2026-12-07, this 2-core machine under load).
    if (o.variables.count("full") && s.fabric().total_gpus() > k_max_full_platform_gpus)
      throw InputError("trainsim run", "--full", "",
                       "the cluster has " + std::to_string(s.fabric().total_gpus()) +
                           " GPUs: --full simulates every one, at most " + std::to_string(k_max_full_platform_gpus) +
                           " (2^17, as collective and replay); without it one replica per class is simulated");
    // Bad output paths, and outputs that are inputs, are input errors found before anything
    // is simulated.
    const std::vector<std::string> inputs = scenario_input_files(s);
    if (o.variables.count("trace")) check_output_path(trace_path, "--trace", inputs);
    if (o.variables.count("chrome-trace")) check_output_path(chrome_path, "--chrome-trace", inputs);
    check_distinct_outputs({{"--trace", trace_path, false},
                            {"--chrome-trace", chrome_path, false},
                            {"--kineto-out", kineto_dir, true},
                            {"--chakra-out", chakra_dir, true}});
    const RankMapping mapping(s.parallel, s.cluster);
    std::vector<int> chakra_ranks;  // every rank unless --ranks picks some
    if (o.variables.count("ranks"))
      chakra_ranks = workload::parse_rank_list(o.variables["ranks"].as<std::string>(), mapping.world_size());
    else if (!chakra_dir.empty())
      for (int rank = 0; rank < mapping.world_size(); ++rank) chakra_ranks.push_back(rank);
    // An empty name ("--chakra-out $UNSET") is refused ("needs a folder name"), not taken as none.
    if (o.variables.count("chakra-out")) workload::ExportFolder::check(chakra_dir, "trainsim run", "--chakra-out");
    if (o.variables.count("kineto-out")) NewOutputFolder::check(kineto_dir, "trainsim run", "--kineto-out");
    const auto compute = scenario_compute_model(s);
    StepOptions options;
    options.reduce_symmetry = !o.variables.count("full");
    const bool tracing = !trace_path.empty() || !chrome_path.empty() || !kineto_dir.empty();
    TraceRecorder recorder(level == TraceLevel::events || !chrome_path.empty() || !kineto_dir.empty(),
                           k_max_trace_events, o.variables.count("trace-links") > 0);
    workload::StepRecording recording;
    ObserverPair observers(tracing ? &recorder : nullptr, chakra_dir.empty() ? nullptr : &recording);
    if (tracing || !chakra_dir.empty()) options.observer = &observers;
    // The run first (its simulations run in child processes), then this process' step.
    const std::optional<RunResult> run = simulate_run_if_any(s, *compute, terminal_stderr());
    // Many steps take a while (up to k_max_simulated_microbatches): a progress line on a terminal.
    std::optional<StepProgress> progress;
    if (s.run.steps > 1 && terminal_stderr() != nullptr) {
      progress.emplace(terminal_stderr(), s.run.steps, options.observer);
      options.observer = &*progress;
    }
    // What slow GPUs cost: the uniform cluster's step, in a child process, before this one's.
    const std::optional<VariationCost> variation = variation_cost(s, *compute, options.reduce_symmetry);
    const StepResult r = simulate_step(s, *compute, options);
    if (progress) progress->finish();
    // Before any output (the traces, the table, --json): an impossible number is a bug of ours.
    check_step_fields(r);
    if (run) check_run_fields(*run);
    if (tracing) {
      const SimulatedReplicas replicas = simulated_replicas(s, options.reduce_symmetry);
      const TraceContents contents = trace_contents(s, o, options.reduce_symmetry, replicas.description, level,
                                                    recorder, r, run, compute->description());
      if (!trace_path.empty()) write_hdf5_trace(trace_path, contents);
      if (!chrome_path.empty())
        write_chrome_trace(chrome_path, contents.events, s.cluster.gpus_per_node, contents.metadata, replicas.notes);
      if (!kineto_dir.empty()) {
        const KinetoJob job{mapping.world_size(), s.cluster.gpus_per_node, s.cluster.gpu.name, s.gpu_memory_bytes()};
        const int written = write_kineto_traces(kineto_dir, contents, job);
        if (!o.json)
          std::cerr << "trainsim run: wrote " << written << " Kineto trace(s), "
                    << (std::filesystem::path(kineto_dir) / "rank-<R>.pt.trace.json").string()
                    << " (Holistic Trace Analysis: TraceAnalysis(trace_dir=...))\n";
      }
    }
    if (!chakra_dir.empty()) {
      const workload::StepExport exported(recording, mapping, s.parallel, !s.parallel.pp_sends_overlap());
      workload::ExportFolder folder(chakra_dir);
      for (const int rank : chakra_ranks) folder.add_rank(rank, exported.rank_nodes(rank), mapping.world_size());
      folder.add_comm_groups(exported.comm_groups());
      folder.commit();
      const std::string prefix = folder.prefix();
      if (!o.json)
        std::cerr << "trainsim run: wrote " << chakra_ranks.size() << " Chakra trace(s), " << prefix
                  << ".<rank>.et (trainsim replay " << shell_quoted_path(prefix) << ")\n";
    }

    // Where the validation says the result is far off: stderr in every output mode.
    if (const auto caveat = scenario_caveat(s)) std::cerr << "trainsim run: caveat: " << *caveat << "\n";
    if (o.json) {
      // The table says it in a warning line; JSON's reader may not look: stderr too.
      if (const auto w = memory_fit_warning(s, r)) std::cerr << "trainsim run: warning: " << *w << "\n";
      auto j = nlohmann::ordered_json::parse(json(s, r, compute->description()));
      if (variation) j["variations"] = variation_json(s, r, *variation);
      if (run) j["run"] = run_json(*run, false);
      out << json_output(j);
    } else {
      std::vector<std::string> warnings = mapping.warnings();
      if (const auto w = memory_fit_warning(s, r)) {
        warnings.push_back(*w);
        std::cerr << "trainsim run: warning: " << *w << "\n";
      }
      out << table(s, r, compute->description(), warnings);
      if (variation) out << variation_lines(s, r, *variation);
      if (run) out << run_table(*run);
    }
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
