#pragma once
// The nodes a job can use as nodes fail and come back from repair: its own, less those in
// repair, plus the free spares (failures.spare_nodes, failures.repair).

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

namespace trainsim {

class NodePool {
 public:
  /// `spares` < 0: unlimited (a failed node is replaced at once).
  NodePool(int job_nodes, int spares, double repair_s) : job_(job_nodes), spares_(spares), repair_s_(repair_s) {}
  /// A node left for repair at `at` (nothing changes with unlimited spares).
  void to_repair(double at) {
    if (spares_ >= 0) repairs_.push(at + repair_s_);
  }
  /// Nodes available at `at`, at most the job's.
  int available(double at) {
    while (!repairs_.empty() && repairs_.top() <= at) repairs_.pop();
    if (spares_ < 0) return job_;
    return std::min(job_, job_ + spares_ - static_cast<int>(repairs_.size()));
  }
  /// When the next repaired node comes back (infinite if none is in repair).
  double next_return() const { return repairs_.empty() ? std::numeric_limits<double>::infinity() : repairs_.top(); }

 private:
  int job_;
  int spares_;
  double repair_s_;
  std::priority_queue<double, std::vector<double>, std::greater<>> repairs_;
};

}  // namespace trainsim
