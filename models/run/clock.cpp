#include "models/run/clock.hpp"

#include <cmath>

#include "models/model.hpp"

namespace sim::run {

double steps_to_reach(double end_time, double dt) { return std::ceil(end_time / dt * (1 - time_tolerance)); }

TimeStepper::TimeStepper(double dt, std::int64_t total_steps, double end_time, bool adaptive, double cfl)
    : dt_(dt), end_time_(end_time), cfl_(cfl), total_steps_(total_steps), adaptive_(adaptive) {}

bool TimeStepper::more(const RunClock& clock) const {
  if (adaptive_ && end_time_ > 0) return !reached(clock.time, end_time_);
  return clock.step < total_steps_;
}

void TimeStepper::step(Model& model, RunClock& clock) const {
  double dt = clock.dt;
  bool last = end_time_ > 0 && clock.step + 1 == total_steps_;
  if (adaptive_) {
    dt = clock.dt = model.next_dt(cfl_);
    last = end_time_ > 0 && reached(clock.time + dt, end_time_);
  }
  if (last) dt = end_time_ - clock.time;  // land on end_time
  model.step(dt);
  ++clock.step;
  clock.time = last ? end_time_ : clock.time + dt;
}

}  // namespace sim::run
