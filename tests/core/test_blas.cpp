// BLAS level 1 on every backend against host references.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/numerics/blas.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class BlasTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(BlasTest);

TYPED_TEST(BlasTest, AxpyScalDotNrm2) {
  for (index_t n : {index_t(1), index_t(257), index_t(100001)}) {
    std::vector<double> hx(n), hy(n);
    for (index_t i = 0; i < n; ++i) hx[i] = std::cos(0.1 * i), hy[i] = 1.0 / (1.0 + i);
    auto x = Array<double, 1>::from_host(this->ctx, extents(n), hx);
    auto y = Array<double, 1>::from_host(this->ctx, extents(n), hy);
    double d = 0, nx = 0;
    for (index_t i = 0; i < n; ++i) d += hx[i] * hy[i], nx += hx[i] * hx[i];
    EXPECT_NEAR(blas::dot(x, y), d, 1e-12 * (1 + std::fabs(d)));
    EXPECT_NEAR(blas::nrm2(x), std::sqrt(nx), 1e-12 * std::sqrt(nx));
    blas::axpy(2.5, x, y);
    auto h = y.to_host();
    for (index_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(h[i], 2.5 * hx[i] + hy[i]);
    blas::scal(-0.5, y);
    auto h2 = y.to_host();
    for (index_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(h2[i], -0.5 * h[i]);
  }
}

TYPED_TEST(BlasTest, FloatAnd2D) {
  auto x = Array<float, 2>::full(this->ctx, extents(30, 31), 0.5f);
  auto y = Array<float, 2>::full(this->ctx, extents(30, 31), 2.0f);
  EXPECT_FLOAT_EQ(blas::dot(x, y), 930.0f);
  EXPECT_FLOAT_EQ(blas::nrm2(y), std::sqrt(4.0f * 930));
  Array<float, 2> z(this->ctx, extents(31, 30));
  EXPECT_THROW(blas::axpy(1.0f, x, z), ShapeError);
}
