#include "sim/drill/tiny_model.hpp"

#include <cmath>

#include "sim/core/portable_math.hpp"

namespace trainsim::drill {

namespace {
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
constexpr std::uint64_t k_init_key = 0x696e6974;     // "init"
constexpr std::uint64_t k_dropout_key = 0x64726f70;  // "drop"
}  // namespace

TinyModel::TinyModel(const ModelShape& shape) : shape_(shape) {
  // Eigen splits a matrix product into blocks sized by the CPU's caches, which it reads with
  // cpuid on first use: the order of the sums, and so their last bits, changed with the CPU.
  // Fixed sizes (a classic x86 core's 32 KiB L1, 256 KiB L2, 2 MiB L3 share) make the blocks,
  // and every product, the same on every machine.
  Eigen::setCpuCacheSizes(32 * 1024, 256 * 1024, 2 * 1024 * 1024);
  const Eigen::Index v = shape.vocab, d = shape.embed, h = shape.hidden, in = shape.context * d;
  embed_at_ = 0;
  w1_at_ = embed_at_ + v * d;
  b1_at_ = w1_at_ + h * in;
  w2_at_ = b1_at_ + h;
  b2_at_ = w2_at_ + v * h;
  count_ = b2_at_ + v;
}

Eigen::VectorXf TinyModel::initial_parameters(std::uint64_t seed) const {
  Eigen::VectorXf p = Eigen::VectorXf::Zero(count_);
  const double in = static_cast<double>(shape_.context * shape_.embed);
  auto fill = [&](Eigen::Index from, Eigen::Index to, double bound) {
    for (Eigen::Index i = from; i < to; ++i)
      p[i] = static_cast<float>(
          (2.0 * unit_interval(hash_words(seed, k_init_key, static_cast<std::uint64_t>(i))) - 1.0) * bound);
  };
  fill(embed_at_, w1_at_, 1.0);
  fill(w1_at_, b1_at_, 1.0 / std::sqrt(in));
  fill(w2_at_, b2_at_, 1.0 / std::sqrt(static_cast<double>(shape_.hidden)));
  return p;
}

double TinyModel::accumulate(const Eigen::VectorXf& params, const std::vector<std::vector<int>>& samples,
                             const std::vector<long long>& sample_indices, const RngState& rng, float loss_weight,
                             Eigen::VectorXf& gradient) const {
  const Eigen::Index v = shape_.vocab, d = shape_.embed, h = shape_.hidden, c = shape_.context;
  const Eigen::Index in = c * d, t_per = shape_.tokens_per_sample;
  const Eigen::Index rows = static_cast<Eigen::Index>(samples.size()) * t_per;
  ConstMatrixMap embed(params.data() + embed_at_, v, d);
  ConstMatrixMap w1(params.data() + w1_at_, h, in);
  Eigen::Map<const Eigen::RowVectorXf> b1(params.data() + b1_at_, h);
  ConstMatrixMap w2(params.data() + w2_at_, v, h);
  Eigen::Map<const Eigen::RowVectorXf> b2(params.data() + b2_at_, v);

  // Inputs: the context embeddings of every predicted token; targets.
  RowMatrix x(rows, in);
  std::vector<int> target(static_cast<size_t>(rows));
  std::vector<int> context_tokens(static_cast<size_t>(rows * c));
  for (size_t s = 0; s < samples.size(); ++s)
    for (Eigen::Index t = 0; t < t_per; ++t) {
      const Eigen::Index row = static_cast<Eigen::Index>(s) * t_per + t;
      for (Eigen::Index k = 0; k < c; ++k) {
        const int token = samples[s][static_cast<size_t>(t + k)];
        context_tokens[static_cast<size_t>(row * c + k)] = token;
        x.block(row, k * d, 1, d) = embed.row(token);
      }
      target[static_cast<size_t>(row)] = samples[s][static_cast<size_t>(t + c)];
    }

  // Forward: hidden = tanh(x W1^T + b1), dropped = hidden .* mask / (1 - p).
  // tanh is Eigen's own rational approximation, on packets and on single values alike
  // (EIGEN_FAST_MATH, its default), so it is the same on every CPU; exp is portable::exp,
  // since Eigen hands the elements left after its packets to the C library's expf.
  RowMatrix hidden = ((x * w1.transpose()).rowwise() + b1).array().tanh().matrix();
  RowMatrix mask(rows, h);
  const float keep_scale = static_cast<float>(1.0 / (1.0 - shape_.dropout));
  for (Eigen::Index row = 0; row < rows; ++row) {
    const auto sample = static_cast<std::uint64_t>(sample_indices[static_cast<size_t>(row / t_per)]);
    const std::uint64_t key = hash_words(rng.seed, k_dropout_key, rng.offset, sample);
    for (Eigen::Index u = 0; u < h; ++u) {
      const std::uint64_t bits =
          hash_words(key, static_cast<std::uint64_t>(row % t_per), static_cast<std::uint64_t>(u));
      mask(row, u) = unit_interval(bits) < shape_.dropout ? 0.0f : keep_scale;
    }
  }
  const RowMatrix dropped = hidden.cwiseProduct(mask);
  RowMatrix logits = (dropped * w2.transpose()).rowwise() + b2;

  // Softmax cross-entropy; its gradient (p - onehot) times the loss weight.
  double loss = 0;
  for (Eigen::Index row = 0; row < rows; ++row) {
    const float top = logits.row(row).maxCoeff();
    logits.row(row) = (logits.row(row).array() - top).unaryExpr([](float e) { return portable::exp(e); }).matrix();
    const float total = logits.row(row).sum();
    const int y = target[static_cast<size_t>(row)];
    loss -= portable::log(static_cast<double>(logits(row, y)) / static_cast<double>(total));
    logits.row(row) *= loss_weight / total;
    logits(row, y) -= loss_weight;
  }
  const RowMatrix& dlogits = logits;

  // Backward.
  MatrixMap gembed(gradient.data() + embed_at_, v, d);
  MatrixMap gw1(gradient.data() + w1_at_, h, in);
  Eigen::Map<Eigen::RowVectorXf> gb1(gradient.data() + b1_at_, h);
  MatrixMap gw2(gradient.data() + w2_at_, v, h);
  Eigen::Map<Eigen::RowVectorXf> gb2(gradient.data() + b2_at_, v);
  gw2.noalias() += dlogits.transpose() * dropped;
  gb2 += dlogits.colwise().sum();
  const RowMatrix dhidden = (dlogits * w2).cwiseProduct(mask).cwiseProduct((1.0f - hidden.array().square()).matrix());
  gw1.noalias() += dhidden.transpose() * x;
  gb1 += dhidden.colwise().sum();
  const RowMatrix dx = dhidden * w1;
  for (Eigen::Index row = 0; row < rows; ++row)
    for (Eigen::Index k = 0; k < c; ++k)
      gembed.row(context_tokens[static_cast<size_t>(row * c + k)]) += dx.block(row, k * d, 1, d);
  return loss;
}

}  // namespace trainsim::drill
