// The NumPy pieces a newcomer reaches for, on every backend: concatenate / stack, the *_like
// constructors, isclose / allclose, out= for axis reductions, var / stddev with a named axis,
// pow with small whole exponents, A @ A.T as a symmetric product, fill_uniform with int bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/array/creation.hpp"
#include "core/array/expr.hpp"
#include "core/array/join.hpp"
#include "core/array/slicing.hpp"
#include "core/numerics/linalg.hpp"
#include "core/numerics/random.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class NumpyPiecesTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(NumpyPiecesTest);

TYPED_TEST(NumpyPiecesTest, ConcatenateAndStack) {
  auto a = Array<double, 2>::from_host(this->ctx, extents(2, 3), {1, 2, 3, 4, 5, 6});
  auto b = Array<double, 2>::from_host(this->ctx, extents(1, 3), {7, 8, 9});
  auto c = Array<double, 2>::from_host(this->ctx, extents(2, 1), {-1, -2});
  auto rows = concatenate(a, b);  // np.concatenate((a, b))
  EXPECT_EQ(rows.shape(), extents(3, 3));
  EXPECT_EQ(rows.to_host(), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  auto cols = concatenate(Axis{1}, a, c, a);  // np.concatenate((a, c, a), axis=1)
  EXPECT_EQ(cols.shape(), extents(2, 7));
  EXPECT_EQ(cols.to_host(), (std::vector<double>{1, 2, 3, -1, 1, 2, 3, 4, 5, 6, -2, 4, 5, 6}));
  EXPECT_THROW(concatenate(a, c), ShapeError);
  auto twice = a.clone();
  twice *= 2;
  auto s0 = stack(a, twice);  // np.stack((a, 2 * a))
  EXPECT_EQ(s0.shape(), extents(2, 2, 3));
  EXPECT_EQ(s0.to_host(), (std::vector<double>{1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12}));
  auto u = Array<double, 1>::from_host(this->ctx, extents(3), {1, 2, 3});
  auto v = Array<double, 1>::from_host(this->ctx, extents(3), {4, 5, 6});
  auto s1 = stack(Axis{1}, u, v);  // np.stack((u, v), axis=1)
  EXPECT_EQ(s1.shape(), extents(3, 2));
  EXPECT_EQ(s1.to_host(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  auto s2 = stack(Axis{-1}, a, a);
  EXPECT_EQ(s2.shape(), extents(2, 3, 2));
  EXPECT_EQ(s2.to_host()[1 * 6 + 2 * 2 + 1], 6.0);
  EXPECT_THROW(stack(u, Array<double, 1>::zeros(this->ctx, extents(4))), ShapeError);
}

TYPED_TEST(NumpyPiecesTest, LikeConstructors) {
  auto a = Array<float, 2>::full(this->ctx, extents(4, 5), 3.0f);
  auto e = empty_like(a);
  auto z = zeros_like(a);
  auto f = full_like(a, 2.5f);
  EXPECT_EQ(e.shape(), a.shape());
  EXPECT_EQ(e.context(), a.context());
  EXPECT_EQ(sum(z), 0.0);
  EXPECT_EQ(sum(f), 2.5 * 20);
  EXPECT_EQ(a.zeros_like().shape(), a.shape());
}

TYPED_TEST(NumpyPiecesTest, IscloseAndAllclose) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto a = Array<double, 1>::from_host(this->ctx, extents(6), {1.0, 1e10, 1e-8, inf, nan, 1.0});
  auto b = Array<double, 1>::from_host(this->ctx, extents(6), {1.0 + 1e-6, 1.00001e10, 2e-8, inf, nan, 1.1});
  Array<bool, 1> m(this->ctx, a.shape());
  m = isclose(a, b);
  EXPECT_EQ(m.to_host(), (std::vector<bool>{true, true, true, true, false, false}));  // NumPy's answers
  EXPECT_FALSE(allclose(a, b));
  EXPECT_FALSE(allclose(a, a));  // NaN is close to nothing, itself included (equal_nan=False)
  EXPECT_TRUE(allclose(slice(a, Range{0, 4}), slice(b, Range{0, 4}), 1e-5, 1e-8, &this->ctx));
  auto ones = Array<double, 1>::full(this->ctx, extents(6), 1.0);
  EXPECT_TRUE(allclose(ones, ones + 1e-9));
  EXPECT_FALSE(allclose(ones, ones * 1.1));
  EXPECT_TRUE(allclose(ones, 1.0));  // against a scalar
}

TYPED_TEST(NumpyPiecesTest, AxisReductionsIntoOut) {
  auto M = Array<double, 2>::from_host(this->ctx, extents(2, 3), {1, 2, 3, 4, 5, 6});
  auto r = Array<double, 1>::zeros(this->ctx, extents(2));
  auto c = Array<double, 1>::zeros(this->ctx, extents(3));
  sum(M, 1, r);  // np.sum(M, 1, out=r)
  EXPECT_EQ(r.to_host(), (std::vector<double>{6, 15}));
  mean(M, 0, c);
  EXPECT_EQ(c.to_host(), (std::vector<double>{2.5, 3.5, 4.5}));
  amax(M * 2.0, 0, c);
  EXPECT_EQ(c.to_host(), (std::vector<double>{8, 10, 12}));
  amin(M, 1, r);
  EXPECT_EQ(r.to_host(), (std::vector<double>{1, 4}));
  EXPECT_THROW(sum(M, 0, r), ShapeError);  // out has the wrong shape
}

TYPED_TEST(NumpyPiecesTest, VarAndStddevTakeANamedAxisAndDdof) {
  auto M = Array<double, 2>::from_host(this->ctx, extents(2, 4), {1, 2, 3, 4, 2, 4, 6, 8});
  EXPECT_EQ(var(M, Axis{1}).to_host(), (std::vector<double>{1.25, 5.0}));              // np.var(M, axis=1)
  EXPECT_EQ(var(M, Axis{1}, 1.0).to_host(), (std::vector<double>{5.0 / 3, 20.0 / 3}));  // ddof=1
  EXPECT_NEAR(var(M, 1.0), 37.5 / 7, 1e-12);                                           // np.var(M, ddof=1)
  EXPECT_NEAR(stddev(M, Axis{0}, 1.0).to_host()[3], std::sqrt(8.0), 1e-12);
}

TYPED_TEST(NumpyPiecesTest, PowWithSmallWholeExponents) {
  std::vector<double> h = {-2.5, -1.0, 0.0, 0.5, 3.0, 1e3};
  auto x = Array<double, 1>::from_host(this->ctx, extents(6), h);
  Array<double, 1> y(this->ctx, x.shape());
  for (double p : {2.0, 3.0, 1.0, 0.0, -1.0, 0.5, 1.5, 4.0}) {
    y = pow(x, p);  // a run-time exponent
    const auto r = y.to_host();
    for (std::size_t i = 0; i < h.size(); ++i) {
      const double want = std::pow(h[i], p);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(r[i])) << h[i] << " ** " << p;
      else EXPECT_DOUBLE_EQ(r[i], want) << h[i] << " ** " << p;
    }
  }
  y = pow(x, 2);  // an int exponent
  EXPECT_EQ(y.to_host()[0], 6.25);
  auto f = Array<float, 1>::full(this->ctx, extents(5), 3.0f);
  Array<float, 1> g(this->ctx, f.shape());
  g = pow(f, 3);
  EXPECT_EQ(g.to_host()[4], 27.0f);
}

TYPED_TEST(NumpyPiecesTest, MatmulWithItsTransposeIsSymmetric) {
  for (auto [m, k] : {std::array<index_t, 2>{37, 19}, {64, 130}, {1, 5}}) {
    std::vector<double> h(m * k);
    for (index_t t = 0; t < m * k; ++t) h[t] = std::sin(0.37 * double(t)) + 0.1 * double(t % 5);
    auto A = Array<double, 2>::from_host(this->ctx, extents(m, k), h);
    auto G = matmul(A, transposed(A));  // A @ A.T
    auto H = matmul(transposed(A), A);  // A.T @ A
    ASSERT_EQ(G.shape(), extents(m, m));
    ASSERT_EQ(H.shape(), extents(k, k));
    const auto g = G.to_host(), hh = H.to_host();
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < m; ++j) {
        double want = 0;
        for (index_t t = 0; t < k; ++t) want += h[i * k + t] * h[j * k + t];
        ASSERT_NEAR(g[i * m + j], want, 1e-12 * (1 + std::abs(want))) << i << "," << j;
        ASSERT_EQ(g[i * m + j], g[j * m + i]);  // exactly symmetric
      }
    for (index_t i = 0; i < k; ++i)
      for (index_t j = 0; j < k; ++j) {
        double want = 0;
        for (index_t t = 0; t < m; ++t) want += h[t * k + i] * h[t * k + j];
        ASSERT_NEAR(hh[i * k + j], want, 1e-12 * (1 + std::abs(want))) << i << "," << j;
      }
  }
}

TYPED_TEST(NumpyPiecesTest, FillUniformTakesIntBounds) {
  auto x = Array<double, 1>(this->ctx, extents(10000));
  fill_uniform(x, -1, 1);
  EXPECT_GE(sim::min(x), -1.0);
  EXPECT_LE(sim::max(x), 1.0);
  EXPECT_LT(sim::min(x), -0.9);
}
