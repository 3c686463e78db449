// [variations]: slow GPUs and NICs, cables and spines down, stragglers during a run, and a neighbouring job on
// the same fabric, and the rules that keep them within the cluster.

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/rule_helpers.hpp"
#include "sim/scenario/scenario_fields.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/value_parsers.hpp"
#include "topologies/fabric_layout.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::Rule;
using field_kinds::duration_field;
using field_kinds::enum_field;
using field_kinds::int_field;
using field_kinds::number_text;

const parse::EnumNames<NeighbourPlacement> k_neighbour_placements{
    {{"after", NeighbourPlacement::after}, {"interleaved", NeighbourPlacement::interleaved}}};

// variations.neighbour: a scenario file's path (the scenario loader reads it), or none.
ScenarioField neighbour_field() {
  ScenarioField f;
  f.name = "variations.neighbour";
  f.help = "another job's scenario file, played on its own nodes of this fabric beside the step; none: no neighbour";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text.empty()) return "expected none or the path of a scenario file";
    s.variations.neighbour = text == "none" ? std::string() : std::string(text);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.variations.neighbour.empty() ? std::string("none") : s.variations.neighbour; };
  return f;
}

// variations.slow_gpu_ids, slow_nic_ids: ids joined by '+' or ',' ("none": none listed).
template <typename Access>
ScenarioField id_list_field(std::string name, std::string help, const char* what, Access access) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access, what](Scenario& s, std::string_view text) -> Rule {
    std::vector<int> ids;
    if (text != "none") {
      for (const std::string_view piece : parse::pieces(text, ",+")) {
        const auto id = parse::integer(parse::trimmed(piece));
        if (!id || *id < 0 || *id > std::numeric_limits<int>::max())
          return std::string("expected none, or ") + what + " ids (integers >= 0) joined by '+' or ','";
        ids.push_back(static_cast<int>(*id));
      }
    }
    std::sort(ids.begin(), ids.end());
    if (const auto twice = std::adjacent_find(ids.begin(), ids.end()); twice != ids.end())
      return std::string(what) + " " + std::to_string(*twice) + " is listed twice";
    access(s) = std::move(ids);
    return std::nullopt;
  };
  f.show = [access](const Scenario& s) {
    std::string text;
    for (const int id : access(s)) text += (text.empty() ? "" : "+") + std::to_string(id);
    return text.empty() ? std::string("none") : text;
  };
  return f;
}

// variations.slow_gpu_speed, slow_nic_speed: above 0, at most 1, shown as the number.
template <typename Access>
ScenarioField speed_field(std::string name, std::string help, Access access) {
  return field_kinds::fraction_field(std::move(name), std::move(help), access, {false, "0.9 or 90%", false});
}

}  // namespace

std::vector<ScenarioField> variations_fields() {
  std::vector<ScenarioField> fields{
      int_field(
          "variations.slow_gpus", "slow GPUs drawn at random with run.seed (or list them: slow_gpu_ids)",
          [](auto& s) -> auto& { return s.variations.slow_gpu_count; }, 0),
      id_list_field(
          "variations.slow_gpu_ids",
          "slow GPUs listed by id (rank r runs on GPU r), joined by '+' or ','; none: none listed", "GPU",
          [](auto& s) -> auto& { return s.variations.slow_gpu_ids; }),
      speed_field(
          "variations.slow_gpu_speed",
          "a slow GPU's compute speed over the others' (0.9 or 90%: its kernels take 1/0.9 as long)",
          [](auto& s) -> auto& { return s.variations.slow_gpu_speed; }),
      int_field(
          "variations.slow_nics", "NICs at a fraction of their bandwidth, drawn at random with run.seed",
          [](auto& s) -> auto& { return s.variations.slow_nic_count; }, 0),
      id_list_field(
          "variations.slow_nic_ids",
          "slow NICs listed by id (node x nics_per_node + the NIC's index), joined by '+' or ','; none: none listed",
          "NIC", [](auto& s) -> auto& { return s.variations.slow_nic_ids; }),
      int_field(
          "variations.down_uplinks", "leaf switch uplink cables down, drawn at random with run.seed",
          [](auto& s) -> auto& { return s.variations.down_uplink_count; }, 0),
      id_list_field(
          "variations.down_uplink_ids",
          "leaf uplink cables down, listed by id (leaf x uplinks per leaf + index; an id past the last says how many)",
          "uplink", [](auto& s) -> auto& { return s.variations.down_uplink_ids; }),
      int_field(
          "variations.down_spines", "spine switches down, drawn at random with run.seed",
          [](auto& s) -> auto& { return s.variations.down_spine_count; }, 0),
      id_list_field(
          "variations.down_spine_ids",
          "spine switches down, listed by id (pod or rail x uplinks per leaf + index; trainsim topology counts them)",
          "spine", [](auto& s) -> auto& { return s.variations.down_spine_ids; }),
      speed_field(
          "variations.slow_nic_speed", "a slow NIC's bandwidth over the others' (0.5 or 50%)",
          [](auto& s) -> auto& { return s.variations.slow_nic_speed; }),
      duration_field(
          "variations.straggler_mtbf",
          "run level: mean time between one GPU turning slow (at slow_gpu_speed) while the job trains (0: none)",
          [](auto& s) -> auto& { return s.variations.straggler_mtbf_s; }),
      duration_field(
          "variations.straggler_detection", "run level: from a straggler's appearance to its node's drain",
          [](auto& s) -> auto& { return s.variations.straggler_detection_s; }),
      neighbour_field(),
      enum_field(
          "variations.neighbour_placement",
          "the neighbour's nodes: after the job's, or interleaved with them node by node (sharing their leaves)",
          [](auto& s) -> auto& { return s.variations.neighbour_placement; }, k_neighbour_placements),
  };
  return fields;
}

