#include "sim/drill/token_stream.hpp"

#include "sim/drill/counter_rng.hpp"

namespace trainsim::drill {

namespace {
constexpr std::uint64_t k_rule_key = 0x72756c65;   // "rule"
constexpr std::uint64_t k_token_key = 0x746f6b65;  // "toke"
constexpr double k_rule_probability = 0.75;
}  // namespace

TokenStream::TokenStream(const ModelShape& shape, std::uint64_t seed) : shape_(shape), seed_(seed) {
  const auto v = static_cast<std::uint64_t>(shape.vocab);
  rule_.resize(v);
  for (std::uint64_t i = 0; i < v; ++i) rule_[i] = static_cast<int>(hash_words(seed, k_rule_key, i) % v);
}

std::vector<int> TokenStream::sample(long long index) const {
  const auto v = static_cast<std::uint64_t>(shape_.vocab);
  const int length = shape_.context + shape_.tokens_per_sample;
  std::vector<int> tokens(static_cast<size_t>(length));
  for (int t = 0; t < length; ++t) {
    const std::uint64_t h =
        hash_words(seed_, k_token_key, static_cast<std::uint64_t>(index), static_cast<std::uint64_t>(t));
    if (t >= 1 && unit_interval(h) < k_rule_probability)
      tokens[static_cast<size_t>(t)] = rule_[static_cast<size_t>(tokens[static_cast<size_t>(t - 1)])];
    else
      tokens[static_cast<size_t>(t)] = static_cast<int>(mix64(h) % v);
  }
  return tokens;
}

}  // namespace trainsim::drill
