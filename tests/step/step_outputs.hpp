#pragma once
// For comparing two simulations of one step number by number: its results, breakdown and
// every activity record's times, GPU by GPU in the order each GPU reports them (the GPUs'
// reports interleave in engine order). The simulation runs in a forked child.

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/compute/roofline_compute_model.hpp"
#include "sim/step/step_observer.hpp"
#include "sim/step/step_simulation.hpp"
#include "tests/engine/isolated_run.hpp"

namespace trainsim::testing {

class RecordTimes : public StepObserver {
 public:
  void on_activity(const ActivityRecord& r) override {
    std::vector<double>& gpu = by_gpu_[{r.stage, r.replica, r.rank}];
    gpu.push_back(r.start_s);
    gpu.push_back(r.end_s);
  }
  void on_step(int /*step*/, double start_s, double end_s) override {
    steps_.push_back(start_s);
    steps_.push_back(end_s);
  }
  /// Per GPU its record count and its records' start and end times; then the steps'.
  std::vector<double> times() const {
    std::vector<double> all;
    for (const auto& [gpu, times] : by_gpu_) {
      all.push_back(static_cast<double>(times.size()));
      all.insert(all.end(), times.begin(), times.end());
    }
    all.insert(all.end(), steps_.begin(), steps_.end());
    return all;
  }

 private:
  std::map<std::tuple<int, int, int>, std::vector<double>> by_gpu_;
  std::vector<double> steps_;
};

/// What `fields` takes from the step of `s`, simulated in a forked child with the datasheet
/// roofline, symmetry reduced or not (--full).
template <typename Fields>
std::vector<double> simulated_fields(const Scenario& s, bool reduce, Fields fields) {
  return engine::test::run_isolated([&] {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    StepOptions options;
    options.reduce_symmetry = reduce;
    return std::vector<double>(fields(simulate_step(s, compute, options)));
  });
}

/// The step of `s` under `options` (its observer replaced): step time, bubble, exposed
/// communication, energy, the breakdown, the bytes per GPU, then RecordTimes::times().
inline std::vector<double> step_outputs(const Scenario& s, StepOptions options) {
  return engine::test::run_isolated([&] {
    const RooflineComputeModel compute(datasheet_roofline(s.cluster.gpu, s.training.precision));
    RecordTimes records;
    options.observer = &records;
    const StepResult r = simulate_step(s, compute, options);
    const StepBreakdown& b = r.breakdown_s;
    const CommBytes& c = r.comm_bytes_per_gpu;
    std::vector<double> out{r.step_time_s, r.bubble_fraction, r.exposed_comm_fraction, r.energy_per_step_j,
                            b.data,        b.forward,         b.backward,              b.recompute,
                            b.optimizer,   b.tp_comm,         b.pp_comm,               b.dp_comm,
                            b.zero_comm,   b.ep_comm,         b.cp_comm,               b.idle,
                            c.tp,          c.pp,              c.dp,                    c.zero,
                            c.ep,          c.cp};
    const std::vector<double> times = records.times();
    out.insert(out.end(), times.begin(), times.end());
    return out;
  });
}

/// Expects the step of `s` to come out the same, to the bit (step_outputs), with `option`
/// of StepOptions on and off.
inline void expect_same_with_and_without(const Scenario& s, bool StepOptions::*option, const std::string& what) {
  StepOptions with, without;
  with.*option = true;
  without.*option = false;
  const std::vector<double> a = step_outputs(s, with);
  const std::vector<double> b = step_outputs(s, without);
  ASSERT_GT(a.front(), 0) << what;
  EXPECT_EQ(a, b) << what;
}

}  // namespace trainsim::testing