namespace {

// Parts ("slow GPUs" of the cluster's `total` "GPUs") drawn (`count`, key `key` + "s") or listed
// (`ids`, key `key` + "_ids"); `numbering` follows the range of ids.
void check_parts(const Scenario& s, const std::string& part, const std::string& unit, const std::string& key, int count,
                 const std::vector<int>& ids, long long total, const std::string& numbering) {
  const std::string drawn = "variations." + key + "s", listed = "variations." + key + "_ids";
  if (count > 0 && !ids.empty())
    throw InputError(s.source, drawn, str(count),
                     "give " + part + " drawn (" + key + "s) or listed (" + key + "_ids), not both");
  require(s, count <= total, drawn, count, "must not exceed the cluster's " + str(total) + " " + unit);
  if (!ids.empty() && ids.back() >= total)
    throw InputError(s.source, listed, str(ids.back()),
                     "ids run from 0 to " + str(total - 1) + " on this cluster" + numbering);
}

// Listed ids (ascending, distinct) numbered `per_group` to a group (a leaf's uplinks, a pod's
// spines): none may list a whole group.
void check_one_left(const Scenario& s, const char* key, const std::vector<int>& ids, int per_group,
                    const std::string& what, const std::string& why) {
  for (size_t i = 0; i + static_cast<size_t>(per_group) <= ids.size(); ++i)
    if (ids[i] / per_group == ids[i + static_cast<size_t>(per_group) - 1] / per_group)
      throw InputError(s.source, key, str(ids[i]), "lists every " + what + " " + str(ids[i] / per_group) + ": " + why);
}

// Uplinks and spines down, drawn or listed, on `fabric`'s switches: the scenario's cluster, or
// with a neighbour the fabric both jobs share (Scenario::fabric), whose ids they name.
void check_down_parts(const Scenario& s, const ClusterSpec& fabric) {
  const VariationSpec& v = s.variations;
  const std::string shared = s.neighbour ? "; the fabric of the job's nodes and its neighbour's" : "";
  if (v.any_down_uplink()) {
    const FabricLayout layout = fabric_layout(fabric);
    if (layout.leaf_uplinks == 0)
      throw InputError(s.source, v.down_uplink_ids.empty() ? "variations.down_uplinks" : "variations.down_uplink_ids",
                       v.down_uplink_ids.empty() ? str(v.down_uplink_count) : str(v.down_uplink_ids.front()),
                       "this fabric has no leaf uplinks (one leaf switch, the single-switch fabric or the ideal "
                       "one)");
    check_parts(s, "uplinks down", "leaf uplinks", "down_uplink", v.down_uplink_count, v.down_uplink_ids,
                static_cast<long long>(layout.leaves) * layout.leaf_uplinks,
                " (leaf x " + str(layout.leaf_uplinks) + " uplinks per leaf + index" + shared + ")");
    check_one_left(s, "variations.down_uplink_ids", v.down_uplink_ids, layout.leaf_uplinks, "uplink of leaf",
                   "a leaf keeps one at least");
  }
  if (v.any_down_spine()) {
    const FabricLayout layout = fabric_layout(fabric);
    if (layout.spines == 0 || layout.leaf_uplinks == 0)
      throw InputError(s.source, v.down_spine_ids.empty() ? "variations.down_spines" : "variations.down_spine_ids",
                       v.down_spine_ids.empty() ? str(v.down_spine_count) : str(v.down_spine_ids.front()),
                       "this fabric has no spine switches (one leaf per pod or rail, the single-switch fabric or "
                       "the ideal one)");
    check_parts(s, "spines down", "spine switches", "down_spine", v.down_spine_count, v.down_spine_ids, layout.spines,
                " (pod or rail x " + str(layout.leaf_uplinks) + " spines per pod or rail + index" + shared + ")");
    check_one_left(s, "variations.down_spine_ids", v.down_spine_ids, layout.leaf_uplinks, "spine of pod or rail",
                   "its leaves keep one at least");
  }
}

}  // namespace

