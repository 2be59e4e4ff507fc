#pragma once
// When an activity runs: every N steps, every T of simulated time, every M minutes of wall
// time, any of several, or never. A Simulation asks each schedule due() once per step (in the
// order of its activities, the same on every rank) and tells it fired() when it was due.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/comm.hpp"
#include "models/run/clock.hpp"

namespace sim::run {

/// When the activities that share it run.
class Schedule {
 public:
  virtual ~Schedule() = default;
  /// True when the activities on this schedule run at clock. Called once per step on every
  /// rank in the same order (a wall-time schedule is collective).
  virtual bool due(const RunClock& clock) = 0;
  /// Told once due() said true, before the step's later activities run (moves its next time).
  virtual void fired(const RunClock& clock) { (void)clock; }
};

/// Never due (an activity that is switched off, or run only on demand).
class Never : public Schedule {
 public:
  /// Always false.
  bool due(const RunClock&) override { return false; }
};

/// Due at every step that is a multiple of n (n = 1: every step).
class EverySteps : public Schedule {
 public:
  /// n > 0.
  explicit EverySteps(std::int64_t n) : n_(n) {}
  /// step % n == 0.
  bool due(const RunClock& clock) override { return clock.step % n_ == 0; }

 private:
  std::int64_t n_;
};

/// Due when the simulated time reaches the next multiple of an interval (within
/// time_tolerance); the next time is part of a checkpoint, so a resume keeps the series.
class EveryTime : public Schedule {
 public:
  /// interval > 0; next: the first time it is due (0 at the start, a checkpoint's on resume).
  EveryTime(double interval, double next) : interval_(interval), next_(next) {}
  /// time has reached the next output time.
  bool due(const RunClock& clock) override { return reached(clock.time, next_); }
  /// Moves the next time past clock.time.
  void fired(const RunClock& clock) override;
  /// The next time it is due.
  double next() const { return next_; }

 private:
  double interval_, next_;
};

/// Due when `minutes` of wall time have passed since it last fired (or was made). Rank 0's
/// clock decides and every rank agrees (a broadcast: collective).
class EveryWallMinutes : public Schedule {
 public:
  /// Wall seconds from an arbitrary origin (a steady clock by default; tests give their own).
  using Now = std::function<double()>;
  /// minutes > 0; comm: the ranks that must agree.
  EveryWallMinutes(double minutes, Comm comm, Now now = steady_seconds);
  /// Rank 0 has seen `minutes` pass: collective.
  bool due(const RunClock& clock) override;
  /// Restarts the wait.
  void fired(const RunClock& clock) override;
  /// Seconds on the steady clock.
  static double steady_seconds();

 private:
  double minutes_, last_;
  Comm comm_;
  Now now_;
};

/// Due when any of its parts is: each part is asked every time (none is skipped, so the
/// collectives of every part run on every rank), and all are told when it fired.
class AnyOf : public Schedule {
 public:
  /// The parts (none null).
  explicit AnyOf(std::vector<std::shared_ptr<Schedule>> parts) : parts_(std::move(parts)) {}
  /// Any part due.
  bool due(const RunClock& clock) override;
  /// Tells every part.
  void fired(const RunClock& clock) override;

 private:
  std::vector<std::shared_ptr<Schedule>> parts_;
};

}  // namespace sim::run
