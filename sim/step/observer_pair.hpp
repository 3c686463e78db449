#pragma once
// Two observers of one step simulation, each given every record (a trace recorder and the
// Chakra export's recording, say). Either may be null.

#include <vector>

#include "sim/step/step_observer.hpp"

namespace trainsim {

class ObserverPair : public StepObserver {
 public:
  ObserverPair(StepObserver* first, StepObserver* second) : first_(first), second_(second) {}

  bool wants_link_samples() const override {
    return (first_ && first_->wants_link_samples()) || (second_ && second_->wants_link_samples());
  }
  void on_link_samples(const std::vector<LinkSample>& samples) override {
    if (first_) first_->on_link_samples(samples);
    if (second_) second_->on_link_samples(samples);
  }
  void on_activity(const ActivityRecord& record) override {
    if (first_) first_->on_activity(record);
    if (second_) second_->on_activity(record);
  }
  void on_step(int step, double start_s, double end_s) override {
    if (first_) first_->on_step(step, start_s, end_s);
    if (second_) second_->on_step(step, start_s, end_s);
  }

 private:
  StepObserver* first_;
  StepObserver* second_;
};

}  // namespace trainsim
