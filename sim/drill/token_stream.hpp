#pragma once
// The synthetic corpus: sample i (a global index, any i >= 0) is a sequence of tokens made
// from the seed and i alone, so any rank can read any sample. The tokens follow a hidden
// second-order Markov rule (the next token is a fixed function of the two before it with
// probability 0.75, else uniform), so a model has something to learn.

#include <cstdint>
#include <vector>

#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

class TokenStream {
 public:
  TokenStream(const ModelShape& shape, std::uint64_t seed);
  /// Sample `index`: context + tokens_per_sample tokens, the first `context` only as input.
  std::vector<int> sample(long long index) const;

 private:
  ModelShape shape_;
  std::uint64_t seed_;
  std::vector<int> rule_;  ///< the rule's next token after token a: rule_[a]
};

}  // namespace trainsim::drill
