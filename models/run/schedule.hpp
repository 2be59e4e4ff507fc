#pragma once
// When an activity runs: every N steps, every T of simulated time, every M minutes of wall
// time, any of several, or never. A Simulation asks each schedule due() once per step (in the
// order of its activities, the same on every rank) and tells it fired() when it was due.
//
// A model that chooses its dt on the device runs in batches of steps (simulation.hpp): the
// Simulation asks the schedules after each batch, and a batch never passes a schedule's
// next_due(), so step and time schedules fire at the same steps either way. A schedule that
// cannot tell its next step or time (wall time, EveryCheck) is asked after each batch.
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "core/distributed/comm.hpp"
#include "models/run/clock.hpp"

namespace sim::run {

/// The earliest step and simulated time at which a schedule may next be due (either may be
/// "never": the largest step, an infinite time).
struct NextDue {
  std::int64_t step = std::numeric_limits<std::int64_t>::max();
  double time = std::numeric_limits<double>::infinity();
};

/// The earlier of two NextDue, field by field.
NextDue earliest(const NextDue& a, const NextDue& b);

/// When the activities that share it run.
class Schedule {
 public:
  virtual ~Schedule() = default;
  /// True when the activities on this schedule run at clock. Called once per step on every
  /// rank in the same order (a wall-time schedule is collective).
  virtual bool due(const RunClock& clock) = 0;
  /// Told once due() said true, before the step's later activities run (moves its next time).
  virtual void fired(const RunClock& clock) { (void)clock; }
  /// The first step or time after clock at which due() may say true (default: neither can be told).
  virtual NextDue next_due(const RunClock& clock) const {
    (void)clock;
    return {};
  }
};

/// Due whenever the Simulation asks: after every step, or after each batch of steps a model
/// queued on the device (progress lines, the stop-signal check).
class EveryCheck : public Schedule {
 public:
  /// Always true.
  bool due(const RunClock&) override { return true; }
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
  explicit EverySteps(std::int64_t n) : every_(n) {}
  /// step % n == 0.
  bool due(const RunClock& clock) override { return clock.step % every_ == 0; }
  /// The next multiple of n after clock.step.
  NextDue next_due(const RunClock& clock) const override { return {(clock.step / every_ + 1) * every_, NextDue{}.time}; }

 private:
  std::int64_t every_;
};

/// Due when the simulated time reaches the next multiple of an interval (within
/// time_tolerance); the next time is part of a checkpoint, so a resume keeps the series.
class EveryTime : public Schedule {
 public:
  /// interval > 0; next: the first time it is due (0 at the start, a checkpoint's on resume).
  EveryTime(double interval, double next) : interval_(interval), next_(next) {}
  /// time has reached the next output time.
  bool due(const RunClock& clock) override { return reached(clock.time, next_); }
  /// Moves the next time past clock.time (in O(1) however many intervals the step crossed).
  void fired(const RunClock& clock) override;
  /// The next time it is due.
  double next() const { return next_; }
  /// The next time.
  NextDue next_due(const RunClock&) const override { return {NextDue{}.step, next_}; }

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
  /// The earliest of the parts'.
  NextDue next_due(const RunClock& clock) const override;

 private:
  std::vector<std::shared_ptr<Schedule>> parts_;
};

}  // namespace sim::run
