#include "sim/drill/adam_optimizer.hpp"

#include <cmath>

#include "sim/core/portable_math.hpp"

namespace trainsim::drill {

AdamState adam_initial_state(Eigen::Index parameters) {
  return {Eigen::VectorXf::Zero(parameters), Eigen::VectorXf::Zero(parameters), 0};
}

void adam_update(const OptimizerSpec& spec, double lr, const Eigen::VectorXf& gradient, AdamState& state,
                 Eigen::VectorXf& params) {
  state.t += 1;
  const auto b1 = static_cast<float>(spec.beta1), b2 = static_cast<float>(spec.beta2);
  state.m = b1 * state.m + (1.0f - b1) * gradient;
  state.v = b2 * state.v + (1.0f - b2) * gradient.cwiseProduct(gradient);
  const auto t = static_cast<double>(state.t);
  const auto m_correction = static_cast<float>(1.0 / (1.0 - portable::pow(spec.beta1, t)));
  const auto v_correction = static_cast<float>(1.0 / (1.0 - portable::pow(spec.beta2, t)));
  const auto step = static_cast<float>(lr);
  const auto eps = static_cast<float>(spec.epsilon);
  // The square root one element at a time (sqrtss, exact on every CPU): Eigen's packet sqrt
  // for floats is rsqrtps and a Newton step (EIGEN_FAST_MATH), whose last bits vary by CPU.
  const Eigen::ArrayXf root = (state.v.array() * v_correction).unaryExpr([](float x) { return std::sqrt(x); });
  params.array() -= step * (state.m.array() * m_correction) / (root + eps);
}

}  // namespace trainsim::drill
