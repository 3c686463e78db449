#pragma once
// Which global sample indices the trained model has seen, as the run restarts. Each step
// consumes the next `samples_per_step` indices. A restart rolls the model back to a
// checkpoint; with the data cursor saved in it, the loader resumes where that checkpoint
// was taken, so the sample sequence is the failure-free run's; without, the loader starts
// over from sample 0 and the model sees samples again.

#include <utility>
#include <vector>

namespace trainsim {

class DataCursor {
 public:
  DataCursor(double samples_per_step, bool saved);

  /// The model now holds `steps` steps in all (they extend the surviving history).
  void trained_to(long long steps);
  /// Rolled back to a checkpoint of `steps` steps (steps after it are discarded).
  void restarted_from(long long steps);

  /// The surviving history's sample ranges [first, last) in training order, merged where contiguous.
  const std::vector<std::pair<double, double>>& ranges() const { return ranges_; }
  /// Samples trained on more than once (counted once per extra time).
  double duplicated() const;
  /// Samples below the furthest index reached that were never trained on.
  double skipped() const;

 private:
  double per_step_;
  bool saved_;
  long long steps_ = 0;                                   ///< steps in the surviving history
  double position_ = 0;                                   ///< next sample index the loader reads
  std::vector<std::pair<long long, double>> steps_from_;  ///< (history step, first sample) of each contiguous run
  std::vector<std::pair<double, double>> ranges_;
};

}  // namespace trainsim
