// The obstacle transform solver (the box's transform solve with a capacitance correction):
// exact on the masked operator (a known discrete solution recovered, the residual at rounding)
// in 2D and 3D, with a cylinder or sphere and with box obstacles touching a side or straddling
// a periodic edge, for every kind of side (periodic, Neumann, Dirichlet, mixed; the singular
// all-Neumann and all-periodic boxes), in both precisions; the same solution as mg_cg through
// PoissonSolver; refused with a reason where it does not apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "solvers/obstacle_transform_poisson.hpp"
#include "tests/support/obstacle_cases.hpp"
#include "solvers/pressure_solver.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using namespace sim::solvers;

namespace {

template <class B>
class ObstacleTransform : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ObstacleTransform);

using P = PressureSide;

using namespace sim_test::obstacle_cases;

/// (A x) of the masked operator (poisson.hpp's rules) on the host, in double.
template <int Rank>
std::vector<double> apply_masked(const TransformBox<Rank>& box, const std::vector<double>& mask, const std::vector<double>& x) {
  index_t stride[Rank];
  stride[Rank - 1] = 1;
  for (int d = Rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * box.n[d + 1];
  std::vector<double> out(x.size());
  for (index_t a = 0; a < box.cells(); ++a) {
    if (mask[std::size_t(a)] == 0) {
      out[std::size_t(a)] = x[std::size_t(a)];
      continue;
    }
    double sum = 0;
    for (int d = 0; d < Rank; ++d) {
      const index_t i = (a / stride[d]) % box.n[d];
      for (int side = 0; side < 2; ++side) {
        const index_t q = side == 0 ? i - 1 : i + 1;
        const P kind = box.sides[2 * d + side];
        double c = 1, neighbour;
        if (q >= 0 && q < box.n[d]) {
          neighbour = x[std::size_t(a + (q - i) * stride[d])];
          c = mask[std::size_t(a + (q - i) * stride[d])];
        } else if (kind == P::periodic) {
          const index_t w = q < 0 ? box.n[d] - 1 : 0;
          neighbour = x[std::size_t(a + (w - i) * stride[d])];
          c = mask[std::size_t(a + (w - i) * stride[d])];
        } else {
          neighbour = 0, c = kind == P::dirichlet ? 2 : 0;
        }
        sum += c * (x[std::size_t(a)] - neighbour) * box.inv_h2[d];
      }
    }
    out[std::size_t(a)] = sum;
  }
  return out;
}

/// A box of n cells a side over lengths 1 x 0.8 (x 0.6) with the side set's kinds.
template <int Rank>
TransformBox<Rank> make_box(const index_t (&n)[Rank], const SideSet& set) {
  TransformBox<Rank> b;
  const double length[3] = {1.0, 0.8, 0.6};
  for (int d = 0; d < Rank; ++d) {
    b.n[d] = n[d];
    const double h = length[d] / double(n[d]);
    b.inv_h2[d] = 1 / (h * h);
    b.sides[2 * d] = set.sides[2 * d], b.sides[2 * d + 1] = set.sides[2 * d + 1];
  }
  return b;
}

/// A smooth solution on box's cells (any values on solid cells are part of the test too).
template <int Rank>
std::vector<double> smooth_solution(const TransformBox<Rank>& box) {
  std::vector<double> v(std::size_t(box.cells()));
  for (index_t a = 0; a < box.cells(); ++a) {
    double x[3] = {0, 0, 0};
    index_t rest = a;
    for (int d = Rank - 1; d >= 0; --d) x[d] = (double(rest % box.n[d]) + 0.5) / double(box.n[d]), rest /= box.n[d];
    v[std::size_t(a)] = std::sin(2 * M_PI * x[0]) * std::cos(2 * M_PI * x[1]) + 0.5 * std::cos(2 * M_PI * x[1] + x[2]) + 0.2 * x[0] * x[2];
  }
  return v;
}

/// The largest |x - exact| over fluid cells relative to max |exact| (after matching the fluid
/// means when A is singular), and the same over solid cells, where x must equal b.
struct Errors {
  double fluid = 0, solid = 0;
};
template <int Rank>
Errors compare(const TransformBox<Rank>& box, const std::vector<double>& mask, const std::vector<double>& x,
               const std::vector<double>& exact, const std::vector<double>& b) {
  double shift = 0, fluid = 0, scale = 0;
  if (box.singular()) {
    for (std::size_t a = 0; a < x.size(); ++a)
      if (mask[a] != 0) shift += x[a] - exact[a], fluid += 1;
    shift /= fluid;
  }
  Errors e;
  for (std::size_t a = 0; a < x.size(); ++a) {
    scale = std::max(scale, std::abs(exact[a]));
    if (mask[a] != 0) e.fluid = std::max(e.fluid, std::abs(x[a] - shift - exact[a]));
    else e.solid = std::max(e.solid, std::abs(x[a] - b[a]));
  }
  e.fluid /= scale;
  return e;
}

/// Solves A x = A exact on box with shape's obstacle in precision T (a dense array solve) and compares.
template <class T, int Rank>
Errors solve_known(const Context& ctx, const TransformBox<Rank>& box, Shape shape, std::string* description = nullptr) {
  const std::vector<double> mask = mask_of<Rank, double>(box, shape), exact = smooth_solution(box);
  const std::vector<double> b = apply_masked(box, mask, exact);
  ObstacleTransformPoisson<T, Rank> solver(ctx, box, mask_of<Rank, T>(box, shape));
  if (description) *description = solver.description();
  Extents<Rank> shape_n;
  for (int d = 0; d < Rank; ++d) shape_n.n[d] = box.n[d];
  const std::vector<T> bt(b.begin(), b.end());
  const Array<T, Rank> bd = Array<T, Rank>::from_host(ctx, shape_n, bt);
  Array<T, Rank> xd = Array<T, Rank>::zeros(ctx, shape_n);
  solver.solve(bd.view(), xd.view());
  const std::vector<T> xt = xd.to_host();
  return compare(box, mask, std::vector<double>(xt.begin(), xt.end()), exact, std::vector<double>(bt.begin(), bt.end()));
}

TYPED_TEST(ObstacleTransform, RecoversAKnownSolutionIn2D) {
  double worst_double = 0, worst_float = 0;
  for (const SideSet& set : kSideSets)
    for (Shape shape : {Shape::round, Shape::box_at_side, Shape::box_across_edge}) {
      const TransformBox<2> box = make_box<2>({40, 28}, set);
      const std::string what = std::string(set.name) + ", " + shape_name(shape);
      const Errors d = solve_known<double, 2>(this->ctx, box, shape);
      EXPECT_LT(d.fluid, 1e-10) << what;
      EXPECT_EQ(d.solid, 0) << what;
      const Errors f = solve_known<float, 2>(this->ctx, box, shape);
      EXPECT_LT(f.fluid, 5e-5) << what << " (float32)";
      EXPECT_EQ(f.solid, 0) << what << " (float32)";
      worst_double = std::max(worst_double, d.fluid), worst_float = std::max(worst_float, f.fluid);
    }
  std::printf("[ 2D obstacle transform solve, largest error relative to max |x|: %.3g float64, %.3g float32 ]\n", worst_double, worst_float);
}

TYPED_TEST(ObstacleTransform, RecoversAKnownSolutionIn3D) {
  double worst_double = 0, worst_float = 0;
  for (const SideSet& set : kSideSets)
    for (Shape shape : {Shape::round, Shape::box_across_edge}) {
      const TransformBox<3> box = make_box<3>({14, 12, 10}, set);
      const std::string what = std::string(set.name) + ", " + shape_name(shape);
      std::string description;
      const Errors d = solve_known<double, 3>(this->ctx, box, shape, &description);
      EXPECT_LT(d.fluid, 1e-10) << what;
      EXPECT_EQ(d.solid, 0) << what;
      EXPECT_NE(description.find("capacitance correction of"), std::string::npos) << description;
      const Errors f = solve_known<float, 3>(this->ctx, box, shape);
      EXPECT_LT(f.fluid, 5e-5) << what << " (float32)";
      EXPECT_EQ(f.solid, 0) << what << " (float32)";
      worst_double = std::max(worst_double, d.fluid), worst_float = std::max(worst_float, f.fluid);
    }
  std::printf("[ 3D obstacle transform solve, largest error relative to max |x|: %.3g float64, %.3g float32 ]\n", worst_double, worst_float);
}

// The 3D interface the 3D fluid calls: a PoissonBox3 and the whole grid's mask.
TYPED_TEST(ObstacleTransform, ThreeDInterfaceTakesAPoissonBox) {
  PoissonBox3 box3;
  const TransformBox<3> box = make_box<3>({12, 10, 8}, kSideSets[3]);
  for (int d = 0; d < 3; ++d) box3.n[d] = box.n[d], box3.inv_h2[d] = box.inv_h2[d];
  for (int k = 0; k < 6; ++k) box3.sides[k] = box.sides[k];
  const std::vector<double> mask = mask_of<3, double>(box, Shape::round), exact = smooth_solution(box);
  const std::vector<double> b = apply_masked(box, mask, exact);
  ObstacleTransformPoisson3<double> solver(this->ctx, box3, mask);
  EXPECT_GT(solver.surface_cells(), 0);
  const Array<double, 3> bd = Array<double, 3>::from_host(this->ctx, extents(index_t(12), index_t(10), index_t(8)), b);
  Array<double, 3> xd = Array<double, 3>::zeros(this->ctx, bd.shape());
  solver.solve(bd.view(), xd.view());
  const Errors e = compare(box, mask, xd.to_host(), exact, b);
  EXPECT_LT(e.fluid, 1e-10);
}

// Through PoissonSolver ("transform" with an obstacle): the same solution as mg_cg at a tight
// tolerance, for a right-hand side that is not A of anything smooth (made consistent where A is singular).
TYPED_TEST(ObstacleTransform, AgreesWithMgCg) {
  for (const SideSet& set : {kSideSets[0], kSideSets[3]}) {
    const index_t n = 64;
    const TransformBox<2> box = make_box<2>({n, n}, set);
    std::vector<double> mask = mask_of<2, double>(box, Shape::round);
    const PressureSide sides[4] = {set.sides[0], set.sides[1], set.sides[2], set.sides[3]};
    const PoissonGrid<double> grid = make_poisson_grid<double>(n, n, 1.0 / double(n), 0.8 / double(n), sides, &mask);
    std::vector<double> b(std::size_t(n * n));
    double sum = 0, fluid = 0;
    for (index_t a = 0; a < n * n; ++a) {
      b[std::size_t(a)] = mask[std::size_t(a)] * (std::cos(0.37 * double(a)) + double(a % n) / double(n));
      sum += b[std::size_t(a)], fluid += mask[std::size_t(a)];
    }
    if (box.singular())
      for (index_t a = 0; a < n * n; ++a) b[std::size_t(a)] -= mask[std::size_t(a)] * sum / fluid;
    const double len[2] = {1.0, 1.0};
    const Grid<2> fg = Grid<2>::uniform(Extents<2>{{n, n}}, len, 1);
    Field<double, 2> bf(this->ctx, fg), xt(this->ctx, fg), xm(this->ctx, fg);
    bf.fill(0), xt.fill(0), xm.fill(0);
    sim::detail::copy_from_host<double, 2>(this->ctx, b.data(), bf.view());
    PoissonSolver<double> exact(this->ctx, grid, PoissonMethod::transform);
    EXPECT_TRUE(exact.exact());
    EXPECT_NE(exact.transform_description().find("capacitance"), std::string::npos);
    exact.solve(bf, xt, 0, 0);
    PoissonSolver<double> mg(this->ctx, grid, PoissonMethod::mg_cg);
    const SolveStats st = mg.solve(bf, xm, 1e-12, 200);
    ASSERT_TRUE(st.converged) << set.name;
    std::vector<double> ht(std::size_t(n * n)), hm(ht.size());
    sim::detail::copy_to_host<double, 2>(this->ctx, xt.view(), ht.data());
    sim::detail::copy_to_host<double, 2>(this->ctx, xm.view(), hm.data());
    const Errors e = compare(box, mask, ht, hm, b);
    EXPECT_LT(e.fluid, 1e-9) << set.name;
    EXPECT_EQ(e.solid, 0) << set.name;
  }
}

TEST(ObstacleTransformRefusal, SaysWhy) {
  const Context ctx = Context::create(BackendRequest::cpu);
  TransformBox<2> box = make_box<2>({30, 20}, kSideSets[0]);
  // an obstacle wall across the whole height of a Neumann box: two fluid pieces, each with its own pressure level
  std::vector<double> wall(std::size_t(box.cells()), 1.0);
  for (index_t j = 0; j < 20; ++j) wall[std::size_t(14 * 20 + j)] = 0;
  try {
    ObstacleTransformPoisson<double, 2> s(ctx, box, wall);
    ADD_FAILURE() << "a fluid cut into pieces was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pieces"), std::string::npos) << e.what();
  }
  // the same wall with both x sides Dirichlet: each piece reaches one, so both levels are fixed
  TransformBox<2> dirichlet_x = box;
  dirichlet_x.sides[0] = dirichlet_x.sides[1] = P::dirichlet;
  EXPECT_EQ(obstacle_transform_unsupported(dirichlet_x, wall), "");
  // Dirichlet on x_lo only: the right piece's level is undetermined
  dirichlet_x.sides[1] = P::neumann;
  EXPECT_NE(obstacle_transform_unsupported(dirichlet_x, wall).find("pieces"), std::string::npos);
  // every other cell solid: more surface cells than the limit
  TransformBox<2> big = make_box<2>({100, 100}, kSideSets[2]);
  std::vector<double> checker(std::size_t(big.cells()));
  for (index_t a = 0; a < big.cells(); ++a) checker[std::size_t(a)] = double(((a / 100) + (a % 100)) % 2);
  EXPECT_NE(obstacle_transform_unsupported(big, checker).find("limit"), std::string::npos);
  const PressureSide walls[4] = {P::dirichlet, P::dirichlet, P::dirichlet, P::dirichlet};
  const SolverChoice many = choose_poisson_solver(make_poisson_grid<double>(100, 100, 0.01, 0.01, walls, &checker), 1, "a lattice");
  EXPECT_EQ(many.name, "mg_cg");
  EXPECT_NE(many.reason.find("limit of 4096"), std::string::npos) << many.reason;
  // no obstacle, and a dimension periodic on one side only
  EXPECT_NE(obstacle_transform_unsupported(box, std::vector<double>(std::size_t(box.cells()), 1.0)).find("no obstacle"),
            std::string::npos);
  box.sides[1] = P::dirichlet;
  box.sides[0] = P::periodic;
  EXPECT_NE(obstacle_transform_unsupported(box, wall).find("periodic on one side"), std::string::npos);
  // several ranks take it too (the distributed solve), and auto says so
  const PressureSide sides[4] = {P::neumann, P::dirichlet, P::neumann, P::neumann};
  std::vector<double> mask = mask_of<2, double>(make_box<2>({32, 32}, kSideSets[3]), Shape::round);
  const PoissonGrid<double> grid = make_poisson_grid<double>(32, 32, 1.0 / 32, 0.8 / 32, sides, &mask);
  const SolverChoice one = choose_poisson_solver(grid, 1, "a cylinder");
  EXPECT_EQ(one.name, "transform");
  EXPECT_NE(one.reason.find("capacitance correction"), std::string::npos) << one.reason;
  const SolverChoice two = choose_poisson_solver(grid, 2, "a cylinder");
  EXPECT_EQ(two.name, "transform");
  EXPECT_NE(two.reason.find("split over 2 ranks"), std::string::npos) << two.reason;
  EXPECT_NE(two.reason.find("capacitance correction"), std::string::npos) << two.reason;
  const SolverChoice lattice = choose_poisson_solver(make_poisson_grid<double>(100, 100, 0.01, 0.01, walls, &checker), 4, "a lattice");
  EXPECT_EQ(lattice.name, "mg_cg");
  EXPECT_NE(lattice.reason.find("limit of 4096"), std::string::npos) << lattice.reason;
}

}  // namespace
