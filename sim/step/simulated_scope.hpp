#pragma once
// What of the cluster a step simulates, and what its activities can touch: the replicas and
// transfers it simulates, the platform endpoints they reach, the gradient-group plans its
// stages start (gradient_plans.hpp) and the links everything else may cross.

#include <vector>

#include "sim/engine/platform.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/step/gradient_plans.hpp"
#include "sim/step/replica_classes.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/step_simulation.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

struct SimulatedScope {
  /// The data-parallel x context-parallel replicas simulated, each standing for its class
  /// (replica_classes.hpp); replica 0's first.
  std::vector<ReplicaClass> classes;
  bool replicate_p2p = false;  ///< a pipeline send carries every replica's transfers
  /// Pipeline sends and gradient reductions simulate TP rank 0's part only: each TP rank has
  /// its own NIC and the fabric has full bisection, so the other ranks' identical traffic
  /// runs alongside on links of its own.
  bool one_transfer_per_tp_group = false;

  int replicas() const { return static_cast<int>(classes.size()); }
};

/// `fabric`: the cluster the platform is (replica_classes).
SimulatedScope simulated_scope(const Scenario& s, const RankMapping& mapping, const ClusterSpec& fabric,
                               const StepOptions& options);

/// The rank of data-parallel replica `replica` (dp and cp coordinates), pipeline stage
/// `stage`, tensor-parallel index `tp_index`.
int rank_of(const RankMapping& mapping, int replica, int stage, int tp_index = 0);

/// The platform endpoints the stage actors can touch (engine/endpoint_selection.hpp): each
/// simulated stage's GPU and its TP, EP, expert-TP and CP groups, the pipeline between the
/// replicas whose transfers are simulated, endpoint 0 (where plan actors start), and the
/// endpoints of the gradient-group plans: those `gradient_endpoints` marks (their kept legs',
/// GradientPlans), or, when null, the whole gradient groups of the TP members whose
/// reductions run (shard and replica groups lie inside them).
std::vector<bool> touched_endpoints(const Scenario& s, const RankMapping& mapping, const SimulatedScope& scope,
                                    const std::vector<bool>* gradient_endpoints = nullptr);

/// Per link number of `platform`'s routes: whether anything but a gradient-group plan may
/// cross it (engine::mark_message_links): messages between any two GPUs of a simulated
/// stage's TP, EP, expert-TP and CP groups, and between any two GPUs of the pipeline (every
/// stage's TP group) of each replica whose pipeline transfers are simulated (a superset of
/// the transfers); the same groups whose endpoints touched_endpoints selects.
std::vector<bool> foreign_links(const Scenario& s, const RankMapping& mapping, const SimulatedScope& scope,
                                const engine::Platform& platform);

/// Every gradient-group plan the stage actors of replica 0 may start (a superset: a plan
/// listed and never started costs only legs kept): each chunk's bucketed reductions (whole
/// passes and ZeRO-3 units), the whole stage's reduction, ZeRO-3's unit gathers and
/// ZeRO-1/2's parameter gather.
std::vector<GradientPlanKey> gradient_plan_keys(const Scenario& s, const RankMapping& mapping, const StepCosts& costs);

}  // namespace trainsim
