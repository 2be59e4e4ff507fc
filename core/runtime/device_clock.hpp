#pragma once
// sim::DeviceClock: a run's clock (step, simulated time, dt) kept in memory that kernels read
// and write, for a model that chooses each step's dt on the device. Its steps then queue
// without a host round trip each: BeginClockStep gives the first step its dt (the model's
// choice, the last step shortened to land on the end time); the step, recorded as the body
// of record_loop(ctx, clock.running(), ...), reads dt from the clock and ends with
// EndClockStep (time and step advanced, the next step's dt chosen; running() cleared at the
// end time or at the horizon the host set, which ends the loop on the device).
//
//   clock.start(state);                        // host: where the run stands, and the horizon
//   for_each(ctx, "begin", one, BeginClockStep<Choice>{clock.state(), choice});
//   steps.replay();                            // the loop: every step up to the horizon
//   ClockState now = clock.read();             // one wait: the steps that ran, the time
//
// On the CPU the state is host memory and the functors run on the host.
#include <cstdint>
#include <limits>
#include <memory>

#include "core/runtime/context.hpp"
#include "core/runtime/graph.hpp"
#include "core/runtime/host_buffer.hpp"
#include "core/runtime/macros.hpp"
#include "core/runtime/types.hpp"

namespace sim {

/// Relative tolerance with which a simulated time counts as having reached a target (end
/// time, next output time): rounding in a sum of dt's must not add or drop a step.
constexpr double time_tolerance = 1e-12;

/// True when time has reached target within time_tolerance.
SIM_INLINE bool reached(double time, double target) { return time >= target * (1 - time_tolerance); }

/// A clock in device memory (DeviceClock) and where its steps stop.
struct ClockState {
  double time = 0;
  double dt = 0;         ///< the latest step's dt (shortened on the last step)
  double dt_chosen = 0;  ///< the model's choice for the latest step
  double end_time = 0;   ///< > 0: the last step lands exactly on it
  double horizon_time = std::numeric_limits<double>::infinity();  ///< stop once time reaches it
  std::int64_t step = 0;
  std::int64_t horizon_step = std::numeric_limits<std::int64_t>::max();  ///< stop at this step
  int running = 1;  ///< nonzero while steps may run
  int last = 0;     ///< the step under way lands on end_time
};

/// Starts a step of the model's dt choice on c: the dt it uses, the last one shortened to land
/// on end_time, as the host's TimeStepper would.
SIM_INLINE void begin_clock_step(ClockState& c, double dt) {
  c.dt_chosen = dt;
  c.last = c.end_time > 0 && reached(c.time + dt, c.end_time) ? 1 : 0;
  c.dt = c.last ? c.end_time - c.time : dt;
}

/// A one-point for_each that starts the first step of a batch: its dt from choice().
template <class Choice>
struct BeginClockStep {
  ClockState* clock;
  Choice choice;
  SIM_INLINE void operator()(index_t) const { begin_clock_step(*clock, choice()); }
};

/// The last kernel of a device-clocked step: advances step and time, stops the later steps at
/// the end time, the horizon time or the horizon step, and otherwise starts the next step
/// with its dt from choice() (one kernel between steps; a stopped clock keeps the dt of the
/// step that ran), and tells the loop it ends (signal: record_loop's). Also a pass's then()
/// (for_each_reduce.hpp): the step's last reduction ends it.
template <class Choice>
struct EndClockStep {
  ClockState* clock;
  Choice choice;
  LoopSignal signal = {};
  SIM_INLINE void operator()(index_t) const { (*this)(); }
  SIM_INLINE void operator()() const {
    ClockState& c = *clock;
    ++c.step;
    c.time = c.last ? c.end_time : c.time + c.dt;
    c.running = c.last || reached(c.time, c.horizon_time) || c.step >= c.horizon_step ? 0 : 1;
    if (c.running) begin_clock_step(c, choice());
    signal.set(c.running != 0);
  }
};

/// A ClockState in memory that kernels read (device memory on a GPU), with its host mirror.
class DeviceClock {
 public:
  /// A clock on ctx.
  explicit DeviceClock(const Context& ctx);
  /// Queues the upload of s (after waiting for the steps of the previous start to finish).
  void start(const ClockState& s);
  /// Waits for the queued steps and returns the clock they left.
  const ClockState& read();
  /// The state last started or read, without waiting.
  const ClockState& host() const { return host_[0]; }
  /// Where kernels find the state.
  ClockState* state() const { return device_; }
  /// The flag that record_loop() runs device-clocked steps on.
  const int* running() const { return &device_->running; }
  /// Queues a copy of the state, as the work queued so far leaves it, into host slot k (0 or 1).
  void snapshot(int k);
  /// Waits for snapshot(k)'s copy only (not for the work queued after it) and returns it.
  ClockState wait_snapshot(int k);

 private:
  Context ctx_;
  HostBuffer<ClockState> host_;
  HostBuffer<ClockState> snapshots_;  // snapshot()'s slots
  ClockState* device_ = nullptr;
  std::shared_ptr<void> device_mem_;
  std::shared_ptr<void> events_[2];   // a GPU's event behind each slot's copy
};

/// True when a step of clock state c (the state as the step starts: its dt and whether it is
/// the last chosen) leaves the clock running: EndClockStep's test, on the host.
inline bool runs_after_step(const ClockState& c) {
  return !(c.last || reached(c.time + c.dt, c.horizon_time) || c.step + 1 >= c.horizon_step);
}

}  // namespace sim
