// Reductions along an axis and statistics on every backend against host references: the
// sum(M, 0) that once returned the total, odd shapes, size 0 and 1, strided views, rank 3,
// expressions, NaN in argmax; the shapes of the GPU's vector-load kernels and their edges.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/cpu/reduce_kernels.hpp"
#include "core/array/expr.hpp"
#include "core/array/slicing.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class ReduceAxisTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ReduceAxisTest);

namespace {
std::vector<double> wavy(index_t n, double seed) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) v[i] = std::sin(seed + 0.37 * double(i)) * 3 + 0.1 * double(i % 7);
  return v;
}
}  // namespace

TYPED_TEST(ReduceAxisTest, SumAlongAxisIsNotTheTotal) {
  auto M = Array<double, 2>::from_host(this->ctx, extents(2, 3), {1, 2, 3, 4, 5, 6});
  auto c = sim::sum(M, 0);  // the column sums, as NumPy's M.sum(axis=0)
  static_assert(std::is_same<decltype(c), Array<double, 1>>::value, "sum(M, 0) is an array");
  EXPECT_EQ(c.to_host(), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(sim::sum(M, 1).to_host(), (std::vector<double>{6, 15}));
  EXPECT_EQ(sim::sum(M, -1).to_host(), (std::vector<double>{6, 15}));
  EXPECT_EQ(sim::sum(M), 21.0);  // the total is still sum(M)
  EXPECT_THROW(sim::sum(M, 2), ShapeError);
}

TYPED_TEST(ReduceAxisTest, AllReductionsOddShapesAgainstHost) {
  for (auto [r, c] : {std::array<index_t, 2>{1, 1}, {1, 2500}, {2500, 1}, {7, 3}, {33, 4097}, {3001, 5}, {65, 129}}) {
    auto h = wavy(r * c, 0.3 * r);
    auto M = Array<double, 2>::from_host(this->ctx, extents(r, c), h);
    for (int axis : {0, 1}) {
      const index_t outer = axis == 0 ? c : r, len = axis == 0 ? r : c;
      const index_t cols = c;  // (a lambda may not capture a structured binding in C++17)
      auto at = [&](index_t o, index_t m) { return axis == 0 ? h[m * cols + o] : h[o * cols + m]; };
      auto s = sim::sum(M, axis).to_host(), mn = amin(M, axis).to_host(), mx = amax(M, axis).to_host();
      auto me = mean(M, axis).to_host(), va = var(M, Axis{axis}).to_host(), sd = stddev(M, axis, 1.0).to_host();
      auto am = argmin(M, axis).to_host(), ax = argmax(M, axis).to_host();
      ASSERT_EQ(index_t(s.size()), outer);
      for (index_t o = 0; o < outer; ++o) {
        double ss = 0, lo = at(o, 0), hi = at(o, 0);
        index_t ilo = 0, ihi = 0;
        for (index_t m = 0; m < len; ++m) {
          ss += at(o, m);
          if (at(o, m) < lo) lo = at(o, m), ilo = m;
          if (at(o, m) > hi) hi = at(o, m), ihi = m;
        }
        const double mu = ss / len;
        double q = 0;
        for (index_t m = 0; m < len; ++m) q += (at(o, m) - mu) * (at(o, m) - mu);
        const std::string where = std::to_string(r) + "x" + std::to_string(c) + " axis " + std::to_string(axis) + " out " + std::to_string(o);
        ASSERT_NEAR(s[o], ss, 1e-11 * len) << where;
        ASSERT_EQ(mn[o], lo) << where;
        ASSERT_EQ(mx[o], hi) << where;
        ASSERT_EQ(am[o], ilo) << where;
        ASSERT_EQ(ax[o], ihi) << where;
        ASSERT_NEAR(me[o], mu, 1e-12 * (1 + std::fabs(mu))) << where;
        ASSERT_NEAR(va[o], q / len, 1e-11 * (1 + q / len)) << where;
        if (len > 1) {
          ASSERT_NEAR(sd[o], std::sqrt(q / (len - 1)), 1e-11) << where;
        }
      }
    }
  }
}

TYPED_TEST(ReduceAxisTest, FloatIntAndExpressionsAndViews) {
  const index_t r = 45, c = 70;
  std::vector<float> hf(r * c);
  std::vector<std::int32_t> hi(r * c);
  for (index_t i = 0; i < r * c; ++i) hf[i] = float(std::cos(0.1 * i)), hi[i] = std::int32_t((i * 37) % 101) - 50;
  auto F = Array<float, 2>::from_host(this->ctx, extents(r, c), hf);
  auto I = Array<std::int32_t, 2>::from_host(this->ctx, extents(r, c), hi);
  auto sq = sim::sum(F * F, 1);  // fused: one read of F
  static_assert(std::is_same<decltype(sq), Array<float, 1>>::value, "float sums stay float");
  auto si = sim::sum(I, 0);
  static_assert(std::is_same<decltype(si), Array<std::int64_t, 1>>::value, "integer sums are 64-bit");
  auto mi = mean(I, 0);
  static_assert(std::is_same<decltype(mi), Array<double, 1>>::value, "integer means are double");
  auto hsq = sq.to_host();
  auto hsi = si.to_host();
  for (index_t i = 0; i < r; ++i) {
    double s = 0;
    for (index_t j = 0; j < c; ++j) s += double(hf[i * c + j]) * hf[i * c + j];
    ASSERT_NEAR(hsq[i], s, 1e-4);
  }
  for (index_t j = 0; j < c; ++j) {
    std::int64_t s = 0;
    for (index_t i = 0; i < r; ++i) s += hi[i * c + j];
    ASSERT_EQ(hsi[j], s);
  }
  // a strided view (every other column of a block) along both axes; views need the context
  View<const float, 2> v = slice(F.view(), Range{3, 40}, Range{1, 69});
  v.shape.n[1] = 34, v.stride[1] = 2;
  auto v0 = sim::sum(this->ctx, v, 0).to_host(), v1 = sim::sum(this->ctx, v, 1).to_host();
  for (index_t j = 0; j < 34; ++j) {
    double s = 0;
    for (index_t i = 0; i < 37; ++i) s += hf[(3 + i) * c + 1 + 2 * j];
    ASSERT_NEAR(v0[j], s, 1e-4);
  }
  for (index_t i = 0; i < 37; ++i) {
    double s = 0;
    for (index_t j = 0; j < 34; ++j) s += hf[(3 + i) * c + 1 + 2 * j];
    ASSERT_NEAR(v1[i], s, 1e-4);
  }
}

// A long middle axis under several outer indices and column groups: on the GPU the axis is cut
// into chunks, and the last block of each group to finish combines them (a ticket per outer
// index and column group). Sums, maxima and argmax (a pair accumulator) against the host.
TYPED_TEST(ReduceAxisTest, LongMiddleAxisInChunksUnderSeveralOuterIndices) {
  const index_t a = 3, b = 2000, c = 70;
  auto h = wavy(a * b * c, 0.7);
  h[(1 * b + 1500) * c + 33] = 50, h[(1 * b + 1700) * c + 33] = 50;  // a tie: the first
  auto X = Array<double, 3>::from_host(this->ctx, extents(a, b, c), h);
  auto s = sim::sum(X, 1).to_host(), mx = amax(X, 1).to_host();
  auto am = argmax(X, 1).to_host();
  for (index_t i = 0; i < a; ++i)
    for (index_t k = 0; k < c; ++k) {
      double ref = 0, best = -1e300;
      std::int64_t arg = 0;
      for (index_t j = 0; j < b; ++j) {
        const double v = h[(i * b + j) * c + k];
        ref += v;
        if (v > best) best = v, arg = j;
      }
      ASSERT_NEAR(s[i * c + k], ref, 1e-9 * (1 + std::fabs(ref))) << i << " " << k;
      ASSERT_EQ(mx[i * c + k], best) << i << " " << k;
      ASSERT_EQ(am[i * c + k], arg) << i << " " << k;
    }
  EXPECT_EQ(am[1 * c + 33], 1500);
}

// The context's zeroed counters (the tickets of whole-array reductions and of column sums in
// chunks) are zero again once such reductions have run, and asking for more than it has throws.
TYPED_TEST(ReduceAxisTest, TicketCountersAreZeroAgainAfterReductions) {
  const Context& ctx = this->ctx;
  if (!ctx.is_cuda()) {
    EXPECT_THROW(ctx.zeroed_counters(1), BackendError);
    return;
  }
  const index_t have = std::max<index_t>(4096, 16 * index_t(ctx.multiprocessor_count()));
  unsigned* c = ctx.zeroed_counters(std::size_t(have));
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(ctx.zeroed_counters(1), c);
  auto h = wavy(4096 * 64, 0.2);
  auto m = Array<double, 2>::from_host(ctx, extents(4096, 64), h);
  const auto am = argmax(m);
  auto s = sim::sum(m, 0).to_host();
  EXPECT_EQ(am, std::max_element(h.begin(), h.end()) - h.begin());
  double ref = 0;
  for (index_t i = 0; i < 4096; ++i) ref += h[i * 64 + 5];
  EXPECT_NEAR(s[5], ref, 1e-9 * (1 + std::fabs(ref)));
  std::vector<unsigned> counters(static_cast<std::size_t>(have), 1u);
  View<const unsigned, 1> v{c, extents(have), {1}};
  sim::detail::copy_to_host(ctx, v, counters.data());
  EXPECT_EQ(std::count(counters.begin(), counters.end(), 0u), std::ptrdiff_t(have));
  EXPECT_THROW(ctx.zeroed_counters(std::size_t(have) + 1), Error);
}

#if SIM_TU_HAS_CUDA
// Two results pending at once on one host thread: the second does not take the thread's
// mapped slot from the first (it gets device memory), so each reads back its own value.
TYPED_TEST(ReduceAxisTest, TwoPendingHostResultsKeepTheirValues) {
  const Context& ctx = this->ctx;
  if (!ctx.is_cuda()) GTEST_SKIP() << "a cuda-only mechanism";
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const std::int64_t x = 41, y = 97;
  auto v = Array<double, 1>::from_host(ctx, extents(3), {1.0, 7.0, 2.0});
  {
    gpu::HostResult<std::int64_t> a(ctx);
    {
      gpu::HostResult<std::int64_t> b(ctx);
      EXPECT_NE(a.device(), b.device());
      ASSERT_EQ(cudaMemcpyAsync(a.device(), &x, sizeof x, cudaMemcpyHostToDevice, stream), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync(b.device(), &y, sizeof y, cudaMemcpyHostToDevice, stream), cudaSuccess);
      EXPECT_EQ(b.get(stream), y);
    }
    EXPECT_EQ(argmax(v), 1);  // a reduction while a holds the slot
    EXPECT_EQ(a.get(stream), x);
  }
  EXPECT_EQ(argmax(v), 1);  // and once it is free again
}
#endif

TYPED_TEST(ReduceAxisTest, Rank3EveryAxis) {
  const index_t a = 5, b = 6, c = 7;
  auto h = wavy(a * b * c, 1.0);
  auto X = Array<double, 3>::from_host(this->ctx, extents(a, b, c), h);
  const index_t n[3] = {a, b, c};
  for (int axis = 0; axis < 3; ++axis) {
    auto s = sim::sum(X, axis);
    auto m = argmax(X, axis);
    auto hs = s.to_host();
    auto hm = m.to_host();
    EXPECT_EQ(s.extent(0), n[axis == 0 ? 1 : 0]);
    EXPECT_EQ(s.extent(1), n[axis == 2 ? 1 : 2]);
    std::size_t q = 0;
    for (index_t i = 0; i < a; ++i)
      for (index_t j = 0; j < b; ++j)
        for (index_t k = 0; k < c; ++k) {
          index_t idx[3] = {i, j, k};
          if (idx[axis] != 0) continue;
          double ss = 0, best = -1e300;
          index_t arg = 0;
          for (index_t t = 0; t < n[axis]; ++t) {
            idx[axis] = t;
            const double v = h[(idx[0] * b + idx[1]) * c + idx[2]];
            ss += v;
            if (v > best) best = v, arg = t;
          }
          ASSERT_NEAR(hs[q], ss, 1e-12) << "axis " << axis;
          ASSERT_EQ(hm[q], arg) << "axis " << axis;
          ++q;
        }
    EXPECT_EQ(q, hs.size());
  }
}

TYPED_TEST(ReduceAxisTest, EmptyAxesAndArrays) {
  auto E = Array<double, 2>(this->ctx, extents(0, 4));
  EXPECT_EQ(sim::sum(E, 0).to_host(), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(sim::sum(E, 1).size(), 0);
  EXPECT_TRUE(std::isnan(mean(E, 0).to_host()[0]));
  EXPECT_THROW(amax(E, 0), ShapeError);
  EXPECT_THROW(argmax(E, 0), ShapeError);
  EXPECT_THROW(argmax(E), ShapeError);
  EXPECT_TRUE(std::isnan(mean(E)));
}

TYPED_TEST(ReduceAxisTest, WholeArrayStatistics) {
  const index_t n = 100003;
  std::vector<float> h(n);
  for (index_t i = 0; i < n; ++i) h[i] = 1000.0f + float(std::sin(0.01 * i));  // mean >> spread
  auto x = Array<float, 1>::from_host(this->ctx, extents(n), h);
  double s = 0;
  for (float v : h) s += v;
  const double mu = s / n;
  double q = 0;
  for (float v : h) q += (v - mu) * (v - mu);
  EXPECT_NEAR(mean(x), mu, 1e-9 * mu);
  EXPECT_NEAR(var(x), q / n, 1e-9 * (q / n));
  EXPECT_NEAR(stddev(x, 1.0), std::sqrt(q / (n - 1)), 1e-9);
  auto [m2, s2] = mean_std(x);
  EXPECT_NEAR(m2, mu, 1e-9 * mu);
  EXPECT_NEAR(s2, std::sqrt(q / n), 1e-9);
  // argmin/argmax: first of ties, NaN wins (NumPy), flat index in a matrix
  std::vector<double> t = {3, 9, 1, 9, 1, 2};
  auto T2 = Array<double, 2>::from_host(this->ctx, extents(2, 3), t);
  EXPECT_EQ(argmax(T2), 1);
  EXPECT_EQ(argmin(T2), 2);
  EXPECT_EQ(argmax(-T2), 2);  // an expression
  t[4] = std::numeric_limits<double>::quiet_NaN();
  T2.copy_from_host(t);
  EXPECT_EQ(argmax(T2), 4);
  EXPECT_EQ(argmin(T2), 4);
  EXPECT_EQ(argmax(T2, 1).to_host(), (std::vector<std::int64_t>{1, 1}));
  // a strided view's flat index counts in the view
  View<const double, 2> tv = T2.view();
  tv = slice(tv, Range{0, 2}, Range{0, 1});  // [[3], [9]]
  EXPECT_EQ(argmax(this->ctx, tv), 1);
  EXPECT_EQ(argmin(this->ctx, tv), 0);
}

// Shapes that take the GPU's vector-load kernels (rows of whole 16-byte vectors, long
// contiguous ranges) and their edges (a tail after the last vector, an unaligned view that
// must take the element kernel), against host loops; on the CPU the same answers.
TYPED_TEST(ReduceAxisTest, VectorLoadShapesAgainstHost) {
  // sum / mean / amax over axis 0 of float and double matrices whose rows are whole vectors
  for (auto [r, c] : {std::array<index_t, 2>{3000, 256}, {70, 8192}, {5, 4100}}) {
    auto h = wavy(r * c, 0.3);
    std::vector<float> hf(h.begin(), h.end());
    auto Md = Array<double, 2>::from_host(this->ctx, extents(r, c), h);
    auto Mf = Array<float, 2>::from_host(this->ctx, extents(r, c), hf);
    auto sd = sim::sum(Md, 0).to_host();
    auto sf = sim::sum(Mf, 0).to_host();
    auto xf = amax(Mf, 0).to_host(), mf = mean(Mf * 2.0f, 0).to_host();
    for (index_t j = 0; j < c; ++j) {
      double s = 0, sf_ref = 0;
      float mx = hf[j];
      for (index_t i = 0; i < r; ++i) s += h[i * c + j], sf_ref += double(hf[i * c + j]), mx = std::max(mx, hf[i * c + j]);
      ASSERT_NEAR(sd[j], s, 1e-9 * (1 + std::fabs(s))) << r << "x" << c << " column " << j;
      ASSERT_NEAR(sf[j], float(sf_ref), 1e-5f * (1 + std::fabs(float(sf_ref)))) << j;
      ASSERT_EQ(xf[j], mx) << j;
      ASSERT_NEAR(mf[j], float(2 * sf_ref / double(r)), 1e-5f * (1 + std::fabs(float(sf_ref / r)))) << j;
    }
  }
  // along the last axis: rows of 2048 and more read whole vectors
  for (auto [r, c] : {std::array<index_t, 2>{70, 8192}, {3, 2048}, {2, 2051}}) {
    auto h = wavy(r * c, 0.9);
    std::vector<float> hf(h.begin(), h.end());
    auto M = Array<float, 2>::from_host(this->ctx, extents(r, c), hf);
    auto s1 = sim::sum(M, 1).to_host(), x1 = amin(M, -1).to_host();
    for (index_t i = 0; i < r; ++i) {
      double ref = 0;
      float mn = hf[i * c];
      for (index_t j = 0; j < c; ++j) ref += hf[i * c + j], mn = std::min(mn, hf[i * c + j]);
      ASSERT_NEAR(s1[i], ref, 1e-4 * (1 + std::fabs(ref))) << r << "x" << c << " row " << i;
      ASSERT_EQ(x1[i], mn) << i;
    }
  }
  // a (rows, 1) slice of a 4-column matrix along axis 0: inner == 1 but not the last axis
  {
    const index_t r = 4096;
    auto h = wavy(r * 4, 0.4);
    auto M = Array<double, 2>::from_host(this->ctx, extents(r, 4), h);
    auto s0 = sim::sum(this->ctx, slice(M, Range{0, r}, Range{2, 3}), 0).to_host();
    double ref = 0;
    for (index_t i = 0; i < r; ++i) ref += h[i * 4 + 2];
    ASSERT_EQ(s0.size(), 1u);
    ASSERT_NEAR(s0[0], ref, 1e-9 * (1 + std::fabs(ref)));
  }
  // rank 3 along axes 0, 1 and 2 (inner positions span rows / lie in one row / the axis is the row)
  {
    auto h = wavy(3 * 2 * 4096, 0.2);
    std::vector<float> hf(h.begin(), h.end());
    auto X = Array<float, 3>::from_host(this->ctx, extents(3, 2, 4096), hf);
    auto s2 = sim::sum(X, 2).to_host();
    for (index_t q = 0; q < 6; ++q) {
      double ref = 0;
      for (index_t k = 0; k < 4096; ++k) ref += hf[q * 4096 + k];
      ASSERT_NEAR(s2[q], ref, 1e-4 * (1 + std::fabs(ref))) << q;
    }
  }
  {
    const index_t a = 40, b = 30, c = 64;
    auto h = wavy(a * b * c, 1.1);
    std::vector<float> hf(h.begin(), h.end());
    auto X = Array<float, 3>::from_host(this->ctx, extents(a, b, c), hf);
    auto s0 = sim::sum(X, 0).to_host(), s1 = sim::sum(X, 1).to_host();
    for (index_t j = 0; j < b; ++j)
      for (index_t k = 0; k < c; ++k) {
        double ref = 0;
        for (index_t i = 0; i < a; ++i) ref += hf[(i * b + j) * c + k];
        ASSERT_NEAR(s0[j * c + k], ref, 1e-4 * (1 + std::fabs(ref)));
      }
    for (index_t i = 0; i < a; ++i)
      for (index_t k = 0; k < c; ++k) {
        double ref = 0;
        for (index_t j = 0; j < b; ++j) ref += hf[(i * b + j) * c + k];
        ASSERT_NEAR(s1[i * c + k], ref, 1e-4 * (1 + std::fabs(ref)));
      }
  }
  // an unaligned view (columns 1..4096 of a 3000 x 4100 matrix): the element kernel, same sums
  {
    const index_t r = 300, c = 4100;
    auto h = wavy(r * c, 2.0);
    auto M = Array<double, 2>::from_host(this->ctx, extents(r, c), h);
    auto s = sim::sum(this->ctx, slice(M, Range{0, r}, Range{1, 4097}), 0).to_host();
    for (index_t j = 0; j < 4096; ++j) {
      double ref = 0;
      for (index_t i = 0; i < r; ++i) ref += h[i * c + j + 1];
      ASSERT_NEAR(s[j], ref, 1e-9 * (1 + std::fabs(ref))) << j;
    }
  }
}

TYPED_TEST(ReduceAxisTest, ArgmaxAndMomentsOverLongRangesAndTheirTails) {
  // n % 4 == 3: the extreme in the last, partial vector; then ties across vectors (the first
  // wins), a NaN (it wins), and a strided view (the element path)
  const index_t n = (index_t(1) << 20) + 3;
  std::vector<float> h(static_cast<std::size_t>(n));
  for (index_t t = 0; t < n; ++t) h[t] = float(std::sin(0.001 * double(t)));
  h[n - 1] = 5.0f, h[n - 2] = -5.0f;
  auto x = Array<float, 1>::from_host(this->ctx, extents(n), h);
  EXPECT_EQ(argmax(x), n - 1);
  EXPECT_EQ(argmin(x), n - 2);
  h[n - 1] = 0.5f, h[77] = 3.0f, h[4000] = 3.0f, h[n - 3] = 3.0f;
  x.copy_from_host(h);
  EXPECT_EQ(argmax(x), 77);
  EXPECT_EQ(argmax(x * -1.0f), n - 2);  // an expression: -(-5) is the largest
  View<const float, 1> odd = x.view();  // every second element from 1: strided
  odd.ptr += 1, odd.shape.n[0] = n / 2, odd.stride[0] = 2;
  std::int64_t best = 0;
  for (index_t i = 1; i < n / 2; ++i)
    if (h[2 * i + 1] > h[2 * best + 1]) best = i;
  EXPECT_EQ(argmax(this->ctx, odd), best);
  h[90001] = std::numeric_limits<float>::quiet_NaN();
  x.copy_from_host(h);
  EXPECT_EQ(argmax(x), 90001);
  EXPECT_EQ(argmin(x), 90001);
  // mean and standard deviation of a long double range against a host two-pass
  std::vector<double> hd(static_cast<std::size_t>(n));
  for (index_t t = 0; t < n; ++t) hd[t] = 1000.0 + std::cos(0.01 * double(t));
  auto d = Array<double, 1>::from_host(this->ctx, extents(n), hd);
  double m = 0, v = 0;
  for (double e : hd) m += e;
  m /= double(n);
  for (double e : hd) v += (e - m) * (e - m);
  auto [mu, sd] = mean_std(d);
  EXPECT_NEAR(mu, m, 1e-10);
  EXPECT_NEAR(sd, std::sqrt(v / double(n)), 1e-10);
}

// The cpu backend's compiled loops (core/cpu/reduce_kernels.cpp) for sum(M, 0), sum(M, 1),
// argmax and argmin of float and double arrays, in each of their versions (AVX-512, AVX2,
// baseline, as far as the processor has them), against host loops in the documented order:
// on the cpu the same bits (a column in row order in double; a row in 8 lanes, j % 8, combined
// as a tree), on a GPU within rounding. Odd shapes, size 0 and 1, views with a row stride, a
// view with a column stride (the generic path), NaN and infinities, ties, and inputs large
// enough to be split between threads.
namespace {
template <class T>
std::vector<T> spread(index_t n, double seed) {  // signs and magnitudes from 2^-11 to 2^11
  std::vector<T> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) v[i] = T(std::sin(1.7 * double(i) + seed) * std::exp2(double((i * 7) % 23) - 11));
  return v;
}
std::vector<cpu::VectorIsa> isas_to_test(const Context& ctx) {
  if (ctx.is_cuda()) return {cpu::vector_isa()};
  std::vector<cpu::VectorIsa> r;
  for (auto isa : {cpu::VectorIsa::baseline, cpu::VectorIsa::avx2, cpu::VectorIsa::avx512}) {
    const auto got = cpu::force_vector_isa(isa);
    if (r.empty() || r.back() != got) r.push_back(got);
  }
  return r;
}
struct WidestIsaAfter {  // puts the widest version back when a test ends
  ~WidestIsaAfter() { cpu::force_vector_isa(cpu::VectorIsa::avx512); }
};
template <class T>
bool same_value(T a, T b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}
// NumPy's argmax / argmin: the first NaN, else the first extreme
template <class T>
index_t first_extreme_ref(const std::vector<T>& h, bool max) {
  index_t best = 0;
  for (index_t i = 0; i < index_t(h.size()); ++i) {
    if (std::isnan(h[i])) return i;
    if (max ? h[i] > h[best] : h[i] < h[best]) best = i;
  }
  return best;
}
}  // namespace

template <class T>
void check_axis_sums(const Context& ctx) {
  WidestIsaAfter restore;
  const bool exact = !ctx.is_cuda();
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  for (auto isa : isas_to_test(ctx)) {
    cpu::force_vector_isa(isa);
    for (auto [r, c] : {std::array<index_t, 2>{0, 5}, {1, 1}, {1, 300}, {300, 1}, {2, 17}, {37, 131}, {67, 257},
                        {33, 4097}, {129, 1000}, {1000, 64}}) {
      auto h = spread<T>(r * c, 0.1 * double(r + c));
      if (r == 37) {  // NaN and infinities: column / row 5 NaN, 8 inf, 9 inf - inf
        h[5 * c + 7] = nan, h[9 * c + 8] = inf, h[10 * c + 9] = inf, h[11 * c + 9] = -inf;
      }
      auto M = Array<T, 2>::from_host(ctx, extents(r, c), h);
      // views: the whole matrix; rows 1..r-1, columns 3..c-2 (a row stride of c, an unaligned
      // start); every second column (a column stride: the generic path, the same order)
      struct Part {
        index_t i0, j0, rows, cols, step;
      };
      std::vector<Part> parts = {{0, 0, r, c, 1}};
      if (r >= 3 && c >= 6) parts.push_back({1, 3, r - 2, c - 5, 1}), parts.push_back({1, 1, r - 2, (c - 1) / 2, 2});
      for (const Part& p : parts) {
        View<const T, 2> v = M.view();
        v.ptr += p.i0 * c + p.j0, v.shape.n[0] = p.rows, v.shape.n[1] = p.cols, v.stride[1] = p.step;
        const index_t cols = c;  // (a lambda may not capture a structured binding in C++17)
        auto at = [&](index_t i, index_t j) { return h[(p.i0 + i) * cols + p.j0 + j * p.step]; };
        const std::string where = std::to_string(r) + "x" + std::to_string(c) + " part " + std::to_string(p.rows) + "x" +
                                  std::to_string(p.cols) + "/" + std::to_string(p.step) + " isa " + std::to_string(int(isa));
        auto s0 = sim::sum(ctx, v, 0).to_host();
        ASSERT_EQ(index_t(s0.size()), p.cols) << where;
        for (index_t j = 0; j < p.cols; ++j) {
          double s = 0, mag = 0;
          for (index_t i = 0; i < p.rows; ++i) s += double(at(i, j)), mag += std::fabs(double(at(i, j)));
          if (exact) {
            ASSERT_TRUE(same_value(s0[j], T(s))) << where << " column " << j << ": " << s0[j] << " vs " << T(s);
          } else if (std::isfinite(s)) {
            ASSERT_NEAR(double(s0[j]), s, 1e-6 * std::fabs(s) + 1e-12 * mag) << where << " column " << j;
          }
        }
        auto s1 = sim::sum(ctx, v, 1).to_host();
        ASSERT_EQ(index_t(s1.size()), p.rows) << where;
        for (index_t i = 0; i < p.rows; ++i) {
          double lane[8] = {}, plain = 0, mag = 0;
          for (index_t j = 0; j < p.cols; ++j) lane[j % 8] += double(at(i, j)), plain += double(at(i, j)), mag += std::fabs(double(at(i, j)));
          const double s = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
          if (exact) {
            ASSERT_TRUE(same_value(s1[i], T(s))) << where << " row " << i << ": " << s1[i] << " vs " << T(s);
          }
          if (std::isfinite(plain)) {
            ASSERT_NEAR(double(s1[i]), plain, 1e-6 * std::fabs(plain) + 1e-12 * mag) << where << " row " << i;
          }
        }
      }
    }
  }
}
TYPED_TEST(ReduceAxisTest, CompiledAxisSumsInTheirOrderEveryVersion) {
  check_axis_sums<float>(this->ctx);
  check_axis_sums<double>(this->ctx);
}

template <class T>
void check_first_extreme(const Context& ctx) {
  WidestIsaAfter restore;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  for (auto isa : isas_to_test(ctx)) {
    cpu::force_vector_isa(isa);
    for (index_t n : {index_t(1), index_t(2), index_t(31), index_t(32), index_t(33), index_t(4095), index_t(4096),
                      index_t(4097), index_t(70001), (index_t(1) << 18) + 5}) {
      const index_t p = n / 3, q = std::min(n - 1, p + 4096 + 7), last = n - 1;
      for (int kase = 0; kase < 9; ++kase) {
        auto h = spread<T>(n, 0.3 * double(kase));
        switch (kase) {
          case 0: h[p] = 5000, h[q] = 5000; break;     // a tie in a later block: the first
          case 1: std::fill(h.begin(), h.end(), T(2)); break;  // all equal: 0
          case 2: h[p] = 5000, h[q] = nan; break;       // a NaN after the extreme wins
          case 3: h[q] = nan, h[last] = nan; break;     // two NaNs: the first
          case 4: h[p] = inf, h[q] = -inf; break;       // infinities (the block's sum is NaN)
          case 5: h[last] = -5000, h[last > 0 ? last - 1 : 0] = 5000; break;  // in the tail
          case 6: h[0] = -inf, h[p] = inf, h[p > 0 ? p - 1 : 0] = -inf; break;
          case 7: std::fill(h.begin(), h.end(), -inf); break;  // all the identity of max: 0
          case 8: std::fill(h.begin(), h.end(), inf); break;   // and of min
        }
        auto x = Array<T, 1>::from_host(ctx, extents(n), h);
        const std::string where = "n " + std::to_string(n) + " case " + std::to_string(kase) + " isa " + std::to_string(int(isa));
        ASSERT_EQ(argmax(x), first_extreme_ref(h, true)) << where;
        ASSERT_EQ(argmin(x), first_extreme_ref(h, false)) << where;
        if (n % 3 == 0) {  // a contiguous matrix: the flat index
          auto m = Array<T, 2>::from_host(ctx, extents(3, n / 3), h);
          ASSERT_EQ(argmax(m), first_extreme_ref(h, true)) << where;
          ASSERT_EQ(argmin(m), first_extreme_ref(h, false)) << where;
        }
      }
    }
  }
}
TYPED_TEST(ReduceAxisTest, CompiledArgmaxFirstExtremeFirstNaNEveryVersion) {
  check_first_extreme<float>(this->ctx);
  check_first_extreme<double>(this->ctx);
}

// Long enough that each GPU thread of the flat argmax meets several vectors (one wave is about
// a million elements on an H100): extremes, ties and NaNs in later steps and in every lane.
template <class T>
void check_first_extreme_long(const Context& ctx) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const index_t n = (index_t(1) << 23) + 3, wave = index_t(1) << 20;
  for (int kase = 0; kase < 6; ++kase) {
    auto h = spread<T>(n, 0.1 * double(kase));
    const index_t p = 5 * wave + 4 * 12345 + 3, q = 7 * wave + 4 * 999 + 1;
    switch (kase) {
      case 0: h[p] = 5000, h[q] = 5000, h[n - 1] = -5000; break;  // a tie two steps apart: the first
      case 1: h[q] = 5000, h[p] = -5000; break;
      case 2: h[p] = 5000, h[q] = nan, h[n - 2] = nan; break;      // the first NaN, after the extreme
      case 3: h[n - 1] = 5000, h[n - 2] = -5000; break;           // in the tail (n % 4 == 3)
      case 4: std::fill(h.begin(), h.end(), -inf), h[q] = nan; break;
      case 5: std::fill(h.begin(), h.end(), T(1)), h[p] = inf, h[q] = -inf; break;
    }
    auto x = Array<T, 1>::from_host(ctx, extents(n), h);
    ASSERT_EQ(argmax(x), first_extreme_ref(h, true)) << "case " << kase;
    ASSERT_EQ(argmin(x), first_extreme_ref(h, false)) << "case " << kase;
    View<const T, 1> tail = x.view();  // from element 1: not 16-byte aligned, the one-value path
    tail.ptr += 1, tail.shape.n[0] = n - 1;
    const std::vector<T> rest(h.begin() + 1, h.end());
    ASSERT_EQ(argmax(ctx, tail), first_extreme_ref(rest, true)) << "case " << kase << ", from 1";
    ASSERT_EQ(argmin(ctx, tail), first_extreme_ref(rest, false)) << "case " << kase << ", from 1";
  }
}
TYPED_TEST(ReduceAxisTest, ArgmaxFirstExtremeOverManyStepsPerThread) {
  check_first_extreme_long<float>(this->ctx);
  check_first_extreme_long<double>(this->ctx);
}
