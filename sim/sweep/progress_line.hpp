#pragma once
// The one-line progress of a sweep, redrawn in place on a terminal:
//   sweep: 12/40 points done (3 reused), 1 skipped, 0 failed, about 2m10s left
// The time left extrapolates this run's pace over the points it still has to compute.

#include <chrono>
#include <iosfwd>

namespace trainsim::sweep {

class ProgressLine {
 public:
  /// Draws on `out` (the terminal's stderr) or, with nullptr, nowhere (not a terminal).
  /// `total` points in this run's share, `reused` of them complete already.
  ProgressLine(std::ostream* out, int total, int reused);

  /// Counts one computed point and redraws.
  void point_done(bool skipped, bool failed);

  /// Ends the line (a newline) if anything was drawn.
  void finish();

 private:
  void draw();

  std::ostream* out_;
  int total_;
  int reused_;
  int computed_ = 0;
  int skipped_ = 0;
  int failed_ = 0;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace trainsim::sweep
