// The clock in device memory (core/device_clock.hpp) and the guarded replays it drives
// (record_while, core/graph.hpp): queued steps stop by themselves at the horizon or the end
// time, the last step lands exactly on the end time, and replays past the stop do nothing.
#include <gtest/gtest.h>

#include <vector>

#include "core/device_clock.hpp"
#include "core/expr.hpp"
#include "core/for_each.hpp"
#include "core/graph.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace {
/// A fixed dt choice.
struct FixedDt {
  double dt;
  SIM_INLINE double operator()() const { return dt; }
};

/// x(i) += 1: counts the steps that ran.
struct CountStep {
  View<double, 1> x;
  SIM_INLINE void operator()(index_t i) const { x(i) += 1.0; }
};

/// A clock-guarded step of dt: count, end (and begin the next).
Recorded clocked_step(const Context& ctx, DeviceClock& clock, double dt, View<double, 1> counter) {
  return record_while(ctx, clock.running(), [ctx, c = clock.state(), dt, counter] {
    for_each(ctx, "test::count_step", counter.box(), CountStep{counter});
    for_each(ctx, "test::end_step", Box<1>{{0}, {1}}, EndClockStep<FixedDt>{c, FixedDt{dt}});
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
  Recorded step = clocked_step(ctx, clock, 0.3, n.view());
  ClockState s;
  s.end_time = 1.0, s.horizon_time = 0.5;
  start(ctx, clock, s, 0.3);
  for (int k = 0; k < 10; ++k) step.replay();  // 0.3, 0.6: the horizon is reached at step 2
  ClockState now = clock.read();
  EXPECT_EQ(now.step, 2);
  EXPECT_EQ(now.time, 0.3 + 0.3);
  EXPECT_EQ(now.running, 0);
  EXPECT_EQ(now.dt, 0.3) << "a stopped clock keeps the dt of the step that ran";
  EXPECT_EQ(sum(n), 2.0 * 64) << "replays past the horizon must do nothing";

  now.horizon_time = ClockState{}.horizon_time, now.running = 1;
  start(ctx, clock, now, 0.3);
  for (int k = 0; k < 10; ++k) step.replay();  // 0.9, then 0.1 to land on 1.0
  now = clock.read();
  EXPECT_EQ(now.step, 4);
  EXPECT_EQ(now.time, 1.0) << "the last step must land exactly on the end time";
  EXPECT_DOUBLE_EQ(now.dt, 1.0 - (0.3 + 0.3 + 0.3));
  EXPECT_EQ(now.dt_chosen, 0.3);
  EXPECT_EQ(now.last, 1);
  EXPECT_EQ(sum(n), 4.0 * 64);
}

TYPED_TEST(DeviceClockTest, StepsStopAtTheHorizonStep) {
  const Context ctx = this->ctx;
  auto n = Array<double, 1>::zeros(ctx, extents(5));
  DeviceClock clock(ctx);
  Recorded step = clocked_step(ctx, clock, 0.25, n.view());
  ClockState s;
  s.step = 10, s.time = 7.0, s.horizon_step = 13;  // no end time: no landing
  start(ctx, clock, s, 0.25);
  for (int k = 0; k < 6; ++k) step.replay();
  const ClockState now = clock.read();
  EXPECT_EQ(now.step, 13);
  EXPECT_EQ(now.time, 7.75);
  EXPECT_EQ(now.last, 0);
  EXPECT_EQ(sum(n), 3.0 * 5);
}

TYPED_TEST(DeviceClockTest, AStoppedClockRunsNothing) {
  const Context ctx = this->ctx;
  auto n = Array<double, 1>::zeros(ctx, extents(7));
  DeviceClock clock(ctx);
  Recorded step = clocked_step(ctx, clock, 0.5, n.view());
  ClockState s;
  s.running = 0;
  start(ctx, clock, s, 0.5);
  for (int k = 0; k < 3; ++k) step.replay();
  EXPECT_EQ(clock.read().step, 0);
  EXPECT_EQ(sum(n), 0.0);
}

TEST(DeviceClock, ReachedHasTheRunsTolerance) {
  EXPECT_TRUE(reached(1.0 - 1e-13, 1.0));
  EXPECT_FALSE(reached(1.0 - 1e-11, 1.0));
  EXPECT_FALSE(reached(1e300, ClockState{}.horizon_time)) << "an infinite horizon is never reached";
}
