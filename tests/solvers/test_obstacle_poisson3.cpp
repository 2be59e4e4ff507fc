// The masked 7-point pressure operator of a 3D box with solid cells (solvers/obstacle_poisson3.hpp):
// its matrix, applied cell by cell on the device, equals a dense matrix built here from the
// definition (per-face links, solid identity rows, the side coefficients, the periodic wrap),
// it is symmetric, and the Jacobi-preconditioned CG solves it to the tolerance asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "solvers/obstacle_poisson3.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using namespace sim::solvers;

namespace obstacle_poisson3_test {

/// A small box with mixed sides: x periodic, y Neumann below and Dirichlet above, z Neumann,
/// unequal spacings, and a few solid cells (one of them on the periodic x side).
struct Problem {
  PoissonBox3 box;
  std::vector<double> fluid;
  index_t cells() const { return box.n[0] * box.n[1] * box.n[2]; }
  index_t index(index_t i, index_t j, index_t k) const { return (i * box.n[1] + j) * box.n[2] + k; }
};

inline Problem problem(bool dirichlet) {
  Problem p;
  p.box.n[0] = 4, p.box.n[1] = 3, p.box.n[2] = 5;
  p.box.inv_h2[0] = 1.0, p.box.inv_h2[1] = 4.0, p.box.inv_h2[2] = 2.25;
  const PressureSide y_hi = dirichlet ? PressureSide::dirichlet : PressureSide::neumann;
  const PressureSide sides[6] = {PressureSide::periodic, PressureSide::periodic, PressureSide::neumann, y_hi,
                                 PressureSide::neumann, PressureSide::neumann};
  for (int s = 0; s < 6; ++s) p.box.sides[s] = sides[s];
  p.fluid.assign(std::size_t(p.cells()), 1.0);
  for (const index_t q : {p.index(1, 1, 2), p.index(2, 1, 2), p.index(0, 0, 4), p.index(3, 2, 0)}) p.fluid[std::size_t(q)] = 0.0;
  return p;
}

/// The dense matrix of the masked operator, from its definition.
inline std::vector<double> dense_reference(const Problem& p) {
  const index_t n = p.cells();
  std::vector<double> a(std::size_t(n * n), 0.0);
  for (index_t i = 0; i < p.box.n[0]; ++i)
    for (index_t j = 0; j < p.box.n[1]; ++j)
      for (index_t k = 0; k < p.box.n[2]; ++k) {
        const index_t row = p.index(i, j, k);
        if (p.fluid[std::size_t(row)] == 0) {
          a[std::size_t(row * n + row)] = 1;
          continue;
        }
        for (int d = 0; d < 3; ++d)
          for (int dir : {-1, 1}) {
            index_t q[3] = {i, j, k};
            q[d] += dir;
            const PressureSide side = p.box.sides[2 * d + (dir > 0 ? 1 : 0)];
            if (q[d] < 0 || q[d] >= p.box.n[d]) {
              if (side != PressureSide::periodic) {
                if (side == PressureSide::dirichlet) a[std::size_t(row * n + row)] += 2 * p.box.inv_h2[d];
                continue;
              }
              q[d] = (q[d] + p.box.n[d]) % p.box.n[d];
            }
            const index_t col = p.index(q[0], q[1], q[2]);
            if (p.fluid[std::size_t(col)] == 0) continue;
            a[std::size_t(row * n + row)] += p.box.inv_h2[d];
            a[std::size_t(row * n + col)] -= p.box.inv_h2[d];
          }
      }
  return a;
}

/// The operator's matrix as the device applies it: column c is A e_c.
inline std::vector<double> applied_matrix(const Context& ctx, const Problem& p) {
  ObstacleCgPoisson3<double> solver(ctx, p.box, p.fluid);
  const Grid<3> grid = Grid<3>::uniform(extents(p.box.n[0], p.box.n[1], p.box.n[2]), {1.0, 1.0, 1.0});
  Field<double, 3> e(ctx, grid), out(ctx, grid);
  Array<double, 3> dense(ctx, extents(p.box.n[0], p.box.n[1], p.box.n[2]));
  const index_t n = p.cells();
  std::vector<double> a(std::size_t(n * n), 0.0), unit(std::size_t(n), 0.0);
  for (index_t c = 0; c < n; ++c) {
    unit.assign(std::size_t(n), 0.0), unit[std::size_t(c)] = 1;
    e.fill(0.0), e.copy_from_host(unit);
    for_each(ctx, "test::masked_apply", grid.interior(), MaskedPoisson7Apply<double>{solver.stencil(), e.view(), out.view()});
    for_each(ctx, "test::pack", grid.interior(), CopyBox3<double>{out.view(), dense.view()});
    const std::vector<double> column = dense.to_host();
    for (index_t r = 0; r < n; ++r) a[std::size_t(r * n + c)] = column[std::size_t(r)];
  }
  return a;
}

}  // namespace obstacle_poisson3_test

