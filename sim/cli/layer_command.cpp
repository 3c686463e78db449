// `trainsim layer SCENARIO [--measured FILE] [--tolerance F] [--json]`: the compute time of
// one transformer layer, op by op, as the step simulation charges it on one GPU (the
// scenario's model, tensor/context/expert sharding, precision, attention kernel and compute
// model; expert GEMMs for the busiest expert-parallel rank); with --measured, beside a layer
// timed on a GPU by `trainsim-calibrate --layer`, or beside the kernels of a PyTorch
// profiler trace of the same shapes (sim/profile/trace_layer_check.hpp).

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>

#include "models/expert_capacity.hpp"
#include "models/layer_kinds.hpp"
#include "models/layer_workload.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/json_output.hpp"
#include "sim/cli/scenario_compute_model.hpp"
#include "sim/cli/scenario_options.hpp"
#include "sim/compute/layer_check.hpp"
#include "sim/core/error.hpp"
#include "sim/profile/profile_calibration.hpp"
#include "sim/profile/profiler_trace.hpp"
#include "sim/profile/trace_file.hpp"
#include "sim/profile/trace_layer_check.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "sim/step/host_bound_pass.hpp"
#include "sim/step/stage_costs.hpp"

namespace trainsim::cli {

namespace {

constexpr double k_default_tolerance = 0.10;  // issue 8: the layer within 10 %

const char* kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::gemm:
      return "gemm";
    case OpKind::batched_gemm:
      return "batched_gemm";
    case OpKind::attention:
      return "attention";
    case OpKind::norm:
      return "norm";
    case OpKind::elementwise:
      return "elementwise";
    case OpKind::embedding:
      return "embedding";
    case OpKind::loss:
      return "loss";
    case OpKind::optimizer:
      return "optimizer";
  }
  return "?";
}

const char* pass_name(OpPass pass) {
  switch (pass) {
    case OpPass::forward:
      return "forward";
    case OpPass::backward:
      return "backward";
    case OpPass::recompute:
      return "recompute";
  }
  return "?";
}

// The measured layer is one unsharded bf16 Llama-style layer: the scenario must describe
// the same one, or the comparison means nothing.
void require_same_layer(const Scenario& s, const MeasuredLayer& layer) {
  const MeasuredLayerShape& m = layer.shape;
  const auto differs = [&](const char* key, long long scenario_value, long long measured_value) {
    if (scenario_value != measured_value)
      throw InputError(layer.file, std::string("# layer: ") + key, std::to_string(measured_value),
                       "must equal the scenario's " + std::to_string(scenario_value) + " (" + s.source + ")");
  };
  differs("h", s.model.hidden, m.hidden);
  differs("heads", s.model.heads, m.heads);
  differs("kv_heads", s.model.kv_heads, m.kv_heads);
  differs("ffn", s.model.ffn_hidden, m.ffn);
  differs("seq", s.model.seq_len, m.seq);
  differs("mb", s.training.micro_batch, m.micro_batch);
  const auto scenario_rule = [&](const char* key, const std::string& value, const std::string& rule) {
    throw InputError(s.source, key, value, rule + " to compare with the measured layer in " + layer.file);
  };
  const ParallelSpec& p = s.parallel;
  if (p.tp != 1 || p.cp != 1)
    scenario_rule("parallel.tp", std::to_string(p.tp) + " x cp " + std::to_string(p.cp),
                  "must be 1 (the measured layer is unsharded)");
  if (s.model.is_moe())
    scenario_rule("model.experts", std::to_string(s.model.experts), "must be 1 (the measured layer is dense)");
  if (s.model.activation != FfnActivation::swiglu || s.model.norm != NormKind::rmsnorm || s.model.bias ||
      s.model.dropout)
    scenario_rule("model.preset", s.model.name, "must be a Llama-style layer (RMSNorm, SwiGLU, no biases, no dropout)");
  if (s.training.precision != Precision::bf16)
    scenario_rule("training.precision", "not bf16", "must be bf16 (the measured layer is)");
  if (m.unfused_attention && s.training.attention != AttentionKernel::standard)
    scenario_rule("training.attention", "flash", "must be standard (the measured attention is unfused)");
}

// One op of the layer with the time the step charges for it.
struct TimedOp {
  const Op* op = nullptr;
  double time_s = 0;
  double load = 1;  ///< the busiest expert-parallel rank's share for expert ops, else 1
  double host_s = 0;  ///< the host's time launching it (host_bound_pass.hpp)
  double flops() const { return load * op->flops; }
  double bytes() const { return load * op->bytes; }
};

