#include "sim/scenario/accuracy_caveats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/scenario/router_caveat.hpp"

namespace trainsim {

namespace {

// The families, from two facts of the scenario:
// - dense or mixture of experts (model.experts > 1): the validation tables show the two apart
//   (dense rows within 16 % but for MLPerf's short 8B steps on GB200, every MoE run 9 to
//   185 % fast), since what a real MoE layer pays beyond its GEMMs is not all priced yet
//   (README.md, "How close it is");
// - the GPU's architecture (its preset's gpu.architecture), which goes with its kernels and
//   NVLink generation, and the host that issues the kernels: Ampere (a100-80g), Hopper
//   (h100-sxm, h200, h800), Blackwell on x86 hosts (b200, b300) and Grace-Blackwell (gb200,
//   gb300 on cluster.host = grace: Grace's slower host cost per call, topologies/host_cost.hpp,
//   and NVL72's NVLink domain). Any other pair is unvalidated.
// Precision is not a third fact of the family: each family's runs hold one to three formats
// (A100 fp16, H100 and B200 dense fp8, MoE bf16, fp8 and MXFP8), too few to tell them apart;
// a precision outside them is said by coverage_caveat.
//
// The figures: each family's published runs in scenarios/validation/ (every file with a
// `# published_<metric>` line, the same-stack checks `d5-*.ini` and MLPerf's logged runs
// `mlperf-*.ini` included: a user reads the worst error we know of), simulated with
// this build: the runs, the least and the largest throughput error and the mean absolute
// error, in percent, then the GPU presets the runs ran on, the most GPUs one used and the
// precisions they trained in (what coverage_caveat holds a scenario to: the H200, H800, B300
// and GB300 have no published run, and dense Hopper's are all fp8). tests/cli/accuracy_caveats_test.cpp recomputes them and fails when one
// is off by more than a point; its failure prints the rows below as they should read
// (regenerate: `build/tests/trainsim_tests --gtest_filter=AccuracyCaveats.TableIsCurrent`).
const std::vector<ValidationFamily>& table() {
  static const std::vector<ValidationFamily> families{
      {"dense-ampere", "dense on Ampere (A100)", 10, -9.9, 3.6, 4.7, {"a100-80g"}, 3072, {"fp16"}},
      {"dense-hopper", "dense on Hopper (H100, H200, H800)", 6, -2.7, 10.6, 4.1, {"h100-sxm"}, 10752, {"fp8"}},
      {"dense-blackwell", "dense on Blackwell (B200, B300)", 2, -4.7, -3.4, 4.1, {"b200"}, 128, {"fp8"}},
      {"dense-grace-blackwell", "dense on Grace-Blackwell (GB200, GB300)", 3, -7.8, 10.5, 6.6, {"gb200"}, 512, {"fp8", "nvfp4"}},
      {"moe-ampere", "MoE on Ampere (A100)", 0, 0, 0, 0, {}, 0, {}},
      {"moe-hopper", "MoE on Hopper (H100, H200, H800)", 9, -7.2, 11.9, 5.8, {"h100-sxm"}, 64, {"bf16", "fp8"}},
      {"moe-blackwell", "MoE on Blackwell (B200, B300)", 8, -15.0, 16.7, 7.5, {"b200"}, 256, {"bf16", "fp8", "mxfp8"}},
      {"moe-grace-blackwell", "MoE on Grace-Blackwell (GB200, GB300)", 2, -22.3, 3.7, 13.0, {"gb200"}, 16, {"bf16", "mxfp8"}},
  };
  return families;
}

// An architecture (or an architecture on a host) that no published run of ours covers, such as
// a user's own GPU preset file: nothing measures its error.
const ValidationFamily& unvalidated_family() {
  static const ValidationFamily family{"unvalidated", "a GPU with no published run (a preset of one's own)", 0, 0, 0, 0, {}, 0, {}};
  return family;
}

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f", v);
  return buf;
}

}  // namespace

std::string precision_name(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
    case Precision::fp32: return "fp32";
    case Precision::mxfp8: return "mxfp8";
    case Precision::nvfp4: return "nvfp4";
  }
  return "unknown";
}

const std::vector<ValidationFamily>& validation_families() {
  return table();
}

