// `trainsim calibrate --from-profile TRACE.json[.gz] [--out FILE] [--gpu NAME]`: a
// calibration table (kernels/README.md's format) from a PyTorch profiler trace recorded on
// the user's own GPU: every kernel paired with the op that launched it, ops mapped to table
// rows, calls of one shape merged (sim/profile/). The table goes to stdout or, whole, to
// --out (written under a temporary name and renamed); the summary of what was and was not
// mapped goes to stderr.
// `trainsim calibrate --from-nccl-tests LOG... --cluster PRESET [--out FILE]`: a fabric
// calibration from the user's nccl-tests logs (nccl_tests_calibration.hpp).

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/value_semantic.hpp>
#include <boost/program_options/variables_map.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>

#include "sim/cli/command_line.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/nccl_tests_calibration.hpp"
#include "sim/compute/calibration_peaks.hpp"
#include "sim/compute/calibration_table.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/profile/profile_calibration.hpp"
#include "sim/profile/profile_table_writer.hpp"
#include "sim/profile/profiler_trace.hpp"

namespace trainsim::cli {

namespace {

namespace po = boost::program_options;

constexpr const char* k_command = "trainsim calibrate";
constexpr std::size_t k_unmapped_lines = 25;  // unmapped kernel names printed on stderr

struct Options {
  std::string trace;
  std::string out;
  std::string gpu;
  std::vector<std::string> nccl_tests;
  std::string cluster;
  bool help = false;
};

po::options_description visible_options(Options& o) {
  po::options_description d("Options", 120);
  d.add_options()("help,h", "show this help")(
      "from-profile", po::value(&o.trace)->value_name("TRACE"),
      "a PyTorch profiler (Kineto) trace, .json or .json.gz, recorded with record_shapes=True")(
      "out", po::value(&o.out)->value_name("FILE"), "write the table here (default: stdout)")(
      "gpu", po::value(&o.gpu)->value_name("NAME"),
      "the table's '# gpu:' line (default: the trace's deviceProperties name; needed when it has none); a trainsim "
      "GPU preset's name (h100-sxm) bounds the rows by its datasheet peaks")(
      "from-nccl-tests", po::value(&o.nccl_tests)->multitoken()->value_name("LOG..."),
      "nccl-tests outputs (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, sendrecv_perf) "
      "inside one NVLink domain or across nodes and racks: fits each collective's bus bandwidth and latency, by "
      "tier; --out writes the fabric calibration a scenario names (cluster.fabric_calibration)")(
      "cluster", po::value(&o.cluster)->value_name("PRESET"),
      "with --from-nccl-tests: the cluster preset the logs were measured on");
  return d;
}

// The rules `run` applies to a table (sim/compute/calibration_table.cpp, calibration_peaks.cpp),
// applied to the one this trace gives before it is written, so that calibrate never writes a
// table that run refuses. The GPU name goes into the header line by line: a control character
// (a line end) would split it. The rows are bounded by the peaks of the GPU preset the name
// names (--gpu h100-sxm), else by the fastest GPU trainsim knows: a kernel duration near zero
// gives a rate no GPU reaches (or `inf`).
void check_table(const std::string& table, const std::string& gpu, const std::string& trace, const std::string& key) {
  std::string shown;  // the name with its control characters escaped, so the error stays one line
  bool control = false;
  for (const char c : gpu) {
    const bool is_control = static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    control = control || is_control;
    if (c == '\n') shown += "\\n";
    else if (c == '\r') shown += "\\r";
    else if (is_control) shown += "?";
    else shown += c;
  }
  if (control)
    throw InputError(trace, key, shown,
                     "a GPU name without control characters (a line end would split the table's header)");
  try {
    std::istringstream in(table);
    const CalibrationTable read = parse_calibration_table(in, trace);
    const std::optional<GpuSpec> preset = gpu_preset(gpu);
    std::vector<GpuSpec> known;
    for (const std::string& name : gpu_preset_names()) known.push_back(*gpu_preset(name));
    check_calibration_peaks(read, preset ? *preset : fastest_gpu_bounds(known));
  } catch (const InputError& e) {
    throw InputError(trace, "the table it gives, " + e.key(), e.value(),
                     e.rule() + " (from the trace's kernel durations, shapes or names)");
  }
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

Command calibrate_command() {
  Command c;
  c.name = "calibrate";
  c.summary =
      "a calibration table from a PyTorch profiler trace of your own GPU (--from-profile), or a fabric calibration "
      "from your nccl-tests logs (--from-nccl-tests)";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    Options o;
    const po::options_description visible = visible_options(o);
    const po::variables_map vm = parse_command_line(args, visible, k_command);
    if (vm.count("help")) {
      out << "usage: trainsim calibrate --from-profile TRACE.json[.gz] [--out FILE] [--gpu NAME]\n"
          << "       trainsim calibrate --from-nccl-tests LOG... --cluster PRESET [--out FILE]\n\n"
          << summary << "\n\n"
          << visible;
      return 0;
    }
    // An empty name ("--out $UNSET") is refused, not taken as stdout.
    if (vm.count("out") && o.out.empty()) check_output_path(o.out, "--out");
    if (vm.count("from-nccl-tests")) {
      if (vm.count("from-profile") || vm.count("gpu"))
        throw InputError(k_command, vm.count("gpu") ? "--gpu" : "--from-profile", "",
                         "not with --from-nccl-tests (a fabric calibration, not a kernel table)");
      return calibrate_from_nccl_tests({o.nccl_tests, o.cluster, vm.count("out") ? o.out : ""}, out);
    }
    if (vm.count("cluster")) throw InputError(k_command, "--cluster", o.cluster, "only with --from-nccl-tests");
    if (o.trace.empty())
      throw InputError(k_command, "--from-profile", "",
                       "give the profiler trace to read: --from-profile TRACE.json.gz, or nccl-tests logs: "
                       "--from-nccl-tests LOG...");
    if (vm.count("out")) check_output_path(o.out, "--out", {o.trace});
    if (vm.count("gpu") && o.gpu.empty()) throw InputError(k_command, "--gpu", "", "needs a GPU name");

    const profile::ProfilerTrace trace = profile::read_profiler_trace(o.trace);
    if (trace.gpu_name.empty() && o.gpu.empty())
      throw InputError(o.trace, "deviceProperties", "",
                       "missing: the trace does not name its GPU; give it with --gpu NAME");
    profile::ProfileCalibration calibration = profile::calibrate_from_profile(trace);
    if (!o.gpu.empty()) calibration.gpu = o.gpu;

    // The command that made the table, quoted for the shell (a --gpu name with a quote ran
    // what followed it when pasted back), as --from-nccl-tests writes its own.
    std::string tool = std::string(k_command) + " --from-profile " + shell_quoted_path(o.trace);
    if (!o.gpu.empty()) tool += " --gpu " + shell_quoted(o.gpu);
    const std::string table = profile::profile_table_text(calibration, {utc_now(), tool});
    check_table(table, calibration.gpu, o.trace, o.gpu.empty() ? "deviceProperties name" : "--gpu");
    std::string summary_text = profile::profile_summary_text(calibration, k_unmapped_lines);
    if (vm.count("out")) {
      write_file_atomically(o.out, table);
      summary_text += "table: " + o.out + " (" + std::to_string(calibration.rows.size()) + " rows)\n";
    } else {
      out << table;
    }
    std::cerr << summary_text;
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