// The layer's ops in pass order (forward, recompute, backward) with their charged times.
std::vector<TimedOp> timed_ops(const PassOps& ops, const ComputeModel& compute, double expert_load,
                               HostLaunchCost host) {
  std::vector<TimedOp> timed;
  for (const std::vector<Op>* pass : {&ops.forward, &ops.recompute, &ops.backward})
    for (std::size_t i = 0; i < pass->size(); ++i) {
      const Op& op = (*pass)[i];
      const double load = op_load(op, expert_load);
      timed.push_back({&op, load * compute.time_s(op), load, graph_host_seconds(*pass, i, host)});
    }
  return timed;
}

// One pass's segments between host syncs (host_bound_pass.hpp).
struct PassSegments {
  OpPass pass = OpPass::forward;
  const std::vector<Op>* ops = nullptr;
  std::vector<HostSegment> segments;
};

std::vector<PassSegments> pass_segments(const PassOps& ops, const ComputeModel& compute, double expert_load,
                                        HostLaunchCost host) {
  std::vector<PassSegments> out;
  for (const auto& [pass, list] : {std::pair{OpPass::forward, &ops.forward},
                                   {OpPass::recompute, &ops.recompute},
                                   {OpPass::backward, &ops.backward}})
    if (!list->empty()) out.push_back({pass, list, host_segments(*list, compute, expert_load, host)});
  return out;
}

// The layer's time as the step charges it: its segments through the launch queue.
double charged_seconds(const std::vector<PassSegments>& passes) {
  double total = 0;
  for (const PassSegments& p : passes)
    for (const HostSegment& s : p.segments) total += s.time_s;
  return total;
}

const char* host_name(HostCpu cpu) {
  return cpu == HostCpu::grace ? "grace" : "x86";
}

std::string us(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", seconds * 1e6);
  return buf;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * fraction);
  return buf;
}

// `which`: for a model mixing layer kinds, the layer shown ("layer 0 of 61, dense"); else empty.
std::string header_line(const Scenario& s, const ComputeModel& compute, double expert_load, const std::string& which) {
  const ParallelSpec& p = s.parallel;
  std::ostringstream out;
  out << "trainsim layer: one " << s.model.name << " layer" << (which.empty() ? "" : " (" + which + ")") << " on one "
      << s.cluster.gpu.name << " (tp " << p.tp << ", cp " << p.cp << ", ep " << p.ep
      << (p.expert_folding() ? ", expert_tp " + std::to_string(p.expert_tp) : std::string())
      << (p.sequence_parallel ? ", sequence parallel" : "") << "), micro_batch " << s.training.micro_batch << " x seq "
      << s.model.seq_len << ", attention " << (s.training.attention == AttentionKernel::flash ? "flash" : "standard")
      << "\n"
      << "compute model: " << compute.description() << "\n"
      << "compute only: the layer's tensor/context/expert-parallel communication is not included\n";
  if (s.model.is_moe()) {
    char load[160];
    std::snprintf(load, sizeof load,
                  pads_to_capacity(s.model)
                      ? "experts.* ops: every rank's, %.3f x the balanced share (padded to expert capacity)\n"
                      : "experts.* ops: the busiest expert-parallel rank's, %.3f x the balanced share (router imbalance)\n",
                  expert_load);
    out << load;
  }
  out << "\n";
  return out.str();
}

std::string op_table(const std::vector<TimedOp>& ops) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-28s %-13s %10s %10s %11s %9s %9s %8s\n", "pass", "op", "kind", "GFLOP",
                "MB", "time (us)", "TFLOP/s", "GB/s", "kernels");
  out << line;
  double layer_s = 0, pass_s = 0;
  int layer_kernels = 0, pass_kernels = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = *ops[i].op;
    const double t = ops[i].time_s;
    pass_s += t;
    pass_kernels += op.kernels;
    std::snprintf(line, sizeof line, "%-10s %-28s %-13s %10.2f %10.1f %11s %9.1f %9.0f %8d\n", pass_name(op.pass),
                  op.name.c_str(), kind_name(op.kind), ops[i].flops() / 1e9, ops[i].bytes() / 1e6, us(t).c_str(),
                  ops[i].flops() / t / 1e12, ops[i].bytes() / t / 1e9, op.kernels);
    out << line;
    if (i + 1 == ops.size() || ops[i + 1].op->pass != op.pass) {
      std::snprintf(line, sizeof line, "%-10s %-28s %-13s %10s %10s %11s %9s %9s %8d\n\n", pass_name(op.pass), "total",
                    "", "", "", us(pass_s).c_str(), "", "", pass_kernels);
      out << line;
      layer_s += pass_s;
      layer_kernels += pass_kernels;
      pass_s = 0;
      pass_kernels = 0;
    }
  }
  out << "layer: " << us(layer_s) << " us of GPU time, " << layer_kernels << " kernels\n";
  return out.str();
}

