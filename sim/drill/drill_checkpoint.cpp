#include "sim/drill/drill_checkpoint.hpp"

namespace trainsim::drill {

TrainState initial_state(const DrillSpec& spec, const Eigen::VectorXf& params, const Layout& layout) {
  TrainState s;
  s.params = params;
  s.adam = adam_initial_state(params.size());
  s.rng.assign(static_cast<size_t>(layout.dp), RngState{spec.seed, 0});
  s.loss_scale = loss_scale_initial(spec.loss_scale);
  s.layout = layout;
  return s;
}

TrainState restore(const DrillSpec& spec, const Checkpoint& saved, std::optional<CheckpointItem> omit,
                   const Layout& layout) {
  TrainState s = saved;
  s.layout = layout;
  s.rng.assign(static_cast<size_t>(layout.dp), saved.rng.front());
  if (!omit) return s;
  switch (*omit) {
    case CheckpointItem::rng:
      s.rng.assign(static_cast<size_t>(layout.dp), RngState{spec.seed, 0});
      break;
    case CheckpointItem::cursor:
      s.cursor = {};
      break;
    case CheckpointItem::optimizer:
      s.adam = adam_initial_state(s.params.size());
      break;
    case CheckpointItem::scheduler:
      s.scheduler_updates = 0;
      break;
    case CheckpointItem::loss_scale:
      s.loss_scale = loss_scale_initial(spec.loss_scale);
      break;
  }
  return s;
}

}  // namespace trainsim::drill
