#pragma once
// Adam (Kingma & Ba 2015, "Adam: A Method for Stochastic Optimization", Algorithm 1, with
// bias correction), fp32 state, no weight decay.

#include <Eigen/Core>

#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

struct AdamState {
  Eigen::VectorXf m;  ///< first moment
  Eigen::VectorXf v;  ///< second moment
  long long t = 0;    ///< updates made (bias correction)
};

/// Fresh state for `parameters` parameters (moments 0, t = 0).
AdamState adam_initial_state(Eigen::Index parameters);

/// One update of `params` with `gradient` at learning rate `lr`.
void adam_update(const OptimizerSpec& spec, double lr, const Eigen::VectorXf& gradient, AdamState& state,
                 Eigen::VectorXf& params);

}  // namespace trainsim::drill