const ValidationFamily& validation_family(const Scenario& s) {
  // The GPU preset's architecture (gpu.architecture), Grace-hosted apart: a Grace host issues
  // kernels at its own cost per call (topologies/host_cost.hpp) and its racks are NVL72's.
  const std::string& architecture = s.cluster.gpu.architecture;
  if (architecture.empty()) return unvalidated_family();
  const std::string id = std::string(s.model.is_moe() ? "moe-" : "dense-") +
                         (s.cluster.host == HostCpu::grace ? "grace-" : "") + architecture;
  for (const ValidationFamily& f : table())
    if (f.id == id) return f;
  return unvalidated_family();  // an architecture (or host) no published run of ours covers
}

std::optional<std::string> accuracy_caveat(const ValidationFamily& f) {
  if (f.runs == 0)
    return "accuracy unmeasured: no published run of " + f.description +
           " is in scenarios/validation/, so nothing says how close this result is";
  if (std::max(std::abs(f.min_error_pct), std::abs(f.max_error_pct)) <= k_caveat_threshold_pct) return std::nullopt;
  const std::string reading = f.min_error_pct > 0   ? ": read this throughput as an upper bound"
                              : f.max_error_pct < 0 ? ": read this throughput as a lower bound"
                                                    : "";
  char mean[32];
  std::snprintf(mean, sizeof mean, "%.1f", f.mean_abs_error_pct);
  return "accuracy: " + f.description + " is off by " + percent(f.min_error_pct) + " to " +
         percent(f.max_error_pct) + " % in throughput on its " + std::to_string(f.runs) +
         " published runs (mean absolute " + mean + " %; scenarios/validation/README.md)" + reading;
}

std::optional<std::string> coverage_caveat(const Scenario& s) {
  const ValidationFamily& f = validation_family(s);
  if (f.runs == 0) return std::nullopt;  // accuracy_caveat says nothing measures it
  std::vector<std::string> outside;
  const std::string& gpu = s.cluster.gpu.name;
  if (std::find(f.gpus.begin(), f.gpus.end(), gpu) == f.gpus.end()) {
    std::string on;
    for (const std::string& g : f.gpus) on += (on.empty() ? "" : ", ") + g;
    outside.push_back("no published run on " + gpu + " (its family's are on " + on + ")");
  }
  // The job's own GPUs: a neighbour's share the fabric but are not what the step runs on.
  const int gpus = s.cluster.total_gpus();
  if (gpus > f.max_gpus)
    outside.push_back(std::to_string(gpus) + " GPUs, more than its family's largest published run (" +
                      std::to_string(f.max_gpus) + ")");
  const std::string precision = precision_name(s.training.precision);
  if (std::find(f.precisions.begin(), f.precisions.end(), precision) == f.precisions.end()) {
    std::string in;
    for (const std::string& p : f.precisions) in += (in.empty() ? "" : ", ") + p;
    outside.push_back("no published run in " + precision + " (its family's are in " + in + ")");
  }
  if (outside.empty()) return std::nullopt;
  std::string line = "accuracy extrapolated: ";
  for (std::size_t i = 0; i < outside.size(); ++i) line += (i ? " and " : "") + outside[i];
  if (accuracy_caveat(f)) return line;  // which says the family's range already
  return line + "; " + f.description + " is off by " + percent(f.min_error_pct) + " to " +
         percent(f.max_error_pct) + " % on the runs it has (scenarios/validation/README.md)";
}

std::optional<std::string> scenario_caveat(const Scenario& s) {
  std::string line;
  for (const std::optional<std::string>& part :
       {accuracy_caveat(validation_family(s)), coverage_caveat(s), router_balance_caveat(s)})
    if (part) line += (line.empty() ? "" : "; ") + *part;
  if (line.empty()) return std::nullopt;
  return line;
}

std::string validation_summary(const ValidationFamily& f) {
  if (f.runs == 0) return f.description + ": no published run";
  return f.description + ": " + std::to_string(f.runs) + " published run" + (f.runs == 1 ? "" : "s") + " off by " +
         percent(f.min_error_pct) + " to " + percent(f.max_error_pct) + " %";
}

}  // namespace trainsim
