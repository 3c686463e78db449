// [elastic]: what the job does with no spare node free (wait or shrink data parallelism) and when it grows
// back, and the rules a shrink needs.

#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/rule_helpers.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::enum_field;
using field_kinds::int_field;

const parse::EnumNames<ElasticPolicy> k_elastic_policies{
    {{"wait", ElasticPolicy::wait}, {"shrink", ElasticPolicy::shrink}}};
const parse::EnumNames<GrowPolicy> k_grow_policies{
    {{"auto", GrowPolicy::automatic}, {"always", GrowPolicy::always}, {"never", GrowPolicy::never}}};
const parse::EnumNames<GlobalBatchPolicy> k_global_batch_policies{
    {{"keep", GlobalBatchPolicy::keep}, {"scale", GlobalBatchPolicy::scale}}};

}  // namespace

std::vector<ScenarioField> elastic_fields() {
  std::vector<ScenarioField> fields{
      enum_field(
          "elastic.policy", "with no spare node free: wait for a repair, or shrink data parallelism",
          [](auto& s) -> auto& { return s.elastic.policy; }, k_elastic_policies),
      enum_field(
          "elastic.global_batch", "when shrinking: keep the global batch (more micro-batches) or scale it down",
          [](auto& s) -> auto& { return s.elastic.global_batch; }, k_global_batch_policies),
      enum_field(
          "elastic.grow",
          "grow back when nodes return: auto (when the throughput gained until the next expected interruption pays "
          "for the restart), always or never",
          [](auto& s) -> auto& { return s.elastic.grow; }, k_grow_policies),
      int_field(
          "elastic.min_dp", "never shrink below this many data-parallel replicas",
          [](auto& s) -> auto& { return s.elastic.min_dp; }, 1),
  };
  return fields;
}

// Shrinking drops whole data-parallel replicas: a replica must fill whole nodes, or a node
// whole replicas.
void check_elastic(const Scenario& s) {
  require(s, s.elastic.min_dp <= s.parallel.dp, "elastic.min_dp", s.elastic.min_dp,
          "must not exceed parallel.dp = " + str(s.parallel.dp));
  if (s.elastic.policy != ElasticPolicy::shrink) return;
  if (!s.checkpoint.reshardable)
    throw InputError(
        s.source, "elastic.policy", "shrink",
        "shrinking reloads the checkpoint at a smaller data-parallel size: it needs checkpoint.reshardable "
        "= true");
  const int replica = s.parallel.tp * s.parallel.pp * s.parallel.cp;
  const int gpn = s.cluster.gpus_per_node;
  if (replica % gpn != 0 && gpn % replica != 0)
    throw InputError(s.source, "elastic.policy", "shrink",
                     "shrink needs a replica's GPUs, tp*pp*cp = " + str(replica) +
                         ", to be a multiple or a divisor of cluster.gpus_per_node = " + str(gpn));
}

}  // namespace trainsim::schema
