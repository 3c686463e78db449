#pragma once
// The drill's model, trained for real on the CPU with Eigen (fp32): a fixed-context neural
// language model in the manner of Bengio et al. 2003 ("A Neural Probabilistic Language
// Model"): the embeddings of the `context` previous tokens, concatenated, through a tanh
// hidden layer with (inverted) dropout (Srivastava et al. 2014), to a softmax over the
// vocabulary; loss: cross-entropy. All parameters live in one flat vector, so the optimizer,
// the reduction and the checkpoint treat them alike.

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "sim/drill/counter_rng.hpp"
#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

class TinyModel {
 public:
  explicit TinyModel(const ModelShape& shape);

  const ModelShape& shape() const { return shape_; }
  Eigen::Index parameter_count() const { return count_; }
  /// Initial parameters from `seed`: uniform in +-1/sqrt(fan-in) (PyTorch's nn.Linear
  /// default), embeddings in +-1, biases 0.
  Eigen::VectorXf initial_parameters(std::uint64_t seed) const;

  /// Adds to `gradient` the gradient of `loss_weight` x (summed cross-entropy of `samples`'
  /// predicted tokens) and returns that summed cross-entropy (unweighted, in double). The
  /// dropout mask of a hidden unit is drawn from `rng` (its seed and offset) and the sample's
  /// global index, the token's position and the unit: the same whichever rank trains it.
  double accumulate(const Eigen::VectorXf& params, const std::vector<std::vector<int>>& samples,
                    const std::vector<long long>& sample_indices, const RngState& rng, float loss_weight,
                    Eigen::VectorXf& gradient) const;

 private:
  ModelShape shape_;
  Eigen::Index embed_at_ = 0, w1_at_ = 0, b1_at_ = 0, w2_at_ = 0, b2_at_ = 0, count_ = 0;
};

}  // namespace trainsim::drill
