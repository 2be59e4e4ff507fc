// The cpu backend's pool (core/cpu/pool.hpp) under for_each and the reductions: every point
// runs once for any thread count and box shape; sums give the same bits with 1 and 4 threads;
// a pass whose workers never start (held, as the scheduler holds descheduled threads on a busy
// machine) completes on the calling thread instead of waiting for them; workers do take
// chunks when they are free; passes nested in a pass, and passes from two threads at once, run.
// cumsum keeps its chunk boundaries (one chunk a thread) on the pool: the same float bits as a
// serial emulation of them; sorts, scans and line sorts give the same results with held workers.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <thread>
#include <tuple>
#include <vector>

#include "core/cpu/for_each.hpp"
#include "core/cpu/reduce.hpp"
#include "core/kernels/for_each_reduce.hpp"
#include "core/kernels/scan.hpp"
#include "core/kernels/sort.hpp"
#include "core/array/view.hpp"

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

namespace {
/// cumsum's cpu algorithm on the host: `chunks` equal chunks, each summed, then each run from
/// the sum of the chunks before it (float sums: the boundaries decide the bits).
std::vector<float> chunked_cumsum(const std::vector<float>& x, index_t chunks) {
  const index_t n = index_t(x.size());
  std::vector<float> offset(static_cast<std::size_t>(chunks) + 1, 0.0f), out(x.size());
  for (index_t c = 0; c < chunks; ++c) {
    float s = 0;
    for (index_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i) s += x[i];
    offset[c + 1] = offset[c] + s;
  }
  for (index_t c = 0; c < chunks; ++c) {
    float s = offset[c];
    for (index_t i = n * c / chunks; i < n * (c + 1) / chunks; ++i) out[i] = s += x[i];
  }
  return out;
}
std::vector<float> wiggles(index_t n) {
  std::vector<float> x(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) x[i] = float(std::sin(0.37 * double(i))) * 3.0f + 1e-3f * float(i % 11);
  return x;
}
}  // namespace

TEST(CpuPool, CumsumKeepsOneChunkAThread) {
  Context ctx = Context::create("cpu");
  for (int threads : {1, 2, 3}) {
    Threads t(threads);
    for (index_t n : {index_t(1), index_t(65535), index_t(65536), index_t(100003), (index_t(1) << 20) + 3}) {
      const auto x = wiggles(n);
      const auto got = cumsum(Array<float, 1>::from_host(ctx, extents(n), x)).to_host();
      const auto want = chunked_cumsum(x, n < 65536 ? 1 : threads);
      ASSERT_EQ(got, want) << "threads " << threads << " n " << n;
      if (threads == 3 && n > 65536) {  // (two chunks give the serial sum's bits: the second starts from the first's total)
        ASSERT_NE(got, chunked_cumsum(x, 1)) << "the test cannot tell the boundaries apart";
        ASSERT_NE(got, chunked_cumsum(x, 4)) << "the test cannot tell the boundaries apart";
      }
    }
  }
}

TEST(CpuPool, SortsAndScansCompleteWithWorkersHeld) {
  Threads t(2);
  Context ctx = Context::create("cpu");
  const index_t n = 200003;
  const auto hx = wiggles(n);
  auto x = Array<float, 1>::from_host(ctx, extents(n), hx);
  auto m = Array<float, 2>::from_host(ctx, extents(401, 497), std::vector<float>(hx.begin(), hx.begin() + 401 * 497));
  auto run = [&] {
    return std::make_tuple(sort(x).to_host(), argsort(x).to_host(), cumsum(x).to_host(), sort(m, 0).to_host(), argsort(m, 1).to_host(),
                           cumsum(m, 0).to_host(), cumsum(m, 1).to_host());
  };
  const auto free_run = run();
  cpu::testing::hold_workers(true);
  const index_t before = cpu::testing::chunks_run_by_workers();
  const auto held_run = run();
  const index_t after = cpu::testing::chunks_run_by_workers();
  cpu::testing::hold_workers(false);
  EXPECT_EQ(after, before);
  EXPECT_TRUE(free_run == held_run);
  auto sorted = hx;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::get<0>(free_run), sorted);
}
