#pragma once
// A StageTraffic for the tests of one part of a stage actor: nothing of the GPU's gradient
// traffic runs beside the part tested; and the parts most of those tests build first.

#include <optional>

#include "sim/step/layer_collectives.hpp"
#include "sim/step/stage_compute.hpp"
#include "sim/step/stage_traffic.hpp"

namespace trainsim::testing {

class NoTraffic : public StageTraffic {
 public:
  const engine::CommActivity* gradient_traffic_in_flight() const override { return nullptr; }
  const engine::CommActivity* parameter_gather_in_flight() const override { return nullptr; }
  std::optional<ReplicaRendezvous::Key> awaited_start() const override { return std::nullopt; }
};

/// A stage's layer collectives and compute with no gradient traffic beside them: what a part
/// that computes (reduction, gathers, waits, pairs) is built on.
struct ComputeParts {
  explicit ComputeParts(StageContext& context) : layers(context, traffic), compute(context, layers, traffic) {}
  NoTraffic traffic;
  LayerCollectives layers;
  StageCompute compute;
};

}  // namespace trainsim::testing
