#include "sim/cli/nccl_tests_calibration.hpp"

#include <filesystem>

#include "sim/core/error.hpp"
#include "sim/core/nearest_name.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/profile/nccl_tests_fit.hpp"
#include "sim/profile/nccl_tests_log.hpp"
#include "topologies/cluster_spec.hpp"
#include "topologies/fabric_calibration.hpp"

namespace trainsim::cli {

namespace {

constexpr const char* k_command = "trainsim calibrate";

ClusterSpec named_cluster(const std::string& name) {
  if (name.empty())
    throw InputError(k_command, "--cluster", "",
                     "give the cluster the logs were measured on (its GPU's NVLink): --cluster PRESET (" +
                         cluster_preset_list() + ")");
  if (const auto c = cluster_preset(name)) return *c;
  std::string rule = "expected one of " + cluster_preset_list();
  if (const auto near = nearest_name(name, cluster_preset_names())) rule += "; did you mean '" + *near + "'?";
  throw InputError(k_command, "--cluster", name, rule);
}

}  // namespace

int calibrate_from_nccl_tests(const NcclTestsCalibration& o, std::ostream& out) {
  const ClusterSpec cluster = named_cluster(o.cluster);
  if (!o.out.empty()) check_output_path(o.out, "--out", o.logs);
  std::vector<profile::NcclTestsLog> logs;
  for (const std::string& path : o.logs) {
    logs.push_back(profile::read_nccl_tests_log(path));
    // Its ranks in the preset's NVLink domains: one, or several holding as many ranks each.
    profile::place_in_domains(logs.back(), cluster.nodes_per_domain(), cluster.gpus_per_node);
  }
  const FabricCalibration calibration = profile::fit_nccl_tests_logs(logs, cluster.gpu.name);
  out << profile::nccl_tests_fit_table(logs, calibration, cluster.nvlink_bandwidth_Bps);
  if (o.out.empty()) return 0;
  std::string tool = std::string(k_command) + " --cluster " + shell_quoted(o.cluster) + " --from-nccl-tests";
  std::vector<std::string> comments{"trainsim fabric calibration: collectives inside one NVLink domain and across "
                                    "domains, fitted to nccl-tests logs (topologies/fabric_calibration.hpp)"};
  for (const profile::NcclTestsLog& log : logs) {
    const std::string name = std::filesystem::path(log.file).filename().string();
    tool += " " + shell_quoted_path(name);
    comments.push_back("log: " + name + ", " + log.test + " on " + std::to_string(log.ranks) + " GPUs" +
                       (log.domains > 1 ? " in " + std::to_string(log.domains) + " NVLink domains" : std::string()) +
                       (log.device.empty() ? std::string() : " (" + log.device + ")"));
  }
  comments.insert(comments.begin() + 1, "tool: " + tool);
  write_file_atomically(o.out, fabric_calibration_text(calibration, comments));
  out << "fabric calibration: " << o.out << "\n";
  return 0;
}

}  // namespace trainsim::cli
