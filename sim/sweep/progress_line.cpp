#include "sim/sweep/progress_line.hpp"

#include <cmath>
#include <ostream>
#include <string>

namespace trainsim::sweep {

namespace {
std::string duration_text(double s) {
  const long long t = std::llround(s);
  if (t >= 3600) return std::to_string(t / 3600) + "h" + std::to_string(t % 3600 / 60) + "m";
  if (t >= 60) return std::to_string(t / 60) + "m" + std::to_string(t % 60) + "s";
  return std::to_string(t) + "s";
}
}  // namespace

ProgressLine::ProgressLine(std::ostream* out, int total, int reused)
    : out_(out), total_(total), reused_(reused), start_(std::chrono::steady_clock::now()) {
  draw();
}

void ProgressLine::point_done(bool skipped, bool failed) {
  ++computed_;
  skipped_ += skipped ? 1 : 0;
  failed_ += failed ? 1 : 0;
  draw();
}

void ProgressLine::draw() {
  if (!out_) return;
  const int done = reused_ + computed_;
  std::string line = "sweep: " + std::to_string(done) + "/" + std::to_string(total_) + " points done";
  if (reused_ > 0) line += " (" + std::to_string(reused_) + " reused)";
  line += ", " + std::to_string(skipped_) + " skipped, " + std::to_string(failed_) + " failed";
  if (computed_ > 0 && done < total_) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    line += ", about " + duration_text(elapsed / computed_ * (total_ - done)) + " left";
  }
  *out_ << "\r" << line << "\033[K" << std::flush;  // \033[K clears what a longer line left
  drawn_ = true;
}

void ProgressLine::finish() {
  if (out_ && drawn_) *out_ << "\n" << std::flush;
  drawn_ = false;
}

}  // namespace trainsim::sweep