using namespace obstacle_poisson3_test;

template <class B>
class ObstaclePoisson3 : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ObstaclePoisson3);

TYPED_TEST(ObstaclePoisson3, MaskedOperatorMatchesTheDenseReference) {
  for (bool dirichlet : {false, true}) {
    const Problem p = problem(dirichlet);
    const std::vector<double> reference = dense_reference(p), applied = applied_matrix(this->ctx, p);
    const index_t n = p.cells();
    double diff = 0, asym = 0;
    for (index_t r = 0; r < n; ++r)
      for (index_t c = 0; c < n; ++c) {
        diff = std::max(diff, std::abs(applied[std::size_t(r * n + c)] - reference[std::size_t(r * n + c)]));
        asym = std::max(asym, std::abs(applied[std::size_t(r * n + c)] - applied[std::size_t(c * n + r)]));
      }
    EXPECT_EQ(diff, 0.0) << "dirichlet " << dirichlet;
    EXPECT_EQ(asym, 0.0) << "dirichlet " << dirichlet;
    // the solid cell on the periodic side cuts the wrap-around link of its row's last cell
    EXPECT_EQ(reference[std::size_t(p.index(3, 0, 4) * n + p.index(0, 0, 4))], 0.0);
    EXPECT_NE(reference[std::size_t(p.index(3, 1, 4) * n + p.index(0, 1, 4))], 0.0);
  }
}

TYPED_TEST(ObstaclePoisson3, ConjugateGradientsSolveTheMaskedOperator) {
  for (bool dirichlet : {false, true}) {
    const Problem p = problem(dirichlet);
    const index_t n = p.cells();
    std::mt19937 random(7);
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<double> b(std::size_t(n), 0.0);
    double mean = 0, fluid = 0;
    for (index_t q = 0; q < n; ++q)
      if (p.fluid[std::size_t(q)] != 0) b[std::size_t(q)] = uniform(random), mean += b[std::size_t(q)], fluid += 1;
    if (!dirichlet)  // a singular operator: b in its range (mean-free over the fluid cells)
      for (index_t q = 0; q < n; ++q)
        if (p.fluid[std::size_t(q)] != 0) b[std::size_t(q)] -= mean / fluid;
    ObstacleCgPoisson3<double> solver(this->ctx, p.box, p.fluid);
    solver.set_tolerance(1e-12, 1000);
    Array<double, 3> bd = Array<double, 3>::from_host(this->ctx, extents(p.box.n[0], p.box.n[1], p.box.n[2]), b);
    Array<double, 3> x(this->ctx, extents(p.box.n[0], p.box.n[1], p.box.n[2]));
    x.fill(0.0);
    solver.solve(bd.view(), x.view());
    EXPECT_TRUE(solver.last().converged) << dirichlet;
    const std::vector<double> xs = x.to_host(), a = dense_reference(p);
    double r2 = 0, b2 = 0;
    for (index_t r = 0; r < n; ++r) {
      double ax = 0;
      for (index_t c = 0; c < n; ++c) ax += a[std::size_t(r * n + c)] * xs[std::size_t(c)];
      r2 += (ax - b[std::size_t(r)]) * (ax - b[std::size_t(r)]), b2 += b[std::size_t(r)] * b[std::size_t(r)];
      if (p.fluid[std::size_t(r)] == 0) EXPECT_EQ(xs[std::size_t(r)], 0.0);  // the solid cells' pressure
    }
    EXPECT_LT(std::sqrt(r2 / b2), 1e-11) << dirichlet;
  }
}
