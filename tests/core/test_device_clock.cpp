// The clock in device memory (core/runtime/device_clock.hpp) and the device loop it drives
// (record_loop, core/runtime/graph.hpp): the steps stop by themselves at the horizon or the end time,
// the last step lands exactly on the end time, the two bodies alternate, and a stopped loop
// runs nothing.
#include <gtest/gtest.h>

#include <vector>

#include "core/runtime/device_clock.hpp"
#include "core/array/expr.hpp"
#include "core/kernels/for_each.hpp"
#include "core/runtime/graph.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace {
/// A fixed dt choice.
struct FixedDt {
  double dt;
  SIM_INLINE double operator()() const { return dt; }
};

/// x(i) += by: counts the steps that ran (1 for the even body, 100 for the odd one).
struct CountStep {
  View<double, 1> x;
  double by;
  SIM_INLINE void operator()(index_t i) const { x(i) += by; }
};

/// The device loop of steps of dt: count, end (and begin the next).
Recorded clocked_steps(const Context& ctx, DeviceClock& clock, double dt, View<double, 1> counter) {
  return record_loop(ctx, clock.running(), [ctx, c = clock.state(), dt, counter](int odd, const LoopSignal& signal) {
    for_each(ctx, "test::count_step", counter.box(), CountStep{counter, odd ? 100.0 : 1.0});
    for_each(ctx, "test::end_step", Box<1>{{0}, {1}}, EndClockStep<FixedDt>{c, FixedDt{dt}, signal});
  });
}

/// Starts clock at s and begins its first step of dt.
void start(const Context& ctx, DeviceClock& clock, const ClockState& s, double dt) {
  clock.start(s);
  for_each(ctx, "test::begin_step", Box<1>{{0}, {1}}, BeginClockStep<FixedDt>{clock.state(), FixedDt{dt}});
}
}  // namespace

template <class B>
class DeviceClockTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(DeviceClockTest);

TYPED_TEST(DeviceClockTest, StepsStopAtTheHorizonTimeAndLandOnTheEndTime) {
  const Context ctx = this->ctx;
  auto n = Array<double, 1>::zeros(ctx, extents(64));
  DeviceClock clock(ctx);
  Recorded steps = clocked_steps(ctx, clock, 0.3, n.view());
  ClockState s;
  s.end_time = 1.0, s.horizon_time = 0.5;
  start(ctx, clock, s, 0.3);
  steps.replay();  // 0.3, 0.6: the horizon is reached at step 2
  steps.replay();  // stopped: nothing
  ClockState now = clock.read();
  EXPECT_EQ(now.step, 2);
  EXPECT_EQ(now.time, 0.3 + 0.3);
  EXPECT_EQ(now.running, 0);
  EXPECT_EQ(now.dt, 0.3) << "a stopped clock keeps the dt of the step that ran";
  EXPECT_EQ(sum(n), 101.0 * 64) << "one even and one odd body, and nothing once stopped";

  now.horizon_time = ClockState{}.horizon_time, now.running = 1;
  start(ctx, clock, now, 0.3);
  steps.replay();  // 0.9, then 0.1 to land on 1.0
  now = clock.read();
  EXPECT_EQ(now.step, 4);
  EXPECT_EQ(now.time, 1.0) << "the last step must land exactly on the end time";
  EXPECT_DOUBLE_EQ(now.dt, 1.0 - (0.3 + 0.3 + 0.3));
  EXPECT_EQ(now.dt_chosen, 0.3);
  EXPECT_EQ(now.last, 1);
  EXPECT_EQ(sum(n), 202.0 * 64);
}

TYPED_TEST(DeviceClockTest, StepsStopAtTheHorizonStep) {
  const Context ctx = this->ctx;
  auto n = Array<double, 1>::zeros(ctx, extents(5));
  DeviceClock clock(ctx);
  Recorded steps = clocked_steps(ctx, clock, 0.25, n.view());
  ClockState s;
  s.step = 10, s.time = 7.0, s.horizon_step = 13;  // no end time: no landing
  start(ctx, clock, s, 0.25);
  steps.replay();
  const ClockState now = clock.read();
  EXPECT_EQ(now.step, 13);
  EXPECT_EQ(now.time, 7.75);
  EXPECT_EQ(now.last, 0);
  EXPECT_EQ(sum(n), 102.0 * 5) << "even, odd, even: the odd body is skipped once the even one stopped the loop";
}

TYPED_TEST(DeviceClockTest, AStoppedClockRunsNothing) {
  const Context ctx = this->ctx;
  auto n = Array<double, 1>::zeros(ctx, extents(7));
  DeviceClock clock(ctx);
  Recorded steps = clocked_steps(ctx, clock, 0.5, n.view());
  ClockState s;
  s.running = 0;
  start(ctx, clock, s, 0.5);
  steps.replay();
  EXPECT_EQ(clock.read().step, 0);
  EXPECT_EQ(sum(n), 0.0);
}

TEST(DeviceClock, ReachedHasTheRunsTolerance) {
  EXPECT_TRUE(reached(1.0 - 1e-13, 1.0));
  EXPECT_FALSE(reached(1.0 - 1e-11, 1.0));
  EXPECT_FALSE(reached(1e300, ClockState{}.horizon_time)) << "an infinite horizon is never reached";
}
