#include "sim/run/data_cursor.hpp"

#include <algorithm>

namespace trainsim {

DataCursor::DataCursor(double samples_per_step, double step_time_s, bool saved)
    : per_step_(samples_per_step), step_time_s_(step_time_s), saved_(saved) {}

long long DataCursor::steps_in(std::size_t i) const {
  const long long next = i + 1 < stretches_.size() ? stretches_[i + 1].first_step : steps_;
  return next - stretches_[i].first_step;
}

double DataCursor::end_of(std::size_t i) const {
  return stretches_[i].first_sample + static_cast<double>(steps_in(i)) * stretches_[i].samples_per_step;
}

void DataCursor::trained_to(long long steps) {
  if (steps <= steps_) return;
  const bool continues = !stretches_.empty() && end_of(stretches_.size() - 1) == position_ &&
                         stretches_.back().samples_per_step == per_step_ &&
                         stretches_.back().step_time_s == step_time_s_;
  if (!continues) stretches_.push_back({steps_, position_, per_step_, step_time_s_});
  position_ += static_cast<double>(steps - steps_) * per_step_;
  steps_ = steps;
}

void DataCursor::restarted_from(long long steps) {
  while (!stretches_.empty() && stretches_.back().first_step >= steps) stretches_.pop_back();
  steps_ = std::min(steps_, steps);
  position_ = saved_ && !stretches_.empty() ? end_of(stretches_.size() - 1) : 0.0;
}

void DataCursor::resized(double samples_per_step, double step_time_s, double position_scale) {
  per_step_ = samples_per_step;
  step_time_s_ = step_time_s;
  position_ *= position_scale;
}

std::vector<std::pair<double, double>> DataCursor::ranges() const {
  std::vector<std::pair<double, double>> out;
  for (std::size_t i = 0; i < stretches_.size(); ++i) {
    const double first = stretches_[i].first_sample, last = end_of(i);
    if (!out.empty() && out.back().second == first)
      out.back().second = last;
    else
      out.emplace_back(first, last);
  }
  return out;
}

double DataCursor::samples_trained() const {
  double total = 0;
  for (std::size_t i = 0; i < stretches_.size(); ++i) total += end_of(i) - stretches_[i].first_sample;
  return total;
}

double DataCursor::useful_time_s() const {
  double total = 0;
  for (std::size_t i = 0; i < stretches_.size(); ++i)
    total += static_cast<double>(steps_in(i)) * stretches_[i].step_time_s;
  return total;
}

double DataCursor::duplicated() const {
  std::vector<std::pair<double, double>> sorted = ranges();
  std::sort(sorted.begin(), sorted.end());
  double distinct = 0, covered = 0;
  for (const auto& [first, last] : sorted) {
    const double from = std::max(first, covered);
    if (last > from) distinct += last - from;
    covered = std::max(covered, last);
  }
  return samples_trained() - distinct;
}

double DataCursor::skipped() const {
  std::vector<std::pair<double, double>> sorted = ranges();
  std::sort(sorted.begin(), sorted.end());
  double holes = 0, covered = 0;
  for (const auto& [first, last] : sorted) {
    if (first > covered) holes += first - covered;
    covered = std::max(covered, last);
  }
  return holes;
}

}  // namespace trainsim
