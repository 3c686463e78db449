#include "sim/drill/sampler.hpp"

namespace trainsim::drill {

StepSamples next_step_samples(DataSampler sampler, const Layout& layout, SamplerCursor& cursor) {
  const int dp = layout.dp, mb = layout.micro_batch, accum = layout.grad_accum;
  StepSamples out(static_cast<size_t>(dp), std::vector<std::vector<long long>>(static_cast<size_t>(accum)));
  for (int r = 0; r < dp; ++r)
    for (int m = 0; m < accum; ++m)
      for (int b = 0; b < mb; ++b) {
        const long long local = static_cast<long long>(m) * mb + b;
        const long long index = sampler == DataSampler::global ? cursor.consumed + static_cast<long long>(m) * mb * dp +
                                                                     static_cast<long long>(r) * mb + b
                                                               : (cursor.rank_offset + local) * dp + r;
        out[static_cast<size_t>(r)][static_cast<size_t>(m)].push_back(index);
      }
  cursor.consumed += layout.global_batch();
  cursor.rank_offset += static_cast<long long>(mb) * accum;
  return out;
}

}  // namespace trainsim::drill
