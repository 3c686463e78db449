#pragma once
// The progress of a step simulation of many steps (run.steps), as an observer of it: a line
// on the terminal, "run: 120/1000 steps done, about 25s left", redrawn as each step ends.
// Every record goes on to the next observer (the trace recorder), if any.

#include <iosfwd>

#include "sim/core/progress_line.hpp"
#include "sim/step/step_observer.hpp"

namespace trainsim::cli {

class StepProgress : public StepObserver {
 public:
  /// Draws on `terminal` (nullptr: nowhere) for `steps` steps; `next` may be null.
  StepProgress(std::ostream* terminal, int steps, StepObserver* next);

  bool wants_link_samples() const override;
  void on_link_samples(const std::vector<LinkSample>& samples) override;
  void on_activity(const ActivityRecord& record) override;
  void on_step(int step, double start_s, double end_s) override;

  /// Ends the line (call after the simulation).
  void finish();

 private:
  ProgressLine line_;
  StepObserver* next_;
};

}  // namespace trainsim::cli
