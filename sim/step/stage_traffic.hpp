#pragma once
// What a stage actor's parts ask of the communication of their GPU that runs beside them:
// the gradient reductions and ZeRO gathers in flight, the overlapped parameter gather, and a
// collective asked for that has not started (slower replicas have not asked). The actor
// answers from the parts that own them (gradient_reduction.hpp, parameter_gathers.hpp,
// stage_pair.hpp), so no part reads another's state.

#include <optional>

#include "sim/engine/comm_activity.hpp"
#include "sim/step/replica_rendezvous.hpp"

namespace trainsim {

class StageTraffic {
 public:
  virtual ~StageTraffic() = default;
  /// The first of this GPU's gradient reductions or ZeRO-3 unit gathers still in flight.
  virtual const engine::CommActivity* gradient_traffic_in_flight() const = 0;
  /// The overlapped parameter gather, while it runs (started, not done).
  virtual const engine::CommActivity* parameter_gather_in_flight() const = 0;
  /// A collective this replica asked for that has not started, if any.
  virtual std::optional<ReplicaRendezvous::Key> awaited_start() const = 0;

  /// Whether this GPU's gradient reductions, ZeRO-3 unit gathers or overlapped parameter
  /// gather are in flight (started, not done). With symmetry reduced a layer collective beside
  /// one is simulated, not reused: the reduction shares the group's NVLink ports (every
  /// replica's, under --full), so a duration timed without it would make the reduced step
  /// short of --full (1.1 % on two DGX-H100 under Megatron-Core's order,
  /// StepSimulation.ReducedEqualsFullSimulation; 0.3 % with TP 2 beside the bucket gathers,
  /// StepTails.ReducedEqualsFullWithBucketGathers).
  bool gradient_traffic_running() const {
    return gradient_traffic_in_flight() != nullptr || parameter_gather_in_flight() != nullptr;
  }
};

}  // namespace trainsim
