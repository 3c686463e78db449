#include "sim/core/progress_line.hpp"

#include <unistd.h>

#include <cmath>
#include <iostream>
#include <ostream>

namespace trainsim {

namespace {
std::string duration_text(double s) {
  const long long t = std::llround(s);
  if (t >= 3600) return std::to_string(t / 3600) + "h" + std::to_string(t % 3600 / 60) + "m";
  if (t >= 60) return std::to_string(t / 60) + "m" + std::to_string(t % 60) + "s";
  return std::to_string(t) + "s";
}
}  // namespace

ProgressLine::ProgressLine(std::ostream* out, std::string label, std::string noun, int total, int reused,
                           const std::string& note, std::optional<std::chrono::duration<double>> log_every)
    : out_(out),
      label_(std::move(label)),
      noun_(std::move(noun)),
      total_(total),
      reused_(reused),
      start_(std::chrono::steady_clock::now()),
      log_(log_every.has_value()),
      log_interval_(log_every.value_or(std::chrono::duration<double>(0))),
      last_line_(start_) {
  if (!log_) draw(note);  // a log starts with the first item done
}

void ProgressLine::item_done(const std::string& note) {
  ++computed_;
  if (log_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_line_ < log_interval_ && reused_ + computed_ < total_) return;
    last_line_ = now;
  }
  draw(note);
}

void ProgressLine::advance_to(int done) {
  if (done - reused_ <= computed_) return;
  computed_ = done - reused_;
  draw("");
}

void ProgressLine::set_total(int total, const std::string& note) {
  if (total == total_) return;
  total_ = total;
  draw(note);
}

void ProgressLine::draw(const std::string& note) {
  if (!out_) return;
  const int done = reused_ + computed_;
  std::string line = label_ + ": " + std::to_string(done) + "/" + std::to_string(total_) + " " + noun_ + " done";
  if (reused_ > 0) line += " (" + std::to_string(reused_) + " reused)";
  line += note;
  if (computed_ > 0 && done < total_) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    line += ", about " + duration_text(elapsed / computed_ * (total_ - done)) + " left";
  }
  if (log_) {
    *out_ << line << "\n" << std::flush;
    return;
  }
  *out_ << "\r" << line << "\033[K" << std::flush;  // \033[K clears what a longer line left
  drawn_ = true;
}

void ProgressLine::finish() {
  if (out_ && drawn_) *out_ << "\n" << std::flush;
  drawn_ = false;
}

std::ostream* terminal_stderr() {
  return ::isatty(STDERR_FILENO) ? &std::cerr : nullptr;
}

}  // namespace trainsim
