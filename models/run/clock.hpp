#pragma once
// The run's clock (step, simulated time, current dt), the one tolerance with which a time
// counts as reached, and the stepper that advances the clock: a fixed dt or the model's
// adaptive one, with the last step shortened to land exactly on run.end_time.
#include <cstdint>

#include "core/runtime/device_clock.hpp"  // time_tolerance, reached()

namespace sim {
class Model;
}

namespace sim::run {

/// Where the run stands: steps taken, simulated time, and the dt of the latest step.
struct RunClock {
  std::int64_t step = 0;
  double time = 0;
  double dt = 0;  ///< the step size in force (the model's latest choice when adaptive)
};

/// Steps of dt that reach end_time within time_tolerance (a double: it may be huge or NaN).
double steps_to_reach(double end_time, double dt);

/// Advances a RunClock by one model step at a time until the run's end.
class TimeStepper {
 public:
  /// dt: the fixed step (the clock starts with it); end_time > 0: land exactly on it;
  /// total_steps: the steps of a fixed-dt run; adaptive: ask model.next_dt(cfl) each step.
  TimeStepper(double dt, std::int64_t total_steps, double end_time, bool adaptive, double cfl);
  /// True while the run has steps left.
  bool more(const RunClock& clock) const;
  /// Steps the model once and advances clock (step, time, dt).
  void step(Model& model, RunClock& clock) const;
  /// The fixed dt (the first step's, when adaptive): the clock starts with it.
  double dt() const { return dt_; }
  /// The number of steps of a fixed-dt run (the progress line's total).
  std::int64_t total_steps() const { return total_steps_; }

 private:
  double dt_, end_time_, cfl_;
  std::int64_t total_steps_;
  bool adaptive_;
};

}  // namespace sim::run