// [variations]: slow GPUs and NICs and uplinks down, drawn or listed, within the cluster;
// stragglers in a run.
void check_variations(const Scenario& s) {
  const VariationSpec& v = s.variations;
  check_parts(s, "slow GPUs", "GPUs", "slow_gpu", v.slow_gpu_count, v.slow_gpu_ids,
              static_cast<long long>(s.cluster.nodes) * s.cluster.gpus_per_node, "");
  check_parts(s, "slow NICs", "NICs", "slow_nic", v.slow_nic_count, v.slow_nic_ids,
              static_cast<long long>(s.cluster.nodes) * s.cluster.nics_per_node, " (node x nics_per_node + index)");
  // With a neighbour, its nodes are known only once it is loaded: check_neighbour.
  if (v.neighbour.empty()) check_down_parts(s, s.cluster);
  if (v.straggler_mtbf_s > 0 && !s.run.simulates_run())
    throw InputError(s.source, "variations.straggler_mtbf", seconds(v.straggler_mtbf_s),
                     "stragglers appear during a run: set run.duration or run.train_steps");
  if (v.straggler_mtbf_s > 0 && !v.slow_gpu_ids.empty())
    throw InputError(s.source, "variations.straggler_mtbf", seconds(v.straggler_mtbf_s),
                     "a straggler's step is the step with one more slow GPU drawn: use slow_gpus, not slow_gpu_ids");
  if (v.straggler_mtbf_s > 0 && s.variations.slow_gpu_speed >= 1.0)
    throw InputError(s.source, "variations.straggler_mtbf", seconds(v.straggler_mtbf_s),
                     "a straggler computes at variations.slow_gpu_speed, which is 1 (no slower)");
}

}  // namespace trainsim::schema

namespace trainsim {

void check_neighbour(const Scenario& s) {
  using schema::check_down_parts;
  using schema::require;
  using schema::str;
  if (!s.neighbour) return;
  const Scenario& n = *s.neighbour;
  const std::string& file = s.variations.neighbour;
  if (s.run.simulates_run())
    throw InputError(s.source, "variations.neighbour", file,
                     "a neighbour shares a step's time, not a run's: not with run.duration or run.train_steps");
  if (n.variations.any_part())
    throw InputError(n.source, "variations", "(set)", "a neighbour's [variations] must be empty");
  // One platform and one compute model serve both jobs: the neighbour's cluster is the job's
  // but for its nodes, and its kernels are timed alike.
  static const std::vector<ScenarioField> fields = scenario_fields();
  for (const ScenarioField& f : fields) {
    const bool cluster_key =
        f.name.rfind("cluster.", 0) == 0 && f.name != "cluster.nodes" && f.name != "cluster.preset";
    if (!cluster_key && f.name != "training.precision" && f.name != "training.kernel_gap") continue;
    const std::string job = f.show(s);
    const std::string theirs = f.show(n);
    if (job != theirs)
      throw InputError(n.source, f.name, theirs,
                       "must be the job's " + job + " (" + s.source +
                           "): a neighbour runs on the job's cluster, timed by the job's compute model");
  }
  const ClusterSpec& a = s.cluster;
  const ClusterSpec& b = n.cluster;
  // NVL72 racks: each job takes whole racks (a rack's NVLink domain is one job's; the
  // placement moves whole domains, topologies/neighbour_placement.hpp).
  const int rack = a.physical_domain_gpus();
  if (a.gpus_per_domain > 0)
    throw InputError(s.source, "cluster.gpus_per_domain", str(a.gpus_per_domain),
                     "a job beside a neighbour takes whole NVLink domains of " + str(rack) + " GPUs: leave it unset");
  for (const Scenario* job : {&s, &n})
    if (job->cluster.total_gpus() % rack != 0)
      throw InputError(job->source, "cluster.nodes", str(job->cluster.nodes),
                       "beside a neighbour each job takes whole NVLink domains: a multiple of " +
                           str(rack / a.gpus_per_node) + " nodes (" + str(rack) + " GPUs)");
  const long long gpus = static_cast<long long>(a.nodes + b.nodes) * a.gpus_per_node;
  require(s, gpus <= k_max_cluster_endpoints, "variations.neighbour", a.nodes + b.nodes,
          "the two jobs' " + str(gpus) + " GPUs: trainsim simulates at most " + str(k_max_cluster_endpoints));
  // Slow GPUs and NICs are the job's own (their ids its ranks' and nodes'); a cable or spine
  // id names a switch of the fabric both jobs' nodes make.
  check_down_parts(s, s.fabric());
}

}  // namespace trainsim