// The host beside the GPU: each pass cut at the host syncs, what each side spends and waits.
std::string host_table(const std::vector<PassSegments>& passes, HostLaunchCost host, HostCpu cpu,
                       const CudaGraphs& graphs) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line,
                "host (%s): %.1f us per op and %.1f us per further kernel (training.kernel_host_time, "
                "kernel_launch_time)\n",
                host_name(cpu), host.op_s * 1e6, host.launch_s * 1e6);
  out << line;
  std::snprintf(line, sizeof line,
                "a Transformer Engine module call %.2f x an op, a kernel a module launches from inside %.1f us, "
                "an expert's GEMM %.1f us more (sim/step/module_host_call.hpp)\n",
                host.module_factor, host.launch_s * 1e6, host.gemm_setup_s * 1e6);
  out << line;
  std::snprintf(line, sizeof line,
                "each weight whose gradient a backward hands back %.1f us (AccumulateGrad and Transformer Engine's "
                "per-weight work, topologies/host_cost.cpp)\n",
                host.weight_gradient_s * 1e6);
  out << line
      << "kernels run in launch order, each once launched; a pass with host syncs runs from a sync to the same\n"
         "sync of the next layer, one without at the later of its GPU and host times\n";
  if (!graphs.none())
    out << "CUDA graphs: " << graph_scopes_text(graphs) << " (training.cuda_graphs): one replay per layer pass\n";
  std::snprintf(line, sizeof line, "%-10s %-28s %5s %8s %11s %11s %11s %11s %11s\n", "pass", "segment from", "ops",
                "kernels", "GPU (us)", "host (us)", "GPU waits", "host waits", "time (us)");
  out << line;
  double gpu = 0, host_total = 0;
  for (const PassSegments& p : passes) {
    HostSegment total;
    double waits = 0, time = 0;  // the GPU's waits for the host, the pass's time
    for (const HostSegment& s : p.segments) {
      const std::string from = (*p.ops)[s.first_op].name + (s.after_sync ? " (sync)" : "");
      std::snprintf(line, sizeof line, "%-10s %-28s %5zu %8d %11s %11s %11s %11s %11s\n", pass_name(p.pass),
                    from.c_str(), s.ops, s.kernels, us(s.gpu_s).c_str(), us(s.host_s).c_str(),
                    us(s.gpu_waits_s()).c_str(), us(s.host_waits_s).c_str(), us(s.time_s).c_str());
      out << line;
      total.ops += s.ops;
      total.kernels += s.kernels;
      total.gpu_s += s.gpu_s;
      total.host_s += s.host_s;
      total.host_waits_s += s.host_waits_s;
      waits += s.gpu_waits_s();
      time += s.time_s;
    }
    std::snprintf(line, sizeof line, "%-10s %-28s %5zu %8d %11s %11s %11s %11s %11s\n\n", pass_name(p.pass), "total",
                  total.ops, total.kernels, us(total.gpu_s).c_str(), us(total.host_s).c_str(), us(waits).c_str(),
                  us(total.host_waits_s).c_str(), us(time).c_str());
    out << line;
    gpu += total.gpu_s;
    host_total += total.host_s;
  }
  out << "layer as the step charges it: " << us(charged_seconds(passes)) << " us (GPU " << us(gpu) << " us, host "
      << us(host_total) << " us)\n";
  return out.str();
}

