// The one conjugate-gradient solver (solvers/cg.hpp): it reaches the tolerance (checked on the
// host against the operator itself), solves vectors of two fields, takes a preconditioner,
// gives the same bits however the host looks at its state (after every iteration, only near
// the expected end, or replaying recorded iterations), and stops with a reason on a
// non-positive operator and at the precision's floor.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "solvers/cg.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using namespace sim::solvers;

namespace {

constexpr index_t nx = 33, ny = 17;

/// out = (d - s L) p on nx x ny cells, zero outside; d(i, j) = 1 + dvar * i / nx.
template <class T>
struct Helmholtz {
  View<const T, 2> p;
  View<T, 2> out;
  T s, dvar, sign;
  SIM_INLINE T at(index_t i, index_t j) const { return i < 0 || j < 0 || i >= nx || j >= ny ? T(0) : p(i, j); }
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T d = T(1) + dvar * T(i) / T(nx);
    out(i, j) = sign * ((d + 4 * s) * p(i, j) - s * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1)));
  }
};

/// z = r / diag(A) of Helmholtz<double>.
struct JacobiScaling {
  View<const double, 2> r;
  View<double, 2> z;
  double s, dvar;
  SIM_INLINE void operator()(index_t i, index_t j) const { z(i, j) = r(i, j) / (1 + dvar * double(i) / double(nx) + 4 * s); }
};

/// The same operator on the host, in double.
std::vector<double> apply_host(const std::vector<double>& p, double s, double dvar) {
  std::vector<double> out(p.size());
  auto at = [&](index_t i, index_t j) { return i < 0 || j < 0 || i >= nx || j >= ny ? 0.0 : p[std::size_t(i * ny + j)]; };
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j < ny; ++j) {
      const double d = 1 + dvar * double(i) / double(nx);
      out[std::size_t(i * ny + j)] = (d + 4 * s) * at(i, j) - s * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
    }
  return out;
}

/// ||b - A x|| / ||b|| on the host.
double host_residual(const std::vector<double>& x, const std::vector<double>& b, double s, double dvar) {
  const std::vector<double> ax = apply_host(x, s, dvar);
  double rr = 0, bb = 0;
  for (std::size_t k = 0; k < b.size(); ++k) rr += (b[k] - ax[k]) * (b[k] - ax[k]), bb += b[k] * b[k];
  return std::sqrt(rr / bb);
}

/// The interior cells of f, row-major, in double.
template <class T>
std::vector<double> interior(const Field<T, 2>& f) {
  std::vector<T> h(static_cast<std::size_t>(nx * ny));
  detail::copy_to_host<T, 2>(f.context(), f.view().sub(f.interior()), h.data());
  return std::vector<double>(h.begin(), h.end());
}

/// Sets the interior cells of f.
template <class T>
void set(Field<T, 2>& f, const std::vector<double>& values) {
  const std::vector<T> h(values.begin(), values.end());
  detail::copy_from_host<T, 2>(f.context(), h.data(), f.view().sub(f.interior()));
}

std::vector<double> rhs(int seed) {
  std::vector<double> b(std::size_t(nx * ny));
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j < ny; ++j)
      b[std::size_t(i * ny + j)] = std::sin(0.3 * double(i + seed)) * std::cos(0.7 * double(j)) + 0.01 * double(i * j % 7);
  return b;
}

Grid<2> make_grid() {
  const double len[2] = {1.0, 1.0};
  return Grid<2>::uniform(Extents<2>{{nx, ny}}, len, 1);
}

