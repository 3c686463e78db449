#include "sim/run/data_cursor.hpp"

#include <algorithm>

namespace trainsim {

DataCursor::DataCursor(double samples_per_step, bool saved) : per_step_(samples_per_step), saved_(saved) {}

void DataCursor::trained_to(long long steps) {
  if (steps <= steps_) return;
  const double first = position_;
  const double last = position_ + static_cast<double>(steps - steps_) * per_step_;
  if (!ranges_.empty() && ranges_.back().second == first)
    ranges_.back().second = last;
  else {
    ranges_.emplace_back(first, last);
    steps_from_.emplace_back(steps_, first);
  }
  steps_ = steps;
  position_ = last;
}

void DataCursor::restarted_from(long long steps) {
  // Cut the history back to `steps` steps.
  while (!steps_from_.empty() && steps_from_.back().first >= steps) {
    steps_from_.pop_back();
    ranges_.pop_back();
  }
  if (!ranges_.empty())
    ranges_.back().second =
        steps_from_.back().second + static_cast<double>(steps - steps_from_.back().first) * per_step_;
  steps_ = std::min(steps_, steps);
  position_ = saved_ ? (ranges_.empty() ? 0.0 : ranges_.back().second) : 0.0;
}

double DataCursor::duplicated() const {
  double total = 0;
  for (const auto& [first, last] : ranges_) total += last - first;
  std::vector<std::pair<double, double>> sorted = ranges_;
  std::sort(sorted.begin(), sorted.end());
  double distinct = 0, covered = 0;
  for (const auto& [first, last] : sorted) {
    const double from = std::max(first, covered);
    if (last > from) distinct += last - from;
    covered = std::max(covered, last);
  }
  return total - distinct;
}

double DataCursor::skipped() const {
  std::vector<std::pair<double, double>> sorted = ranges_;
  std::sort(sorted.begin(), sorted.end());
  double holes = 0, covered = 0;
  for (const auto& [first, last] : sorted) {
    if (first > covered) holes += first - covered;
    covered = std::max(covered, last);
  }
  return holes;
}

}  // namespace trainsim
