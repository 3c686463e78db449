#pragma once
// The input pipeline of one data-parallel rank: a loader that prepares micro-batches ahead
// of the first pipeline stage, `prefetch` deep, like PyTorch's DataLoader with workers.

#include <vector>

namespace trainsim {

class DataLoader {
 public:
  /// `load_s`: seconds to prepare one micro-batch; `prefetch`: how many it keeps ready.
  /// The buffer starts full (the steady state of a long run).
  DataLoader(double load_s, int prefetch);

  /// When micro-batch `index` (counted over the whole run) is ready; call in index order,
  /// each after the previous one has been consumed.
  double ready_time(int index) const;
  /// Records that micro-batch `index` was taken at `time`, freeing its slot.
  void consumed(int index, double time);

 private:
  double load_s_;
  int prefetch_;
  std::vector<double> ready_;     ///< ready time per micro-batch computed so far
  std::vector<double> consumed_;  ///< consumption time per micro-batch
};

}  // namespace trainsim