/// A solver with its own work fields.
template <class T, int N = 1>
struct Setup {
  Context ctx;
  Grid<2> grid = make_grid();
  std::vector<Field<T, 2>> fields;  // r, p, ap, z per component, then x, b per component
  ConjugateGradient<T, 2, N> cg;
  explicit Setup(const Context& c, bool preconditioned = false) : ctx(c) {
    fields.reserve(6 * N);
    for (int k = 0; k < 6 * N; ++k) fields.emplace_back(ctx, grid), fields.back().fill(T(0));
    cg = ConjugateGradient<T, 2, N>(ctx, grid.interior(), Comm(), vec(0), vec(1), vec(2),
                                    preconditioned ? vec(3) : typename ConjugateGradient<T, 2, N>::Vector{});
  }
  typename ConjugateGradient<T, 2, N>::Vector vec(int which) {
    typename ConjugateGradient<T, 2, N>::Vector v;
    for (int c = 0; c < N; ++c) v[std::size_t(c)] = &fields[std::size_t(which * N + c)];
    return v;
  }
  typename ConjugateGradient<T, 2, N>::ConstVector cvec(int which) {
    typename ConjugateGradient<T, 2, N>::ConstVector v;
    for (int c = 0; c < N; ++c) v[std::size_t(c)] = &fields[std::size_t(which * N + c)];
    return v;
  }
  Field<T, 2>& x(int c = 0) { return fields[std::size_t(4 * N + c)]; }
  Field<T, 2>& b(int c = 0) { return fields[std::size_t(5 * N + c)]; }
  /// The apply of Helmholtz<T> on every component.
  auto apply(double s, double dvar, double sign = 1) {
    const Context c = ctx;
    return [c, s, dvar, sign](const auto& p, const auto& out) {
      for (int k = 0; k < N; ++k)
        for_each(c, "test::helmholtz", Box<2>{{0, 0}, {nx, ny}},
                 Helmholtz<T>{p[std::size_t(k)]->view(), out[std::size_t(k)]->view(), T(s), T(dvar), T(sign)});
    };
  }
};

template <class B>
class Cg : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(Cg);

TYPED_TEST(Cg, ReachesTheToleranceOfTheOperatorItself) {
  Setup<double> t(this->ctx);
  const std::vector<double> b = rhs(0);
  set(t.b(), b);
  const CgResult res = t.cg.solve(t.apply(2.0, 0.0), nullptr, t.vec(4), t.cvec(5), 1e-10, 500);
  EXPECT_TRUE(res.converged);
  EXPECT_GT(res.iterations, 5);
  EXPECT_LE(res.residual, 1e-10);
  EXPECT_LE(host_residual(interior(t.x()), b, 2.0, 0.0), 1.5e-10);
}

TYPED_TEST(Cg, SolvesAVectorOfTwoFieldsAsOne) {
  Setup<double, 2> t(this->ctx);
  const std::vector<double> b0 = rhs(0), b1 = rhs(5);
  set(t.b(0), b0), set(t.b(1), b1);
  const CgResult res = t.cg.solve(t.apply(1.0, 3.0), nullptr, t.vec(4), t.cvec(5), 1e-11, 500);
  ASSERT_TRUE(res.converged);
  const std::vector<double> x0 = interior(t.x(0)), x1 = interior(t.x(1));
  // the joint residual meets the tolerance of the joint right-hand side
  const std::vector<double> a0 = apply_host(x0, 1.0, 3.0), a1 = apply_host(x1, 1.0, 3.0);
  double rr = 0, bb = 0;
  for (std::size_t k = 0; k < b0.size(); ++k)
    rr += (b0[k] - a0[k]) * (b0[k] - a0[k]) + (b1[k] - a1[k]) * (b1[k] - a1[k]), bb += b0[k] * b0[k] + b1[k] * b1[k];
  EXPECT_LE(std::sqrt(rr / bb), 1.5e-11);
  EXPECT_GT(host_residual(x0, b1, 1.0, 3.0), 1e-3);  // the components are not mixed up
}

TYPED_TEST(Cg, ADiagonalPreconditionerCutsTheIterations) {
  const double s = 0.5, dvar = 400.0;  // a diagonal that varies 400-fold: Jacobi scaling helps
  const std::vector<double> b = rhs(1);
  Setup<double> plain(this->ctx), pre(this->ctx, true);
  set(plain.b(), b), set(pre.b(), b);
  const CgResult r0 = plain.cg.solve(plain.apply(s, dvar), nullptr, plain.vec(4), plain.cvec(5), 1e-10, 1000);
  const Context ctx = this->ctx;
  auto jacobi = [ctx, s, dvar](const auto& r, const auto& z) {
    for_each(ctx, "test::jacobi", Box<2>{{0, 0}, {nx, ny}}, JacobiScaling{r[0]->view(), z[0]->view(), s, dvar});
  };
  const CgResult r1 = pre.cg.solve(pre.apply(s, dvar), jacobi, pre.vec(4), pre.cvec(5), 1e-10, 1000);
  ASSERT_TRUE(r0.converged);
  ASSERT_TRUE(r1.converged);
  EXPECT_LT(r1.iterations, r0.iterations);
  EXPECT_LE(host_residual(interior(pre.x()), b, s, dvar), 1.5e-10);
}