std::string check_table(const LayerCheck& check, double tolerance, const std::string& file) {
  std::ostringstream out;
  char line[256];
  out << "against " << file << " (trainsim-calibrate --layer):\n";
  std::snprintf(line, sizeof line, "%-10s %-28s %5s %15s %15s %10s\n", "pass", "op", "ops", "predicted (us)",
                "measured (us)", "deviation");
  out << line;
  const auto cell = [](bool present, double s) { return present ? us(s) : std::string("-"); };
  for (const LayerCheckRow& r : check.rows) {
    std::snprintf(line, sizeof line, "%-10s %-28s %5d %15s %15s %10s\n", pass_name(r.pass), r.name.c_str(), r.ops,
                  cell(r.time.predicted(), r.time.predicted_s).c_str(),
                  cell(r.time.measured(), r.time.measured_s).c_str(),
                  r.time.predicted() && r.time.measured() ? percent(r.time.deviation()).c_str() : "-");
    out << line;
  }
  out << "\n";
  for (const auto& [name, pair] :
       {std::pair{"forward", check.forward}, {"backward", check.backward}, {"layer", check.layer()}}) {
    std::snprintf(line, sizeof line, "%-10s %-28s %5s %15s %15s %10s\n", name, "total", "",
                  us(pair.predicted_s).c_str(), us(pair.measured_s).c_str(), percent(pair.deviation()).c_str());
    out << line;
  }
  const bool within = check.within(tolerance);
  std::snprintf(line, sizeof line, "\nlayer (forward + backward): predicted %s of measured: %swithin %.0f %%\n",
                percent(check.layer().deviation()).c_str(), within ? "" : "NOT ", 100.0 * tolerance);
  out << line;
  return out.str();
}

// The layer beside a profiler trace's rows: every op, matched or not, then the verdict on
// the matched ops' total.
std::string trace_check_table(const profile::TraceLayerCheck& check, double tolerance,
                              const profile::ProfileCalibration& trace) {
  std::ostringstream out;
  char line[320];
  out << "against " << trace.file << " (PyTorch profiler trace, " << (trace.gpu.empty() ? "GPU not named" : trace.gpu)
      << "; " << trace.rows.size() << " rows):\n";
  std::snprintf(line, sizeof line, "%-10s %-28s %-38s %6s %15s %15s %10s\n", "pass", "op", "trace row", "calls",
                "predicted (us)", "measured (us)", "deviation");
  out << line;
  std::vector<std::string> missing;
  for (const profile::TraceLayerRow& r : check.rows) {
    const std::string row = r.found ? profile::row_label(r.found->op.shape) : r.wanted;
    std::snprintf(line, sizeof line, "%-10s %-28s %-38s %6s %15s %15s %10s\n", pass_name(r.pass), r.op.c_str(),
                  row.c_str(), r.found ? std::to_string(r.found->calls).c_str() : "-", us(r.time.predicted_s).c_str(),
                  r.found ? us(r.time.measured_s).c_str() : "-",
                  r.found ? percent(r.time.deviation()).c_str() : "not in the trace");
    out << line;
    if (!r.found) missing.push_back(std::string(pass_name(r.pass)) + " " + r.op);
  }
  out << "\nnot in the trace (" << missing.size() << "):";
  for (std::size_t i = 0; i < missing.size(); ++i) out << (i ? ", " : " ") << missing[i];
  if (missing.empty()) out << " none";
  const bool within = check.within(tolerance);
  std::snprintf(line, sizeof line, "\nmatched ops (%d of %zu): predicted %s us, measured %s us: %s: %swithin %.0f %%\n",
                check.found(), check.rows.size(), us(check.matched.predicted_s).c_str(),
                us(check.matched.measured_s).c_str(), percent(check.matched.deviation()).c_str(), within ? "" : "NOT ",
                100.0 * tolerance);
  out << "\n" << line;
  return out.str();
}

nlohmann::ordered_json pair_json(const TimePair& p) {
  nlohmann::ordered_json j;
  j["predicted_s"] = p.predicted_s;
  j["measured_s"] = p.measured_s;
  j["deviation"] = p.measured() && p.predicted() ? nlohmann::ordered_json(p.deviation()) : nlohmann::ordered_json();
  return j;
}

nlohmann::ordered_json trace_check_json(const profile::TraceLayerCheck& check, double tolerance,
                                        const profile::ProfileCalibration& trace) {
  nlohmann::ordered_json m;
  m["file"] = trace.file;
  m["kind"] = "profiler_trace";
  m["gpu"] = trace.gpu;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  nlohmann::ordered_json missing = nlohmann::ordered_json::array();
  for (const profile::TraceLayerRow& r : check.rows) {
    nlohmann::ordered_json row = pair_json(r.time);
    row["op"] = r.op;
    row["pass"] = pass_name(r.pass);
    if (r.found) {
      const profile::RowShape& shape = r.found->op.shape;
      row["trace_row"] = {{"kernel", shape.kernel}, {"dtype", shape.dtype}, {"m", shape.m},
                          {"n", shape.n},           {"k", shape.k},         {"batch", shape.batch}};
      row["calls"] = r.found->calls;
    } else {
      row["trace_row"] = nullptr;
      row["wanted"] = r.wanted;
      missing.push_back(std::string(pass_name(r.pass)) + " " + r.op);
    }
    rows.push_back(row);
  }
  m["rows"] = rows;
  m["not_found"] = missing;
  m["matched_ops"] = check.found();
  m["matched"] = pair_json(check.matched);
  m["tolerance"] = tolerance;
  m["within_tolerance"] = check.within(tolerance);
  return m;
}

