// [cluster]: the node type and its GPU, the NVLink domain, the fabric and its links, kernel and fabric
// calibrations, and the rules across them.

#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/fabric_calibration_field.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/preset_files.hpp"
#include "sim/scenario/preset_library.hpp"
#include "sim/scenario/rule_helpers.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::Rule;
using field_kinds::bandwidth_field;
using field_kinds::bool_field;
using field_kinds::bytes_field;
using field_kinds::enum_field;
using field_kinds::fraction_field;
using field_kinds::int_field;
using field_kinds::join;
using field_kinds::latency_field;
using field_kinds::number_field;

const parse::EnumNames<HostCpu> k_hosts{{{"x86", HostCpu::x86}, {"grace", HostCpu::grace}}};
const parse::EnumNames<Fabric> k_fabrics{{{"single-switch", Fabric::single_switch},
                                          {"fat-tree", Fabric::fat_tree},
                                          {"rail-optimized", Fabric::rail_optimized},
                                          {"ideal", Fabric::ideal}}};
const parse::EnumNames<Network> k_networks{
    {{"infiniband", Network::infiniband}, {"spectrum-x", Network::spectrum_x}, {"roce", Network::roce}}};

ScenarioField cluster_preset_field() {
  ScenarioField f;
  f.name = "cluster.preset";
  f.help = "node type and fabric defaults (trainsim presets lists them), or the path of a cluster preset file";
  f.priority = 0;
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    std::string path;
    if (names_a_preset_file(text)) {
      if (auto rule = preset_file_rule(text, s.source, path)) return rule;
      s.cluster = read_cluster_preset(path, shipped_presets().gpus).spec;
      s.read_files.push_back(path);
      return std::nullopt;
    }
    const auto c = cluster_preset(text);
    if (!c) return "expected one of " + join(cluster_preset_names()) + ", or a cluster preset file's path";
    s.cluster = *c;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.cluster.preset; };
  return f;
}

ScenarioField gpu_field() {
  ScenarioField f;
  f.name = "cluster.gpu";
  f.help = "GPU type (trainsim presets lists them)";
  f.priority = 1;  // before cluster.gpu_memory, which overrides its capacity
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto g = gpu_preset(text);
    if (!g) return "expected one of " + join(gpu_preset_names());
    s.cluster.gpu = *g;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.cluster.gpu.name; };
  return f;
}

ScenarioField calibration_field() {
  ScenarioField f;
  f.name = "cluster.calibration";
  f.help = "kernel timings: auto (the GPU's shipped table), none (datasheet roofline), or a table's path";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text.empty()) return "expected auto, none or the path of a calibration table";
    s.cluster.calibration = std::string(text);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.cluster.calibration; };
  return f;
}

}  // namespace

std::vector<ScenarioField> cluster_fields() {
  std::vector<ScenarioField> fields{
      cluster_preset_field(),
      gpu_field(),
      bytes_field(
          "cluster.gpu_memory", "GPU memory capacity; default: the GPU's",
          [](auto& s) -> auto& { return s.cluster.gpu.memory_bytes; }),
      fraction_field(
          "cluster.tp_overlap_slowdown",
          "extra slowdown of GEMMs beside overlapped TP communication, over the SMs and HBM its kernels take",
          [](auto& s) -> auto& { return s.cluster.gpu.tp_overlap_slowdown; }),
      int_field(
          "cluster.nodes", "nodes", [](auto& s) -> auto& { return s.cluster.nodes; }, 1),
      int_field(
          "cluster.gpus_per_node", "GPUs per node", [](auto& s) -> auto& { return s.cluster.gpus_per_node; }, 1),
      int_field(
          "cluster.nvlink_domain", "GPUs per NVLink domain, whole nodes (GB200 NVL72: 72); 0: one node",
          [](auto& s) -> auto& { return s.cluster.nvlink_domain; }, 0),
      int_field(
          "cluster.gpus_per_domain",
          "GPUs the job uses in each NVLink domain, whole nodes (NVL72 jobs past one rack: 64); 0: the whole domain",
          [](auto& s) -> auto& { return s.cluster.gpus_per_domain; }, 0),
      enum_field(
          "cluster.fabric", "inter-node fabric", [](auto& s) -> auto& { return s.cluster.fabric; }, k_fabrics),
      enum_field(
          "cluster.network", "what the NICs and switches speak: infiniband, spectrum-x (Ethernet), roce (Ethernet)",
          [](auto& s) -> auto& { return s.cluster.network; }, k_networks),
      enum_field(
          "cluster.host", "the CPU that issues the GPUs' work: x86 (DGX, HGX) or grace (GB200, GB300)",
          [](auto& s) -> auto& { return s.cluster.host; }, k_hosts),
      bool_field(
          "cluster.sharp", "InfiniBand switches reduce (SHARP) and NCCL's CollNet plugin is loaded",
          [](auto& s) -> auto& { return s.cluster.sharp; }),
      bool_field(
          "cluster.nvls", "NCCL may use NVLink SHARP (NVLS, NVLS-tree); false: NCCL_NVLS_ENABLE=0",
          [](auto& s) -> auto& { return s.cluster.nvls; }),
      int_field(
          "cluster.nccl_min_ctas",
          "NCCL_MIN_CTAS: SMs each NCCL collective takes at least; compute beside the gradient and parameter "
          "collectives runs sms / (sms - this) as long; 0: training.overlap_slowdown",
          [](auto& s) -> auto& { return s.cluster.nccl_min_ctas; }, 0),
      bandwidth_field(
          "cluster.nvlink_bandwidth", "NVLink per GPU per direction",
          [](auto& s) -> auto& { return s.cluster.nvlink_bandwidth_Bps; }),
      latency_field(
          "cluster.nvlink_latency", "NVLink hop latency", [](auto& s) -> auto& { return s.cluster.nvlink_latency_s; }),
      bandwidth_field(
          "cluster.nic_bandwidth", "per NIC per direction",
          [](auto& s) -> auto& { return s.cluster.nic_bandwidth_Bps; }),
      int_field(
          "cluster.nics_per_node", "compute NICs per node", [](auto& s) -> auto& { return s.cluster.nics_per_node; },
          1),
      latency_field(
          "cluster.nic_latency", "NIC latency", [](auto& s) -> auto& { return s.cluster.nic_latency_s; }),
      latency_field(
          "cluster.switch_latency", "per switch hop", [](auto& s) -> auto& { return s.cluster.switch_latency_s; }),
      number_field(
          "cluster.oversubscription", "fat-tree leaf down:up bandwidth ratio (1 = full bisection)",
          [](auto& s) -> auto& { return s.cluster.oversubscription; }, 1.0),
      int_field(
          "cluster.fat_tree_levels", "fat-tree levels", [](auto& s) -> auto& { return s.cluster.fat_tree_levels; }, 2,
          3),
      bandwidth_field(
          "cluster.host_link_bandwidth", "GPU-host link (PCIe) per direction",
          [](auto& s) -> auto& { return s.cluster.host_link_bandwidth_Bps; }),
      calibration_field(),
      fabric_calibration_field(),
  };
  return fields;
}