TYPED_TEST(Cg, TheSameBitsHoweverTheHostLooksAtTheState) {
  const std::vector<double> b = rhs(2);
  auto solve = [&](Setup<float>& t, int times) {
    CgResult res;
    for (int k = 0; k < times; ++k) {  // later solves queue the expected iterations without looking
      t.x().fill(0.0f);
      res = t.cg.solve(t.apply(3.0, 1.0), nullptr, t.vec(4), t.cvec(5), 1e-6, 500);
    }
    return std::make_pair(res, interior(t.x()));
  };
  Setup<float> once(this->ctx), thrice(this->ctx), recorded(this->ctx);
  set(once.b(), b), set(thrice.b(), b), set(recorded.b(), b);
  recorded.cg.set_recordable(true);
  const auto a = solve(once, 1), c = solve(thrice, 3), r = solve(recorded, 3);
  ASSERT_TRUE(a.first.converged);
  EXPECT_EQ(a.first.iterations, c.first.iterations);
  EXPECT_EQ(a.first.iterations, r.first.iterations);
  EXPECT_EQ(a.second, c.second);
  EXPECT_EQ(a.second, r.second);
  // a looser tolerance after a tighter one: the queued iterations past convergence change nothing
  thrice.x().fill(0.0f);
  const CgResult loose = thrice.cg.solve(thrice.apply(3.0, 1.0), nullptr, thrice.vec(4), thrice.cvec(5), 1e-2, 500);
  Setup<float> fresh(this->ctx);
  set(fresh.b(), b);
  const CgResult loose_fresh = fresh.cg.solve(fresh.apply(3.0, 1.0), nullptr, fresh.vec(4), fresh.cvec(5), 1e-2, 500);
  EXPECT_LT(loose.iterations, a.first.iterations);
  EXPECT_EQ(loose.iterations, loose_fresh.iterations);
  EXPECT_EQ(interior(thrice.x()), interior(fresh.x()));
}

TYPED_TEST(Cg, StopsOnANonPositiveOperator) {
  Setup<double> t(this->ctx);
  set(t.b(), rhs(3));
  const CgResult res = t.cg.solve(t.apply(1.0, 0.0, -1.0), nullptr, t.vec(4), t.cvec(5), 1e-10, 500);
  EXPECT_FALSE(res.converged);
  EXPECT_FALSE(res.stalled);
  EXPECT_EQ(res.iterations, 0);
}

TYPED_TEST(Cg, ReportsAStallAtThePrecisionFloor) {
  Setup<float> t(this->ctx);
  set(t.b(), rhs(4));
  const CgResult res = t.cg.solve(t.apply(50.0, 0.0), nullptr, t.vec(4), t.cvec(5), 1e-14, 5000);
  EXPECT_FALSE(res.converged);
  EXPECT_TRUE(res.stalled);
  EXPECT_GT(res.residual, 1e-9);    // the true residual, not the updated one
  EXPECT_LT(res.iterations, 5000);  // stopped by the floor, not by the cap
  std::printf("[ float32 CG below its floor: %d iterations, residual %.2e, stalled %d ]\n", res.iterations, res.residual,
              int(res.stalled));
}

TYPED_TEST(Cg, AZeroRightHandSideGivesZeroWhenAsked) {
  Setup<double> t(this->ctx);
  t.x().fill(1.0);  // a guess that is not the answer
  t.cg.set_zero_solution_for_zero_b(true);
  const CgResult res = t.cg.solve(t.apply(1.0, 0.0), nullptr, t.vec(4), t.cvec(5), 1e-10, 500);
  EXPECT_TRUE(res.converged);
  EXPECT_EQ(res.iterations, 0);
  for (double v : interior(t.x())) ASSERT_EQ(v, 0.0);
}

}  // namespace