nlohmann::ordered_json host_json(const std::vector<PassSegments>& passes, HostLaunchCost host, HostCpu cpu) {
  nlohmann::ordered_json j;
  j["cpu"] = host_name(cpu);
  j["op_s"] = host.op_s;
  j["launch_s"] = host.launch_s;
  j["gemm_setup_s"] = host.gemm_setup_s;
  nlohmann::ordered_json segments = nlohmann::ordered_json::array();
  for (const PassSegments& p : passes)
    for (const HostSegment& s : p.segments)
      segments.push_back({{"pass", pass_name(p.pass)},
                          {"from_op", (*p.ops)[s.first_op].name},
                          {"after_sync", s.after_sync},
                          {"ops", s.ops},
                          {"kernels", s.kernels},
                          {"gpu_s", s.gpu_s},
                          {"host_s", s.host_s},
                          {"gpu_waits_s", s.gpu_waits_s()},
                          {"host_waits_s", s.host_waits_s},
                          {"time_s", s.time_s}});
  j["segments"] = segments;
  j["charged_layer_s"] = charged_seconds(passes);
  return j;
}

std::string json(const Scenario& s, const std::vector<TimedOp>& ops, const ComputeModel& compute,
                 const nlohmann::ordered_json& host, const std::optional<LayerCheck>& check, double tolerance,
                 const std::string& measured_file, const nlohmann::ordered_json& trace_check) {
  nlohmann::ordered_json j;
  j["scenario"] = s.source;
  j["model"] = s.model.name;
  j["gpu"] = s.cluster.gpu.name;
  j["compute_model"] = compute.description();
  j["units"] = "seconds, FLOP, bytes";
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  double totals[3] = {0, 0, 0};
  for (const TimedOp& t : ops) {
    const Op& op = *t.op;
    totals[static_cast<int>(op.pass)] += t.time_s;
    rows.push_back({{"pass", pass_name(op.pass)},
                    {"op", op.name},
                    {"kind", kind_name(op.kind)},
                    {"flops", t.flops()},
                    {"bytes", t.bytes()},
                    {"time_s", t.time_s},
                    {"kernels", op.kernels},
                    {"host_s", t.host_s},
                    {"cuda_graph", op.graph_scope >= 0 ? nlohmann::ordered_json(
                                                             graph_scope_names()[static_cast<size_t>(op.graph_scope)])
                                                       : nlohmann::ordered_json()}});
  }
  j["ops"] = rows;
  j["forward_s"] = totals[static_cast<int>(OpPass::forward)];
  j["recompute_s"] = totals[static_cast<int>(OpPass::recompute)];
  j["backward_s"] = totals[static_cast<int>(OpPass::backward)];
  j["layer_s"] = totals[0] + totals[1] + totals[2];
  j["host"] = host;
  if (check) {
    nlohmann::ordered_json m;
    m["file"] = measured_file;
    nlohmann::ordered_json measured_rows = nlohmann::ordered_json::array();
    for (const LayerCheckRow& r : check->rows) {
      nlohmann::ordered_json row = pair_json(r.time);
      row["op"] = r.name;
      row["pass"] = pass_name(r.pass);
      row["ops"] = r.ops;
      measured_rows.push_back(row);
    }
    m["rows"] = measured_rows;
    m["forward"] = pair_json(check->forward);
    m["backward"] = pair_json(check->backward);
    m["layer"] = pair_json(check->layer());
    m["tolerance"] = tolerance;
    m["within_tolerance"] = check->within(tolerance);
    j["measured"] = m;
  }
  if (!trace_check.is_null()) j["measured"] = trace_check;
  return json_output(j);
}

}  // namespace

