#pragma once
// A StageTraffic for the tests of one part of a stage actor: nothing of the GPU's gradient
// traffic runs beside the part tested.

#include <optional>

#include "sim/step/stage_traffic.hpp"

namespace trainsim::testing {

class NoTraffic : public StageTraffic {
 public:
  const engine::CommActivity* gradient_traffic_in_flight() const override { return nullptr; }
  const engine::CommActivity* parameter_gather_in_flight() const override { return nullptr; }
  std::optional<ReplicaRendezvous::Key> awaited_start() const override { return std::nullopt; }
};

}  // namespace trainsim::testing
