#include "sim/schedule/dualpipe_schedule.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <optional>

namespace trainsim {

namespace {

// One rank's DualPipe order, phase by phase as deepseek-ai/DualPipe dualpipe/dualpipe.py
// @ 3da1bbe runs it (DualPipe.step, "Step 1" to "Step 8"). A rank's phase 0 is its first
// direction: the forward direction (chunk 0) on the first half of the ranks, the reverse one
// (chunk 1) on the second half (`phase ^= is_in_second_half`).
class DualPipeOrder {
 public:
  DualPipeOrder(int stage, int pp, int microbatches)
      : half_m_(microbatches / 2), second_half_(stage >= pp / 2) {
    const int half_pp = pp / 2;
    const int h = std::min(stage, pp - 1 - stage);  // half_rank
    const bool middle = h == half_pp - 1;
    for (int i = 0; i < (half_pp - h - 1) * 2; ++i) forward(0);  // 1: nF0
    for (int i = 0; i <= h; ++i) {                                // 2: nF0F1
      forward(0);
      forward(1);
    }
    for (int i = 0; i < half_pp - h - 1; ++i) {  // 3: nB1W1F1, zero bubble
      backward(1, true);
      weight();
      forward(1);
    }
    for (int i = 0; i < half_m_ - pp + h + 1; ++i) {  // 4: nF0B1F1B0, the steady state
      if (i == 0 && middle) {  // dualpipe.py leaves this pair apart to cut the bubble
        forward(0);
        backward(1, false);
      } else {
        pair(0, 1);
      }
      pair(1, 0);
    }
    for (int i = 0; i < half_pp - h - 1; ++i) {  // 5: nB1F1B0
      backward(1, false);
      pair(1, 0);
    }
    bool apart = false;
    for (int i = 0; i <= h; ++i) {  // 6: nB1B0, the later half with zero bubble
      if (i == (h + 1) / 2 && h % 2 == 1) apart = true;
      backward(1, apart);
      if (i == (h + 1) / 2 && h % 2 == 0) apart = true;
      backward(0, apart);
    }
    for (int i = 0; i < half_pp - h - 1; ++i) {  // 7: nWB0, zero bubble
      weight();
      backward(0, true);
    }
    while (!weights_.empty()) weight();  // 8: nW
  }

  const std::vector<ScheduledUnit>& units() const { return units_; }

 private:
  int direction(int phase) const { return phase ^ (second_half_ ? 1 : 0); }
  PipelineTask next_forward(int phase) {
    const int d = direction(phase);
    return {d * half_m_ + forwards_[static_cast<size_t>(d)]++, d, TaskPass::forward};
  }
  PipelineTask next_backward(int phase, bool apart) {
    const int d = direction(phase);
    const PipelineTask t{d * half_m_ + backwards_[static_cast<size_t>(d)]++, d, TaskPass::backward, apart};
    if (apart) weights_.push_back({t.microbatch, d, TaskPass::weight});
    return t;
  }
  void forward(int phase) { units_.push_back({next_forward(phase), std::nullopt}); }
  void backward(int phase, bool apart) { units_.push_back({next_backward(phase, apart), std::nullopt}); }
  // dualpipe.py's WeightGradStore is a FIFO queue.
  void weight() {
    units_.push_back({weights_.front(), std::nullopt});
    weights_.pop_front();
  }
  // _forward_backward_chunk: a forward of `f` and a whole backward of `b`.
  void pair(int f, int b) {
    const PipelineTask forward_task = next_forward(f);
    units_.push_back({forward_task, next_backward(b, false)});
  }

  int half_m_;
  bool second_half_;
  std::array<int, 2> forwards_{};
  std::array<int, 2> backwards_{};
  std::deque<PipelineTask> weights_;
  std::vector<ScheduledUnit> units_;
};

}  // namespace

std::vector<PipelineTask> DualPipeSchedule::order(int stage, int pp, int microbatches, int /*virtual_stages*/) const {
  const DualPipeOrder played(stage, pp, microbatches);
  std::vector<PipelineTask> tasks;
  for (const ScheduledUnit& u : played.units()) {
    tasks.push_back(u.task);
    if (u.beside) tasks.push_back(*u.beside);
  }
  return tasks;
}

std::vector<ScheduledUnit> DualPipeSchedule::units(int stage, int pp, int microbatches, int /*virtual_stages*/,
                                                   const std::function<bool(const PipelineTask&)>& pairable) const {
  const DualPipeOrder played(stage, pp, microbatches);
  std::vector<ScheduledUnit> units;
  for (const ScheduledUnit& u : played.units()) {
    if (!u.beside || (pairable(u.task) && pairable(*u.beside))) {
      units.push_back(u);
      continue;
    }
    units.push_back({u.task, std::nullopt});
    units.push_back({*u.beside, std::nullopt});
  }
  return units;
}

}  // namespace trainsim
