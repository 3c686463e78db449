#include "sim/cli/step_progress.hpp"

namespace trainsim::cli {

StepProgress::StepProgress(std::ostream* terminal, int steps, StepObserver* next)
    : line_(terminal, "run", "steps", steps), next_(next) {}

bool StepProgress::wants_link_samples() const {
  return next_ != nullptr && next_->wants_link_samples();
}

void StepProgress::on_link_samples(const std::vector<LinkSample>& samples) {
  if (next_) next_->on_link_samples(samples);
}

void StepProgress::on_activity(const ActivityRecord& record) {
  if (next_) next_->on_activity(record);
}

void StepProgress::on_step(int step, double start_s, double end_s) {
  line_.item_done();
  if (next_) next_->on_step(step, start_s, end_s);
}

void StepProgress::finish() {
  line_.finish();
}

}  // namespace trainsim::cli
