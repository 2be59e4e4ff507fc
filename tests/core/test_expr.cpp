// Fused expressions and reductions on every backend, against host-computed references.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class ExprTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ExprTest);

namespace {
std::vector<double> ramp(index_t n, double scale, double shift) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * double(i)) * scale + shift;  // not monotone, no zeros
  return v;
}
}  // namespace

TYPED_TEST(ExprTest, FusedExpressionMatchesHost) {
  const index_t n = 100003;  // odd, not a multiple of a block
  auto ha = ramp(n, 2.0, 0.5), hb = ramp(n, 1.5, -0.25);
  auto a = Array<double, 1>::from_host(this->ctx, extents(n), ha);
  auto b = Array<double, 1>::from_host(this->ctx, extents(n), hb);
  Array<double, 1> c(this->ctx, extents(n));
  c = a * 5 + sin(b);
  auto hc = c.to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_NEAR(hc[i], ha[i] * 5 + std::sin(hb[i]), 1e-14) << i;
}

TYPED_TEST(ExprTest, InPlaceAndCupyArticleExpression) {
  const index_t n = 4097;
  auto hx = ramp(n, 1.0, 0.0);
  auto x = Array<double, 1>::from_host(this->ctx, extents(n), hx);
  x = x * x + x;
  auto h1 = x.to_host();
  // the GPU may fuse x*x + x into one fma: allow rounding relative to the operands
  for (index_t i = 0; i < n; ++i) ASSERT_NEAR(h1[i], hx[i] * hx[i] + hx[i], 4e-16 * (hx[i] * hx[i] + std::fabs(hx[i])));
  x.copy_from_host(hx);
  x = ((x * 5) * (x * 5)) * 2;  // x *= 5; x *= x; x += x
  auto h2 = x.to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_NEAR(h2[i], (hx[i] * 5) * (hx[i] * 5) * 2, 4e-16 * h2[i]);
}

TYPED_TEST(ExprTest, EveryMathFunction) {
  const index_t n = 513;
  std::vector<float> hp(n), hq(n);
  for (index_t i = 0; i < n; ++i) hp[i] = 0.1f + 0.01f * float(i), hq[i] = std::cos(0.3f * float(i));
  auto p = Array<float, 1>::from_host(this->ctx, extents(n), hp);
  auto q = Array<float, 1>::from_host(this->ctx, extents(n), hq);
  Array<float, 1> r(this->ctx, extents(n));
  auto check = [&](auto expected, const char* what) {
    auto hr = r.to_host();
    for (index_t i = 0; i < n; ++i) ASSERT_NEAR(hr[i], expected(i), 2e-5f * (1 + std::fabs(expected(i)))) << what << " " << i;
  };
  r = cos(p); check([&](index_t i) { return std::cos(hp[i]); }, "cos");
  r = exp(q); check([&](index_t i) { return std::exp(hq[i]); }, "exp");
  r = log(p); check([&](index_t i) { return std::log(hp[i]); }, "log");
  r = sqrt(p); check([&](index_t i) { return std::sqrt(hp[i]); }, "sqrt");
  r = abs(q); check([&](index_t i) { return std::fabs(hq[i]); }, "abs");
  r = pow(p, 1.5f); check([&](index_t i) { return std::pow(hp[i], 1.5f); }, "pow");
  r = min(p, q); check([&](index_t i) { return std::min(hp[i], hq[i]); }, "min");
  r = max(p, 0.5f); check([&](index_t i) { return std::max(hp[i], 0.5f); }, "max");
  r = where(q > 0, p, -p); check([&](index_t i) { return hq[i] > 0 ? hp[i] : -hp[i]; }, "where");
  r = -(p - q) / 2; check([&](index_t i) { return -(hp[i] - hq[i]) / 2; }, "negate/divide");
}

TYPED_TEST(ExprTest, ScalarsKeepFloatPrecision) {
  // x * 0.1 on a float array computes in float, exactly as float arithmetic on the host.
  std::vector<float> hx = {1.f, 3.f, 7.f, 1e-3f};
  auto x = Array<float, 1>::from_host(this->ctx, extents(4), hx);
  Array<float, 1> y(this->ctx, extents(4));
  y = x * 0.1;
  auto hy = y.to_host();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(hy[i], hx[i] * 0.1f);
}

