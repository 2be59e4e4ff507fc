// Random fills: statistics on every backend, and the same Philox stream bit for bit on
// the GPU (cuRAND) and the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "core/numerics/random/philox.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class RandomTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(RandomTest);

TYPED_TEST(RandomTest, RawWordsAreThePhiloxStream) {
  Array<std::uint32_t, 1> w(this->ctx, extents(4 * 1000 + 3));
  fill_bits(w);
  auto h = w.to_host();
  for (std::size_t e = 0; e < h.size(); ++e) {
    auto blk = rng::philox_block(1234, 0, e / 4);
    const std::uint32_t expect[4] = {blk.x, blk.y, blk.z, blk.w};
    ASSERT_EQ(h[e], expect[e % 4]) << e;
  }
  EXPECT_EQ(this->ctx.rng_offset(), 1001u);  // 1000.75 blocks, rounded up
}

// Each value rebuilt on the host, one Philox block at a time, by the documented recipe (the
// cpu fills take 16 blocks at a time in vector loops: this holds them to the scalar stream at
// a start that is not a multiple of 16 blocks and over a length with a tail).
template <class T>
void expect_scalar_stream(const Context& ctx, bool normal, T a, T b) {
  const index_t n = 2 * 16 * 37 + 3;
  const int per = normal || sizeof(T) == 8 ? 2 : 4;
  Array<T, 1> x(ctx, extents(n));
  ctx.set_rng_state(99, 5);  // block 5 first
  if (normal) fill_normal(x, a, b);
  else fill_uniform(x, a, T(a + b));
  const auto h = x.to_host();
  for (index_t e = 0; e < n; ++e) {
    const auto w = rng::philox_block(99, ctx.rng_stream(), 5 + std::uint64_t(e / per));
    const std::uint32_t words[4] = {w.x, w.y, w.z, w.w};
    const int k = int(e % per);
    T v;
    if (normal) {
      double z0, z1;
      rng::box_muller(rng::uniform_double(w.x, w.y), rng::uniform_double(w.z, w.w), z0, z1);
      v = T(k == 0 ? z0 : z1);
    } else if (per == 4) {
      v = T(rng::uniform_float(words[k]));
    } else {
      v = T(rng::uniform_double(words[2 * k], words[2 * k + 1]));
    }
    const T expect = b * v + a;  // two roundings: this file is compiled with -ffp-contract=off
    ASSERT_EQ(h[e], expect) << (normal ? "normal " : "uniform ") << sizeof(T) << "-byte element " << e;
  }
}

TYPED_TEST(RandomTest, FillsAreTheScalarStreamAtAnyStartAndLength) {
  expect_scalar_stream<float>(this->ctx, false, -1.0f, 4.0f);
  expect_scalar_stream<double>(this->ctx, false, -1.0, 4.0);
  expect_scalar_stream<float>(this->ctx, true, 2.0f, 0.5f);
  expect_scalar_stream<double>(this->ctx, true, 2.0, 0.5);
}

TYPED_TEST(RandomTest, UniformMomentsAndRange) {
  const index_t n = 1 << 20;
  Array<double, 1> x(this->ctx, extents(n));
  fill_uniform(x, -1.0, 3.0);
  EXPECT_GT(min(x), -1.0);
  EXPECT_LT(max(x), 3.0);
  const double mean = sum(x) / double(n);
  const double var = sum((x - mean) * (x - mean)) / double(n);
  EXPECT_NEAR(mean, 1.0, 5 * std::sqrt(16.0 / 12 / n));
  EXPECT_NEAR(var, 16.0 / 12, 0.01);
  Array<float, 2> f(this->ctx, extents(1000, 1001));
  fill_uniform(f);
  EXPECT_GT(min(f), 0.0f);
  EXPECT_LT(max(f), 1.0f);
  EXPECT_NEAR(sum(f) / f.size(), 0.5, 0.002);
}

TYPED_TEST(RandomTest, NormalMoments) {
  const index_t n = 1 << 20;
  Array<float, 1> x(this->ctx, extents(n));
  fill_normal(x, 2.0f, 0.5f);
  const double mean = sum(x) / double(n);
  const double var = sum((x - float(mean)) * (x - float(mean))) / double(n);
  EXPECT_NEAR(mean, 2.0, 5 * 0.5 / std::sqrt(double(n)));
  EXPECT_NEAR(var, 0.25, 0.003);
  EXPECT_NEAR(double(count(abs(x - 2.0f) < 0.5f)) / n, 0.6827, 0.003);  // one sigma
}

TYPED_TEST(RandomTest, SuccessiveFillsDifferAndStateRestores) {
  Array<double, 1> a(this->ctx, extents(1000)), b(this->ctx, extents(1000));
  const auto start = this->ctx.rng_offset();
  fill_uniform(a);
  fill_uniform(b);
  EXPECT_NE(a.to_host(), b.to_host());
  this->ctx.set_rng_state(this->ctx.rng_seed(), start);  // as a restart from a checkpoint would
  fill_uniform(b);
  EXPECT_EQ(a.to_host(), b.to_host());
}

TEST(RandomGpuVsCpu, SameSeedSameBits) {
  SIM_REQUIRE_GPU();
  auto gpu = Context::create("cuda", ContextOptions{0, 20261121});
  auto cpu = Context::create("cpu", ContextOptions{0, 20261121});
  const index_t n = 3 * 1000 * 1000 + 1;
  auto same = [&](auto make_and_fill) {
    auto g = make_and_fill(gpu);
    auto c = make_and_fill(cpu);
    auto hg = g.to_host(), hc = c.to_host();
    ASSERT_EQ(hg.size(), hc.size());
    for (std::size_t i = 0; i < hg.size(); ++i) ASSERT_EQ(hg[i], hc[i]) << i;  // bit for bit
  };
  same([&](const Context& c) { Array<std::uint32_t, 1> a(c, extents(n)); fill_bits(a); return a; });
  same([&](const Context& c) { Array<float, 1> a(c, extents(n)); fill_uniform(a, -2.f, 5.f); return a; });
  same([&](const Context& c) { Array<double, 1> a(c, extents(n)); fill_uniform(a); return a; });
  same([&](const Context& c) { Array<float, 2> a(c, extents(1001, 999)); fill_normal(a, 1.f, 3.f); return a; });
  same([&](const Context& c) { Array<double, 3> a(c, extents(101, 99, 37)); fill_normal(a); return a; });
}
