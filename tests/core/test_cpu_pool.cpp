// The cpu backend's pool (core/cpu/pool.hpp) under for_each and the reductions: every point
// runs once for any thread count and box shape; sums give the same bits with 1 and 4 threads;
// a pass whose workers never start (held, as the scheduler holds descheduled threads on a busy
// machine) completes on the calling thread instead of waiting for them; workers do take
// chunks when they are free; passes nested in a pass, and passes from two threads at once, run.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "core/cpu/for_each.hpp"
#include "core/cpu/reduce.hpp"
#include "core/for_each_sum.hpp"
#include "core/view.hpp"

using namespace sim;

namespace {

/// Restores OpenMP's thread count after a test that changes it.
struct Threads {
  int before = omp_get_max_threads();
  explicit Threads(int n) { omp_set_num_threads(n); }
  ~Threads() { omp_set_num_threads(before); }
};

/// Counts the visits of every point of a box (each point is one element).
template <int Rank>
std::vector<int> visits(const Box<Rank>& b) {
  std::vector<int> count(std::size_t(b.size()), 0);
  int* c = count.data();
  auto at = [&](const index_t (&p)[Rank]) {
    index_t k = 0;
    for (int d = 0; d < Rank; ++d) k = k * b.extent(d) + (p[d] - b.lo[d]);
    return k;
  };
  if constexpr (Rank == 1) cpu::for_each(b, [&](index_t i) { ++c[at({i})]; });
  if constexpr (Rank == 2) cpu::for_each(b, [&](index_t i, index_t j) { ++c[at({i, j})]; });
  if constexpr (Rank == 3) cpu::for_each(b, [&](index_t i, index_t j, index_t k) { ++c[at({i, j, k})]; });
  return count;
}

template <class V>
bool all_once(const V& count) {
  for (int x : count)
    if (x != 1) return false;
  return true;
}

/// A value per point (a functor: a cuda build compiles ForEachSum's GPU kernel for it too).
struct ValueAt {
  SIM_INLINE double operator()(index_t i, index_t j) const {
    return 1.0 / double(3 + i * 7 + j * 13) - 1e-3 * double((i * 31 + j * 17) % 101);
  }
};

}  // namespace

TEST(CpuPool, EveryPointRunsOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 4}) {
    Threads t(threads);
    EXPECT_TRUE(all_once(visits(Box<1>{{-3}, {100003}}))) << threads;
    EXPECT_TRUE(all_once(visits(Box<1>{{0}, {7}}))) << threads;
    EXPECT_TRUE(all_once(visits(Box<2>{{-1, -1}, {130, 130}}))) << threads;
    EXPECT_TRUE(all_once(visits(Box<2>{{0, 0}, {3, 40000}}))) << threads;  // fewer rows than chunks
    EXPECT_TRUE(all_once(visits(Box<2>{{0, 0}, {128, 128}}))) << threads;  // at the threshold: the calling thread
    EXPECT_TRUE(all_once(visits(Box<3>{{0, 0, 0}, {5, 33, 130}}))) << threads;
    EXPECT_TRUE(all_once(visits(Box<3>{{-1, 2, -1}, {40, 41, 43}}))) << threads;
  }
}

TEST(CpuPool, SumsGiveTheSameBitsWithOneAndFourThreads) {
  const Box<2> box{{0, 0}, {517, 301}};  // several reduce chunks, rows of odd length
  const ValueAt map;
  auto plus = [](double a, double b) { return a + b; };
  double one = 0, four = 0, one_rows = 0, four_rows = 0;
  for (int threads : {1, 4}) {
    Threads t(threads);
    (threads == 1 ? one : four) = cpu::reduce(box, map, plus, 0.0);
    Context ctx = Context::create("cpu");
    ForEachSum sum(ctx);
    double out = 0;
    sum.queue("test::sum_rows", box, map, &out);
    (threads == 1 ? one_rows : four_rows) = out;
  }
  EXPECT_EQ(one, four);
  EXPECT_EQ(one_rows, four_rows);
  EXPECT_NEAR(one, one_rows, 1e-9 * std::abs(one));
}

TEST(CpuPool, APassCompletesOnTheCallingThreadWhenWorkersDoNotStart) {
  Threads t(2);
  const Box<2> box{{0, 0}, {400, 400}};
  visits(box);  // the workers exist and are idle
  const index_t before = cpu::testing::chunks_run_by_workers();
  cpu::testing::hold_workers(true);
  auto done = std::make_shared<std::promise<bool>>();
  std::future<bool> pass = done->get_future();
  std::thread([box, done] {  // detached: a caller stuck waiting must not hang the test too
    omp_set_num_threads(2);  // (this thread's own setting)
    done->set_value(all_once(visits(box)));
  }).detach();
  const bool finished = pass.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  cpu::testing::hold_workers(false);
  ASSERT_TRUE(finished) << "the caller waited for workers that never started";
  EXPECT_TRUE(pass.get());
  EXPECT_EQ(cpu::testing::chunks_run_by_workers(), before);
}

TEST(CpuPool, FreeWorkersTakeChunks) {
  Threads t(2);
  const index_t before = cpu::testing::chunks_run_by_workers();
  std::atomic<int> ran{0};
  cpu::parallel_chunks(20, [&](index_t) {  // 100 ms of chunks: time for a worker to join, even on a busy machine
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ++ran;
  });
  EXPECT_EQ(ran.load(), 20);
  EXPECT_GT(cpu::testing::chunks_run_by_workers(), before);
}

TEST(CpuPool, NestedAndConcurrentPassesRun) {
  Threads t(2);
  std::atomic<index_t> inner{0};
  cpu::for_each(Box<1>{{0}, {1 << 15}}, [&](index_t i) {
    if (i % 4096 == 0) cpu::for_each(Box<1>{{0}, {1 << 15}}, [&](index_t) { ++inner; });
  });
  EXPECT_EQ(inner.load(), index_t(8) << 15);
  bool a = false, b = false;
  std::thread other([&] {
    omp_set_num_threads(2);
    a = true;
    for (int r = 0; r < 50; ++r) a = a && all_once(visits(Box<2>{{0, 0}, {200, 300}}));
  });
  b = true;
  for (int r = 0; r < 50; ++r) b = b && all_once(visits(Box<2>{{0, 0}, {300, 200}}));
  other.join();
  EXPECT_TRUE(a);
  EXPECT_TRUE(b);
}
