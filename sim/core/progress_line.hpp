#pragma once
// The one-line progress of a long command, redrawn in place on a terminal:
//   sweep: 12/40 points done (3 reused), 1 skipped, 0 failed, about 2m10s left
//   scale: 2/5 sizes done, about 40s left
// The time left extrapolates this run's pace over the items it still has to compute.
// Into a log (a file or a pipe, log_every()) it writes whole lines instead, at most one per
// interval and always the last, so that a redirected run shows it is alive.

#include <chrono>
#include <iosfwd>
#include <optional>
#include <string>

namespace trainsim {

class ProgressLine {
 public:
  /// Draws on `out` (the terminal's stderr) or, with nullptr, nowhere (not a terminal).
  /// `label` names the command, `noun` its items; `total` items, `reused` of them complete
  /// already (shown as "(N reused)"). `note` follows the count (", 0 skipped, 0 failed").
  /// With `log_every`, `out` is a log: whole lines rather than one redrawn, a line when an
  /// item is done and at least that long has passed since the last line (or the start), and
  /// when the last item is done.
  ProgressLine(std::ostream* out, std::string label, std::string noun, int total, int reused = 0,
               const std::string& note = "", std::optional<std::chrono::duration<double>> log_every = std::nullopt);

  /// Counts one computed item and redraws, with `note` after the count.
  void item_done(const std::string& note = "");

  /// Sets the items done so far (a share of a whole, say) and redraws if the count changed.
  void advance_to(int done);

  /// Fewer items after all (a search that stops early, sim/sweep/pruned_search.hpp): `total`
  /// becomes the count and the time left, and the line is redrawn with `note` if it changed.
  void set_total(int total, const std::string& note = "");

  /// Ends the line (a newline) if anything was drawn.
  void finish();

 private:
  void draw(const std::string& note);

  std::ostream* out_;
  std::string label_;
  std::string noun_;
  int total_;
  int reused_;
  int computed_ = 0;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  bool log_ = false;
  std::chrono::duration<double> log_interval_{0};
  std::chrono::steady_clock::time_point last_line_;
};

/// stderr when it is a terminal, else nullptr: progress lines never reach logs or pipes.
std::ostream* terminal_stderr();

}  // namespace trainsim
