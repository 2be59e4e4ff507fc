// Recorded work (core/runtime/graph.hpp): a replay repeats the recorded kernels on every backend, the
// recording itself runs nothing, and work that waits for the device is refused with a reason.
#include <gtest/gtest.h>

#include <string>

#include "core/runtime/device_clock.hpp"
#include "core/array/expr.hpp"
#include "core/kernels/for_each.hpp"
#include "core/runtime/graph.hpp"
#include "core/kernels/reduce_async.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace {
struct AddOne {
  View<double, 1> x;
  SIM_INLINE void operator()(index_t i) const { x(i) += 1.0 + double(i); }
};
}  // namespace

template <class B>
class GraphTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(GraphTest);

TYPED_TEST(GraphTest, ReplayRepeatsTheRecordedWork) {
  auto x = Array<double, 1>::zeros(this->ctx, extents(1000));
  const Context ctx = this->ctx;
  View<double, 1> v = x.view();
  Recorded twice = record(ctx, [&] {
    for_each(ctx, "test::add_one", x.box(), AddOne{v});
    for_each(ctx, "test::add_one", x.box(), AddOne{v});
  });
  ASSERT_TRUE(twice.valid());
  EXPECT_EQ(sum(x), 0.0) << "recording ran the work";
  for (int r = 0; r < 3; ++r) twice.replay();
  const std::vector<double> h = x.to_host();
  for (index_t i = 0; i < 1000; ++i) ASSERT_EQ(h[std::size_t(i)], 6.0 * (1.0 + double(i))) << i;
}

TYPED_TEST(GraphTest, WaitingForTheDeviceIsRefused) {
  if (!this->ctx.is_cuda()) GTEST_SKIP() << "on the cpu backend a recording is the function itself: nothing to refuse";
  auto x = Array<double, 1>::full(this->ctx, extents(100), 2.0);
  const Context ctx = this->ctx;
  EXPECT_THROW(record(ctx, [&] { (void)sum(x); }), Error);
  EXPECT_EQ(sum(x), 200.0) << "the context must stay usable after a refused recording";
  DeviceClock clock(ctx);
  EXPECT_THROW(record_loop(ctx, clock.running(), [&](int, const LoopSignal&) { (void)sum(x); }), Error);
  EXPECT_EQ(sum(x), 200.0) << "the context must stay usable after a refused loop recording";
}

namespace {
struct Value {
  View<const double, 1> x;
  SIM_INLINE double operator()(index_t i) const { return x(i); }
};
}  // namespace

// An asynchronous reduction recorded with the work before it: each replay leaves the new
// maximum in host memory, read by one wait.
TYPED_TEST(GraphTest, AsyncReductionInsideARecording) {
  auto x = Array<double, 1>::zeros(this->ctx, extents(5000));
  const Context ctx = this->ctx;
  View<double, 1> v = x.view();
  AsyncReduction<double> top(ctx);
  top.queue("test::max", x.box(), Value{v}, ops::Maximum{}, -1e300);  // sizes the scratch space
  EXPECT_EQ(top.wait(), 0.0);
  Recorded step = record(ctx, [&] {
    for_each(ctx, "test::add_one", x.box(), AddOne{v});
    top.queue("test::max", x.box(), Value{v}, ops::Maximum{}, -1e300);
  });
  for (int r = 1; r <= 3; ++r) {
    step.replay();
    EXPECT_EQ(top.wait(), double(r) * 5000.0) << "replay " << r;
  }
}

// A recording that a message channel queued messages into marks them in flight at each
// replay, until the channel clears them (NCCL without its graph mixing support waits for the
// stream first); one without messages marks nothing. On the CPU a replay calls the function
// again: nothing stays in flight.
TYPED_TEST(GraphTest, ReplaysOfRecordedMessagesAreMarkedInFlight) {
  auto x = Array<double, 1>::zeros(this->ctx, extents(100));
  clear_replayed_messages();
  Recorded quiet = record(this->ctx, [&] { x += 1.0; });
  Recorded talking = record(this->ctx, [&] { x += 1.0, note_recorded_message(); });
  quiet.replay();
  EXPECT_FALSE(replayed_messages_in_flight());
  talking.replay();
  EXPECT_EQ(replayed_messages_in_flight(), this->ctx.is_cuda());
  this->ctx.synchronize();
  clear_replayed_messages();
  EXPECT_FALSE(replayed_messages_in_flight());
  quiet.replay();
  EXPECT_FALSE(replayed_messages_in_flight());
  EXPECT_DOUBLE_EQ(x.to_host()[0], 3.0);
}
