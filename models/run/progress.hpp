#pragma once
// Progress: a live bar on a terminal, a plain line every few seconds otherwise; rank 0 only.
#include <chrono>
#include <cstdint>

#include "models/run/activity.hpp"

namespace sim::run {

/// The progress line of a run.
class Progress {
 public:
  /// quiet: print nothing; total: the run's steps; cells: cell updates per step.
  Progress(bool quiet, std::int64_t total, double cells);
  /// Prints the line when enough time has passed since the last one (or force).
  void update(std::int64_t step, std::int64_t first, double time, bool force = false);
  /// Ends a terminal's bar line.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool quiet_, tty_;
  std::int64_t total_;
  double cells_;
  Clock::time_point start_ = Clock::now(), last_ = Clock::now() - std::chrono::hours(1);
};

/// Updates the progress line after every step (or batch of device-queued steps), and prints it one last time at the end.
class ProgressReport : public Activity {
 public:
  /// quiet: print nothing (also on ranks other than 0).
  explicit ProgressReport(bool quiet);
  /// Starts the line's clock.
  void start(Simulation& sim) override;
  /// Updates the line.
  void run(Simulation& sim) override;
  /// The final line.
  void finish(Simulation& sim) override;
  /// Ends a terminal's bar line before another message (a stop).
  void end_line() { progress_.finish(); }

 private:
  bool quiet_;
  Progress progress_{true, 0, 0};
};

}  // namespace sim::run