Command layer_command() {
  Command c;
  c.name = "layer";
  c.summary = "one transformer layer's compute time, op by op; --measured sets it beside a GPU measurement";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    namespace po = boost::program_options;
    po::options_description extra("Layer");
    extra.add_options()("measured", po::value<std::string>()->value_name("FILE"),
                        "a layer table from trainsim-calibrate --layer, or a PyTorch profiler trace "
                        "(.json[.gz]), to compare with")(
        "tolerance", po::value<std::string>()->value_name("F")->default_value("0.1"),
        "the layer's allowed relative deviation from the measurement")(
        "layer-index", po::value<std::string>()->value_name("N"),
        "the layer to show, 0-based, for models mixing layer kinds (dense and MoE, windowed and full attention); "
        "default: the last");
    const ScenarioOptions o = parse_scenario_options("layer", args, extra);
    if (o.help) {
      out << scenario_usage("layer", summary, extra);
      return 0;
    }
    // Read as text and named as given: boost's own parse said "the argument ('1e9') for option
    // '--layer-index' is invalid" (no rule), and --tolerance 1e308 was shown as 309 digits.
    const std::string tolerance_text = o.variables["tolerance"].as<std::string>();
    const double tolerance = parse::number(tolerance_text).value_or(0);
    if (!(tolerance > 0 && tolerance < 1))
      throw InputError("", "--tolerance", tolerance_text, "must be a number between 0 and 1 (0.1 = 10 %)");
    Scenario s = load_scenario(o.scenario_path, o.overrides);
    const std::string index_text =
        o.variables.count("layer-index") ? o.variables["layer-index"].as<std::string>() : std::to_string(s.model.layers - 1);
    const std::optional<long long> parsed_index = parse::integer(index_text);
    if (!parsed_index || *parsed_index < 0 || *parsed_index >= s.model.layers)
      throw InputError("", "--layer-index", index_text,
                       "must be an integer from 0 to model.layers - 1 = " + std::to_string(s.model.layers - 1));
    const int index = static_cast<int>(*parsed_index);
    std::string which;
    if (!has_uniform_layers(s.model)) {
      const ModelSpec l = layer_spec(s.model, index);
      which = "layer " + std::to_string(index) + " of " + std::to_string(s.model.layers) + ", " +
              (l.is_moe() ? "MoE" : "dense") + ", " +
              (l.sliding_window > 0 ? std::to_string(l.sliding_window) + "-token window" : "full attention") +
              "; --layer-index N shows another";
    }
    s.model = layer_spec(s.model, index);
    const auto compute = scenario_compute_model(s);
    const PassOps ops = transformer_layer_ops(s.model, s.training, s.parallel);
    const double expert_load = expert_row_load(s.model, s.training, s.parallel, s.run.seed);
    const HostLaunchCost host = host_launch_cost(s.training, s.cluster.host);
    const std::vector<TimedOp> timed = timed_ops(ops, *compute, expert_load, host);
    const std::vector<PassSegments> segments = pass_segments(ops, *compute, expert_load, host);
    std::optional<LayerCheck> check;
    std::optional<profile::ProfileCalibration> trace;
    std::optional<profile::TraceLayerCheck> trace_check;
    std::string measured_file;
    if (o.variables.count("measured")) {
      measured_file = o.variables["measured"].as<std::string>();
      if (profile::looks_like_profiler_trace(measured_file)) {
        trace = profile::calibrate_from_profile(profile::read_profiler_trace(measured_file));
        trace_check = profile::check_layer_against_trace(ops, *compute, trace->rows,
                                                         {s.training.precision, s.model.norm, s.model.activation});
        if (trace_check->found() == 0)
          throw InputError(measured_file, "", "",
                           "no op of the scenario's layer appears in the trace (same kernel, dtype and shape: " +
                               std::to_string(trace->rows.size()) + " rows; see trainsim calibrate --from-profile)");
      } else {
        const MeasuredLayer layer = measured_layer(read_calibration_table(measured_file));
        require_same_layer(s, layer);
        check = check_layer(ops, *compute, layer);
      }
    }
    if (o.json) {
      out << json(s, timed, *compute, host_json(segments, host, s.cluster.host), check, tolerance, measured_file,
                  trace_check ? trace_check_json(*trace_check, tolerance, *trace) : nlohmann::ordered_json());
    } else {
      out << header_line(s, *compute, expert_load, which) << op_table(timed) << "\n"
          << host_table(segments, host, s.cluster.host, s.training.cuda_graphs);
      if (check) out << "\n" << check_table(*check, tolerance, measured_file);
      if (trace_check) out << "\n" << trace_check_table(*trace_check, tolerance, *trace);
    }
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
