#pragma once
// Where a run's time goes: the job is in one phase at a time, and the phases' totals add up
// to the run's length.

#include <array>
#include <cstddef>

namespace trainsim {

enum class Phase {
  training,    ///< steps (kept, or lost to a later failure)
  checkpoint,  ///< training stalled for a checkpoint (sync write, async snapshot or wait)
  down,        ///< detection, restart, checkpoint read
  waiting,     ///< no spare node free
  maintenance  ///< a planned stop
};

class PhaseClock {
 public:
  /// The job enters `p` at `at` (seconds); the phase it leaves is charged until then.
  void enter(Phase p, double at) {
    totals_[static_cast<std::size_t>(phase_)] += at - since_;
    phase_ = p;
    since_ = at;
  }
  Phase phase() const { return phase_; }
  double total(Phase p) const { return totals_[static_cast<std::size_t>(p)]; }

 private:
  Phase phase_ = Phase::training;
  double since_ = 0;
  std::array<double, 5> totals_{};
};

}  // namespace trainsim
