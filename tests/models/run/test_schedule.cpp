// Schedules and the clock: which steps each schedule fires on, the end-time tolerance, and
// the stepper landing on run.end_time.
#include <gtest/gtest.h>

#include <vector>

#include "models/model.hpp"
#include "models/run/clock.hpp"
#include "models/run/schedule.hpp"

namespace sim::run {
namespace {

/// The steps (0..last, time = step * dt as a sum) at which s is due, telling it when it fired.
std::vector<std::int64_t> fired_steps(Schedule& s, std::int64_t last, double dt) {
  std::vector<std::int64_t> out;
  RunClock c;
  for (c.step = 0; c.step <= last; ++c.step) {
    if (s.due(c)) s.fired(c), out.push_back(c.step);
    c.time += dt;
  }
  return out;
}

TEST(Schedule, EveryStepsFiresOnMultiples) {
  EverySteps s(3);
  EXPECT_EQ(fired_steps(s, 10, 0.1), (std::vector<std::int64_t>{0, 3, 6, 9}));
}

TEST(Schedule, EveryTimeFiresWhenTheSumOfStepsReachesEachMultiple) {
  // t = 0.1 summed: 0.30000000000000004, 0.7999999999999999, 0.9999999999999999; the last
  // reaches 1.0 only within the tolerance
  EveryTime s(0.25, 0);
  EXPECT_EQ(fired_steps(s, 10, 0.1), (std::vector<std::int64_t>{0, 3, 5, 8, 10}));
  EXPECT_DOUBLE_EQ(s.next(), 1.25);
}

TEST(Schedule, EveryTimeResumesFromItsNextTime) {
  EveryTime s(0.25, 0.5);  // a checkpoint at t = 0.3 stored next = 0.5
  RunClock c{4, 0.4, 0.1};
  EXPECT_FALSE(s.due(c));
  c = {5, 0.5, 0.1};
  EXPECT_TRUE(s.due(c));
}

// A step that crosses a huge number of intervals, or an interval below the resolution of the
// time (1e-20 at t = 1: next + interval == next), spun forever in fired(); now it jumps.
TEST(Schedule, EveryTimeJumpsPastAStepThatCrossesManyIntervals) {
  EveryTime tiny(1e-20, 0);
  RunClock c{1, 1.0, 1.0};
  ASSERT_TRUE(tiny.due(c));
  tiny.fired(c);
  EXPECT_GT(tiny.next(), 1.0);
  EXPECT_FALSE(tiny.due(c));
  EveryTime crossed(1.0, 0);
  c = {1, 1e13, 1e13};  // dt = 1e13 against an interval of 1: 10^13 intervals in one step
  ASSERT_TRUE(crossed.due(c));
  crossed.fired(c);
  EXPECT_GT(crossed.next(), 1e13);
  EXPECT_LE(crossed.next(), 1e13 * (1 + 1e-11));  // just past it (times within 1e-12 of it count as reached)
  EXPECT_FALSE(crossed.due(c));
}

TEST(Schedule, EndTimeToleranceIsOnePartIn1e12) {
  EXPECT_TRUE(reached(1.0, 1.0));
  EXPECT_TRUE(reached(1.0 - 1e-13, 1.0));
  EXPECT_FALSE(reached(1.0 - 1e-11, 1.0));
  EXPECT_EQ(steps_to_reach(0.3, 0.1), 3);          // 0.3 / 0.1 = 2.9999999999999996
  EXPECT_EQ(steps_to_reach(1.0 + 1e-13, 0.1), 10);  // not 11 for a rounding error
  EXPECT_EQ(steps_to_reach(1.0 + 1e-9, 0.1), 11);
}

TEST(Schedule, WallMinutesFollowRankZerosClockAndRestartWhenFired) {
  double now = 1000;
  EveryWallMinutes s(1.0, Comm(), [&] { return now; });
  RunClock c;
  now = 1059;
  EXPECT_FALSE(s.due(c));
  now = 1060;
  EXPECT_TRUE(s.due(c));
  s.fired(c);
  now = 1100;
  EXPECT_FALSE(s.due(c));
  now = 1120;
  EXPECT_TRUE(s.due(c));
}

/// Due at one step; counts how often it was asked and told.
struct Probe : Schedule {
  std::int64_t at;
  int asked = 0, told = 0;
  explicit Probe(std::int64_t a) : at(a) {}
  bool due(const RunClock& c) override { return ++asked, c.step == at; }
  void fired(const RunClock&) override { ++told; }
};

TEST(Schedule, AnyOfAsksEveryPartAndTellsThemAll) {
  auto a = std::make_shared<Probe>(2), b = std::make_shared<Probe>(3);
  AnyOf any({a, b});
  EXPECT_EQ(fired_steps(any, 4, 1.0), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(a->asked, 5);  // no short circuit: a wall-time part's broadcast runs every time
  EXPECT_EQ(b->asked, 5);
  EXPECT_EQ(a->told, 2);
  EXPECT_EQ(b->told, 2);
}

TEST(Schedule, NeverIsNeverDue) {
  Never n;
  EXPECT_TRUE(fired_steps(n, 10, 1.0).empty());
}

/// Records the dt of each step.
struct DtModel : Model {
  std::vector<double> dts;
  double adaptive = 0;  // > 0: next_dt returns it
  std::vector<FieldRef> fields() override { return {}; }
  void initialize() override {}
  void step(double dt) override { dts.push_back(dt); }
  bool adaptive_dt() const override { return adaptive > 0; }
  double next_dt(double) override { return adaptive; }
  double cell_updates_per_step() const override { return 1; }
};

TEST(TimeStepper, FixedDtLandsExactlyOnEndTime) {
  DtModel m;
  const TimeStepper stepper(0.3, std::int64_t(steps_to_reach(1.0, 0.3)), 1.0, false, 0);
  RunClock c{0, 0, stepper.dt()};
  while (stepper.more(c)) stepper.step(m, c);
  EXPECT_EQ(c.step, 4);
  EXPECT_EQ(c.time, 1.0);  // exactly
  ASSERT_EQ(m.dts.size(), 4u);
  EXPECT_NEAR(m.dts[3], 0.1, 1e-15);
}

TEST(TimeStepper, AdaptiveDtStopsAtEndTime) {
  DtModel m;
  m.adaptive = 0.4;
  const TimeStepper stepper(0.4, 3, 1.0, true, 0.5);
  RunClock c{0, 0, stepper.dt()};
  while (stepper.more(c)) stepper.step(m, c);
  EXPECT_EQ(c.step, 3);
  EXPECT_EQ(c.time, 1.0);
  EXPECT_NEAR(m.dts.back(), 0.2, 1e-15);
}

TEST(TimeStepper, StepsWithoutEndTime) {
  DtModel m;
  const TimeStepper stepper(0.5, 7, 0, false, 0);
  RunClock c{0, 0, stepper.dt()};
  while (stepper.more(c)) stepper.step(m, c);
  EXPECT_EQ(c.step, 7);
  EXPECT_DOUBLE_EQ(c.time, 3.5);
}

}  // namespace
}  // namespace sim::run
