#pragma once
// Which data-parallel x context-parallel replicas a step simulates when GPUs differ
// ([variations]): one representative per class of replicas whose stages compute alike.
//
// A slow GPU slows every GPU its layers wait on within their pipeline stage: its TP group
// (each layer's all-reduces), and through their CP, EP and expert-TP groups (each layer's
// K/V exchange and token all-to-alls) the whole set those groups connect. That set is taken to
// run at the slow GPU's speed: the per-layer collectives pace it layer by layer (an
// approximation: a member that waits at one layer's collective is not credited the slack it
// would catch up on before the next). Replicas whose stages carry the same slowdowns form a
// class; one simulated replica stands for all of its class, as replica 0 stands for all of a
// uniform cluster (step_simulation.hpp, "Symmetry"). A slow NIC (cluster.slow_nics), or a leaf
// with an uplink down (cluster.down_uplinks, or a spine down in its pod or rail:
// cluster.down_spines) for the nodes cabled to it, sets apart the replicas whose groups use
// its node, each a class of its own: their traffic may cross it, the others' does not. Where
// every node's NICs find the same cables and spines down above them, nothing is set apart.

#include <vector>

#include "sim/scenario/scenario.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

struct ReplicaClass {
  int representative = 0;              ///< the replica simulated (the class's lowest)
  std::vector<int> members;            ///< the replicas it stands for, itself included, ascending
  std::vector<double> stage_slowdown;  ///< per pipeline stage: compute time over a uniform GPU's (>= 1)
  /// Per pipeline stage: whether a slow NIC sits in a node its GPUs or their TP, EP, expert-TP
  /// and CP groups use (its collectives and transfers then time apart from the others').
  std::vector<bool> stage_slow_nic;
};

/// The classes, the class of replica 0 first; with `reduce_symmetry` false, one class per
/// replica (every replica simulated). `fabric`: the cluster the platform is (Scenario::fabric:
/// `s.cluster`, or with a neighbour job's nodes too), whose uplinks and spines down count; the
/// job's nodes sit on it where `mapping` places them.
std::vector<ReplicaClass> replica_classes(const Scenario& s, const RankMapping& mapping, const ClusterSpec& fabric,
                                          bool reduce_symmetry);

/// The ranks of `slow_gpu`'s pipeline stage whose compute waits on it layer by layer: the
/// GPUs its TP, CP, EP and expert-TP groups connect, ascending.
std::vector<int> paced_ranks(const RankMapping& mapping, int slow_gpu);

}  // namespace trainsim
