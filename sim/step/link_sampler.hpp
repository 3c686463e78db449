#pragma once
// Link utilization over a simulated step: a daemon actor reads every platform link's usage
// at a fixed interval; afterwards the busiest links' series and each link class's mean
// series are handed to the observer (the trace's /links).

#include <simgrid/forward.h>

#include <string>
#include <vector>

#include "sim/step/step_observer.hpp"

namespace trainsim {

class LinkSampler {
 public:
  /// Samples every `interval_s` simulated seconds until the simulation ends; `busiest`: how
  /// many of the most used links keep their own series.
  LinkSampler(double interval_s, int busiest);
  /// Starts the sampling actor on `host` (call before the simulation runs; keep the sampler
  /// alive until it has).
  void start(simgrid::s4u::Host* host);
  /// The samples: the `busiest` links by mean utilization, then one mean series per class.
  std::vector<LinkSample> samples() const;

  /// nvlink, nic, leaf or spine, from the platform's link names (sim/engine/platform.cpp).
  static std::string link_class(const std::string& name);

 private:
  void sample_once();

  double interval_s_;
  int busiest_;
  std::vector<simgrid::s4u::Link*> links_;
  std::vector<double> times_s_;
  std::vector<std::vector<float>> utilization_;  ///< per link, per sample
};

}  // namespace trainsim
