#pragma once
// The surviving training history as the run restarts and resizes: which global sample indices
// the model has seen, and the step time it took. Each step consumes the next
// samples-per-step indices. A restart rolls the model back to a checkpoint; with the data
// cursor saved in it, the loader resumes where that checkpoint was taken, so the sample
// sequence is the failure-free run's; without, the loader starts over from sample 0 and the
// model sees samples again. A per-rank sampler moved to another data-parallel size resumes
// at a scaled position (resized()), re-reading or skipping samples.

#include <utility>
#include <vector>

namespace trainsim {

class DataCursor {
 public:
  DataCursor(double samples_per_step, double step_time_s, bool saved);

  /// The model now holds `steps` steps in all (they extend the surviving history).
  void trained_to(long long steps);
  /// Rolled back to a checkpoint of `steps` steps (steps after it are discarded).
  void restarted_from(long long steps);
  /// From now on a step consumes `samples_per_step` in `step_time_s`; the loader's next
  /// sample index is multiplied by `position_scale` (1 for a sampler that reshards).
  void resized(double samples_per_step, double step_time_s, double position_scale);

  /// The surviving history's sample ranges [first, last) in training order, merged where contiguous.
  std::vector<std::pair<double, double>> ranges() const;
  /// Samples trained on more than once (counted once per extra time).
  double duplicated() const;
  /// Samples below the furthest index reached that were never trained on.
  double skipped() const;
  /// Samples in the surviving history.
  double samples_trained() const;
  /// Step time of the surviving history.
  double useful_time_s() const;

 private:
  /// A stretch of the history at one rate, contiguous in samples.
  struct Stretch {
    long long first_step = 0;
    double first_sample = 0;
    double samples_per_step = 0;
    double step_time_s = 0;
  };
  long long steps_in(std::size_t i) const;
  double end_of(std::size_t i) const;

  double per_step_;
  double step_time_s_;
  bool saved_;
  long long steps_ = 0;  ///< steps in the surviving history
  double position_ = 0;  ///< next sample index the loader reads
  std::vector<Stretch> stretches_;
};

}  // namespace trainsim