TYPED_TEST(ExprTest, MultiDimensionalAndStridedOperands) {
  Array<double, 2> a(this->ctx, extents(33, 65)), b(this->ctx, extents(33, 65));
  std::vector<double> ha(33 * 65);
  std::iota(ha.begin(), ha.end(), 0.0);
  a.copy_from_host(ha);
  b = a * 2 - 1;
  auto hb = b.to_host();
  for (std::size_t t = 0; t < ha.size(); ++t) ASSERT_EQ(hb[t], ha[t] * 2 - 1);
  // strided sub-views as operands and destination
  Box<2> inner{{1, 1}, {32, 64}};
  Array<double, 2> c = Array<double, 2>::zeros(this->ctx, extents(33, 65));
  assign(this->ctx, c.view().sub(inner), a.view().sub(inner) + 0.5);
  auto hc = c.to_host();
  for (index_t i = 0; i < 33; ++i)
    for (index_t j = 0; j < 65; ++j) {
      bool in = i >= 1 && i < 32 && j >= 1 && j < 64;
      ASSERT_EQ(hc[i * 65 + j], in ? ha[i * 65 + j] + 0.5 : 0.0);
    }
  EXPECT_EQ(sum(this->ctx, a.view().sub(inner)), [&] {
    double s = 0;
    for (index_t i = 1; i < 32; ++i)
      for (index_t j = 1; j < 64; ++j) s += ha[i * 65 + j];
    return s;
  }());
}

TYPED_TEST(ExprTest, ShapeAndContextErrors) {
  Array<double, 1> a(this->ctx, extents(10)), b(this->ctx, extents(11));
  EXPECT_THROW(a = a + b, ShapeError);
  EXPECT_THROW(sum(a * b), ShapeError);
  auto other = Context::create("cpu");
  Array<double, 1> c(other, extents(10));
  if (this->ctx != other) {  // braces: gtest's macro is an if/else
    EXPECT_THROW(a = a + c, BackendError);
  }
}

TYPED_TEST(ExprTest, ReductionsMatchHost) {
  for (index_t n : {index_t(1), index_t(7), index_t(1000), index_t(1 << 20) + 3}) {
    auto h = ramp(n, 3.0, 0.1);
    auto x = Array<double, 1>::from_host(this->ctx, extents(n), h);
    double s = 0, s2 = 0, mx = -1e300, mn = 1e300, mabs = 0;
    std::int64_t pos = 0;
    for (double v : h) s += v, s2 += v * v, mx = std::max(mx, v), mn = std::min(mn, v), mabs = std::max(mabs, std::fabs(v)), pos += v > 0;
    EXPECT_NEAR(sum(x), s, 1e-12 * double(n)) << n;
    EXPECT_EQ(max(x), mx);
    EXPECT_EQ(min(x), mn);
    EXPECT_EQ(norm_max(x), mabs);
    EXPECT_EQ(count(x > 0), pos);
    EXPECT_NEAR(norm2(x), std::sqrt(s2), 1e-12 * std::sqrt(s2));
    EXPECT_NEAR(dot(x, x), s2, 1e-12 * s2);
    EXPECT_NEAR(std::sqrt(sum(x * x)), std::sqrt(s2), 1e-12 * std::sqrt(s2));
  }
  Array<std::int32_t, 3> k = Array<std::int32_t, 3>::full(this->ctx, extents(3, 4, 5), -2);
  EXPECT_EQ(sum(k), -120);
  EXPECT_EQ(count(k), 60);
  Array<double, 1> empty(this->ctx, extents(0));
  EXPECT_EQ(sum(empty), 0.0);
  EXPECT_EQ(count(empty), 0);
}

TYPED_TEST(ExprTest, ReductionsAreBitReproducible) {
  Array<float, 1> x(this->ctx, extents(3000017));
  fill_normal(x);
  const double first = sum(x), first_norm = norm2(x);
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(sum(x), first);
    EXPECT_EQ(norm2(x), first_norm);
  }
}

TEST(ExprOnCpu, SumDoesNotDependOnThreadCount) {
  auto ctx = Context::create("cpu");
  Array<double, 1> x(ctx, extents(1000003));
  fill_uniform(x);
  const double all_threads = sum(x);
  int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const double one_thread = sum(x);
  omp_set_num_threads(before);
  EXPECT_EQ(all_threads, one_thread);
}

TEST(ExprGpuVsCpu, SameInputsAgreeToRounding) {
  SIM_REQUIRE_GPU();
  auto gpu = Context::create("cuda", ContextOptions{0, 99});
  auto cpu = Context::create("cpu", ContextOptions{0, 99});
  const index_t n = 2000001;
  Array<double, 1> xg(gpu, extents(n)), xc(cpu, extents(n)), yg(gpu, extents(n)), yc(cpu, extents(n));
  fill_uniform(xg), fill_uniform(xc);
  ASSERT_EQ(xg.to_host(), xc.to_host());
  yg = exp(xg) * 3 + xg * xg;
  yc = exp(xc) * 3 + xc * xc;
  auto hg = yg.to_host(), hc = yc.to_host();
  for (index_t i = 0; i < n; i += 997) ASSERT_NEAR(hg[i], hc[i], 2e-15 * std::fabs(hc[i])) << i;  // exp differs by an ulp between libdevice and glibc
  EXPECT_NEAR(sum(yg), sum(yc), 1e-12 * std::fabs(sum(yc)));
  EXPECT_EQ(max(yg), max(yc));
}
