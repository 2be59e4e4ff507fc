// The 3D transform solver: exact (the residual b - A x at rounding, a known discrete solution
// recovered) for every per-axis side combination (periodic, Neumann, Dirichlet, mixed), on
// non-cubic grids with anisotropic spacing, in both precisions; second order against a
// continuous solution; refused with a reason when a dimension is periodic on one side only.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "solvers/transform_poisson.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using namespace sim::solvers;

namespace {

template <class B>
class TransformPoisson3d : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(TransformPoisson3d);

using P = PressureSide;

/// The five per-axis side pairs.
const P kPairs[5][2] = {{P::periodic, P::periodic}, {P::neumann, P::neumann}, {P::dirichlet, P::dirichlet},
                        {P::neumann, P::dirichlet}, {P::dirichlet, P::neumann}};

PoissonBox3 make_box(index_t nx, index_t ny, index_t nz, int px, int py, int pz) {
  PoissonBox3 b;
  const index_t n[3] = {nx, ny, nz};
  const int pair[3] = {px, py, pz};
  const double length[3] = {1.0, 2.0, 0.7};
  for (int d = 0; d < 3; ++d) {
    b.n[d] = n[d];
    const double h = length[d] / double(n[d]);
    b.inv_h2[d] = 1 / (h * h);
    b.sides[2 * d] = kPairs[pair[d]][0], b.sides[2 * d + 1] = kPairs[pair[d]][1];
  }
  return b;
}

/// A smooth, non-trivial field on the box's cells, row-major (mean removed when asked).
std::vector<double> smooth_field(const PoissonBox3& b, bool mean_free) {
  std::vector<double> v(std::size_t(b.n[0] * b.n[1] * b.n[2]));
  double mean = 0;
  for (index_t i = 0; i < b.n[0]; ++i)
    for (index_t j = 0; j < b.n[1]; ++j)
      for (index_t k = 0; k < b.n[2]; ++k) {
        const double x = (i + 0.5) / double(b.n[0]), y = (j + 0.5) / double(b.n[1]), z = (k + 0.5) / double(b.n[2]);
        const double f = std::sin(2 * M_PI * x) * std::cos(4 * M_PI * y) * std::cos(2 * M_PI * z) + 0.3 * std::cos(2 * M_PI * y) +
                         x * y - 0.5 * z * z * x + 0.1 * z;
        v[std::size_t((i * b.n[1] + j) * b.n[2] + k)] = f;
        mean += f;
      }
  if (mean_free)
    for (double& a : v) a -= mean / double(v.size());
  return v;
}

template <class T>
Array<T, 3> on_device(const Context& ctx, const PoissonBox3& b, const std::vector<double>& host) {
  return Array<T, 3>::from_host(ctx, extents(b.n[0], b.n[1], b.n[2]), std::vector<T>(host.begin(), host.end()));
}

template <class T>
double max_abs(const Array<T, 3>& a) {
  double m = 0;
  for (T v : a.to_host()) m = std::max(m, std::abs(double(v)));
  return m;
}

/// Solves A x = A x_e on box in precision T; returns (max residual / max b, max |x - x_e|).
template <class T>
std::pair<double, double> solve_known(const Context& ctx, const PoissonBox3& box) {
  const std::vector<double> xe = smooth_field(box, box.singular());
  const Array<T, 3> exact = on_device<T>(ctx, box, xe);
  Array<T, 3> b(ctx, exact.shape()), x(ctx, exact.shape()), r(ctx, exact.shape());
  TransformPoisson3<T> solver(ctx, box);
  const Poisson7<T> a = solver.stencil();
  for_each(ctx, "test::apply_3d", b.box(), Poisson7Apply<T>{a, exact.view(), b.view()});
  solver.solve(b.view(), x.view());
  for_each(ctx, "test::apply_3d", r.box(), Poisson7Apply<T>{a, x.view(), r.view()});
  const std::vector<T> hb = b.to_host(), hr = r.to_host(), hx = x.to_host();
  double rmax = 0, bmax = 0, emax = 0, mean = 0;
  for (std::size_t q = 0; q < hb.size(); ++q) {
    rmax = std::max(rmax, std::abs(double(hr[q]) - double(hb[q])));
    bmax = std::max(bmax, std::abs(double(hb[q])));
    mean += double(hx[q]);
  }
  mean /= double(hx.size());
  for (std::size_t q = 0; q < hx.size(); ++q) emax = std::max(emax, std::abs(double(hx[q]) - xe[q]));
  if (box.singular()) {
    EXPECT_LT(std::abs(mean), sizeof(T) == 8 ? 1e-10 : 1e-5) << "the null mode is dropped: mean zero";
  }
  return {rmax / bmax, emax};
}

TYPED_TEST(TransformPoisson3d, ExactForEverySideCombination) {
  for (int px = 0; px < 5; ++px)
    for (int py = 0; py < 5; ++py)
      for (int pz = 0; pz < 5; ++pz) {
        const PoissonBox3 box = make_box(6, 5, 8, px, py, pz);
        const auto [residual, error] = solve_known<double>(this->ctx, box);
        const TransformPoisson3<double> solver(this->ctx, box);
        const std::string what = solver.description();
        EXPECT_EQ(solver.fused() != nullptr, px == 0 && py == 0 && pz == 0) << what;  // periodic all round: one 3D FFT
        EXPECT_LT(residual, 1e-12) << what;
        EXPECT_LT(error, 1e-10) << what;
      }
}

TYPED_TEST(TransformPoisson3d, ExactOnLargerAndFlatGridsInBothPrecisions) {
  for (const auto& n : {std::array<index_t, 3>{32, 24, 16}, std::array<index_t, 3>{1, 7, 9}, std::array<index_t, 3>{17, 1, 12}}) {
    const PoissonBox3 walls = make_box(n[0], n[1], n[2], 1, 1, 1), periodic = make_box(n[0], n[1], n[2], 0, 0, 0);
    const PoissonBox3 channel = make_box(n[0], n[1], n[2], 3, 2, 0);
    for (const PoissonBox3& box : {walls, periodic, channel}) {
      const auto [r64, e64] = solve_known<double>(this->ctx, box);
      EXPECT_LT(r64, 1e-12);
      EXPECT_LT(e64, 1e-10);
      const auto [r32, e32] = solve_known<float>(this->ctx, box);
      EXPECT_LT(r32, 5e-5);
    }
  }
}

/// p = sin(pi x) cos(pi y) cos(2 pi z) on [0,1]^3: Dirichlet on x, Neumann on y, periodic on z;
/// -lap p = 6 pi^2 p. The error of the discrete solution falls as h^2.
double continuous_error(const Context& ctx, index_t n) {
  PoissonBox3 box;
  for (int d = 0; d < 3; ++d) box.n[d] = n, box.inv_h2[d] = double(n) * double(n);
  box.sides[0] = box.sides[1] = P::dirichlet, box.sides[2] = box.sides[3] = P::neumann;
  box.sides[4] = box.sides[5] = P::periodic;
  std::vector<double> f(std::size_t(n * n * n)), pe(f.size());
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      for (index_t k = 0; k < n; ++k) {
        const double x = (i + 0.5) / double(n), y = (j + 0.5) / double(n), z = (k + 0.5) / double(n);
        const std::size_t q = std::size_t((i * n + j) * n + k);
        pe[q] = std::sin(M_PI * x) * std::cos(M_PI * y) * std::cos(2 * M_PI * z);
        f[q] = 6 * M_PI * M_PI * pe[q];
      }
  Array<double, 3> b = on_device<double>(ctx, box, f), x(ctx, b.shape());
  TransformPoisson3<double>(ctx, box).solve(b.view(), x.view());
  double e = 0;
  const std::vector<double> hx = x.to_host();
  for (std::size_t q = 0; q < hx.size(); ++q) e = std::max(e, std::abs(hx[q] - pe[q]));
  return e;
}

TYPED_TEST(TransformPoisson3d, SecondOrderAgainstAContinuousSolution) {
  const double e16 = continuous_error(this->ctx, 16), e32 = continuous_error(this->ctx, 32);
  EXPECT_LT(e32, 0.02);
  const double order = std::log2(e16 / e32);
  EXPECT_GT(order, 1.9) << e16 << " " << e32;
  EXPECT_LT(order, 2.1) << e16 << " " << e32;
}

TYPED_TEST(TransformPoisson3d, RefusesADimensionPeriodicOnOneSide) {
  PoissonBox3 box = make_box(4, 4, 4, 1, 1, 1);
  box.sides[5] = P::periodic;
  EXPECT_NE(transform_unsupported(box).find("dimension z"), std::string::npos);
  EXPECT_THROW(TransformPoisson3<double>(this->ctx, box), Error);
}

}  // namespace