// An NVLink domain is whole nodes (a node's NICs and host belong to one domain) and the job
// uses whole nodes of each domain it spans, as many in each (GB200 NVL72: racks of 18 trays
// of 4 GPUs, of which a job may use 16 trays, 64 GPUs, per rack).
void check_nvlink_domain(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  if (c.gpus_per_domain > 0) {
    require(s, c.gpus_per_domain % c.gpus_per_node == 0, "cluster.gpus_per_domain", c.gpus_per_domain,
            "must be a multiple of cluster.gpus_per_node = " + str(c.gpus_per_node) + " (a job uses whole nodes)");
    require(s, c.gpus_per_domain <= c.physical_domain_gpus(), "cluster.gpus_per_domain", c.gpus_per_domain,
            "must be at most the NVLink domain's " + str(c.physical_domain_gpus()) + " GPUs (cluster.nvlink_domain)");
    require(s, c.total_gpus() % c.gpus_per_domain == 0, "cluster.gpus_per_domain", c.gpus_per_domain,
            "must divide the job's GPUs, nodes*gpus_per_node = " + str(c.total_gpus()) +
                " (the job uses as many GPUs in every domain it spans)");
  }
  if (c.nvlink_domain == 0) return;
  require(s, c.nvlink_domain % c.gpus_per_node == 0, "cluster.nvlink_domain", c.nvlink_domain,
          "must be a multiple of cluster.gpus_per_node = " + str(c.gpus_per_node) +
              " (an NVLink domain is whole nodes; 0: one node)");
  if (c.gpus_per_domain == 0)
    require(s, c.total_gpus() % c.domain_gpus() == 0, "cluster.nvlink_domain", c.nvlink_domain,
            "must divide the job's GPUs, nodes*gpus_per_node = " + str(c.total_gpus()) +
                ", or set cluster.gpus_per_domain to the GPUs the job uses in each domain (e.g. 64 of a 72-GPU "
                "rack)");
}

// SHARP is an InfiniBand switch feature (Quantum-2, Quantum-X800); NCCL's CollNet runs on it.
void check_in_network_reduction(const Scenario& s) {
  if (s.cluster.sharp && s.cluster.network != Network::infiniband)
    throw InputError(s.source, "cluster.sharp", "true", "needs cluster.network = infiniband (SHARP is InfiniBand's)");
}

// NCCL's CTAs take SMs from the GPU's: at least one must stay for compute.
void check_nccl_ctas(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  if (c.nccl_min_ctas > 0 && c.gpu.sms > 0)
    require(s, c.nccl_min_ctas < c.gpu.sms, "cluster.nccl_min_ctas", c.nccl_min_ctas,
            "must be below the GPU's " + str(c.gpu.sms) + " SMs (" + c.gpu.name + ")");
}

}  // namespace trainsim::schema

namespace trainsim {

void check_cluster_size(const Scenario& s) {
  using schema::require;
  using schema::str;
  const ClusterSpec& c = s.cluster;
  const long long gpus = static_cast<long long>(c.nodes) * c.gpus_per_node;
  const long long nics = static_cast<long long>(c.nodes) * c.nics_per_node;
  const std::string limit = str(k_max_cluster_endpoints);
  require(s, gpus <= k_max_cluster_endpoints, "cluster.nodes", c.nodes,
          "nodes*gpus_per_node = " + str(gpus) + " GPUs: trainsim simulates at most " + limit);
  require(s, nics <= k_max_cluster_endpoints, "cluster.nics_per_node", c.nics_per_node,
          "nodes*nics_per_node = " + str(nics) + " NICs: trainsim simulates at most " + limit);
}

}  // namespace trainsim
