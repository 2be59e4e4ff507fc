// The 3D multigrid and mg_cg (solvers/multigrid3.hpp): the link operator equals the box's
// 7-point operator where every cell is fluid; a V-cycle cuts the residual by at least 4 per
// cycle in float64 (2 in float32, one sweep each way) on a 32^3 box with Neumann, Dirichlet,
// periodic and mixed sides; mg_cg reaches the transform solver's solution to the tolerance for
// every per-axis side combination (singular ones included), in both precisions, and on boxes two
// cells thick (semi-coarsened or halved across); around a
// spherical obstacle it reaches plain CG's solution in under a tenth of its iterations; a box that
// does not halve down to a small coarsest grid is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "solvers/multigrid3.hpp"
#include "solvers/transform_poisson.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using namespace sim::solvers;

namespace {

template <class B>
class Multigrid3d : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(Multigrid3d);

using P = PressureSide;

/// The five per-axis side pairs.
const P kPairs[5][2] = {{P::periodic, P::periodic}, {P::neumann, P::neumann}, {P::dirichlet, P::dirichlet},
                        {P::neumann, P::dirichlet}, {P::dirichlet, P::neumann}};

/// A box of n0 x n1 x n2 cells on [0,1] x [0,1.2] x [0,0.9] (the unit cube when cube) with side
/// pairs px, py, pz of kPairs.
PoissonBox3 make_box(index_t n0, index_t n1, index_t n2, int px, int py, int pz, bool cube = false) {
  PoissonBox3 b;
  const index_t n[3] = {n0, n1, n2};
  const int pair[3] = {px, py, pz};
  const double length[3] = {1.0, cube ? 1.0 : 1.2, cube ? 1.0 : 0.9};
  for (int d = 0; d < 3; ++d) {
    b.n[d] = n[d];
    const double h = length[d] / double(n[d]);
    b.inv_h2[d] = 1 / (h * h);
    b.sides[2 * d] = kPairs[pair[d]][0], b.sides[2 * d + 1] = kPairs[pair[d]][1];
  }
  return b;
}

/// A right-hand side with smooth and rough parts on the box's cells, row-major; mean zero when
/// asked (a singular problem's consistent b).
std::vector<double> rhs(const PoissonBox3& b, bool mean_free) {
  std::vector<double> v(std::size_t(b.n[0] * b.n[1] * b.n[2]));
  double mean = 0;
  std::size_t q = 0;
  for (index_t i = 0; i < b.n[0]; ++i)
    for (index_t j = 0; j < b.n[1]; ++j)
      for (index_t k = 0; k < b.n[2]; ++k, ++q) {
        const double x = (i + 0.5) / double(b.n[0]), y = (j + 0.5) / double(b.n[1]), z = (k + 0.5) / double(b.n[2]);
        v[q] = std::sin(2 * M_PI * x) * std::cos(4 * M_PI * y) * std::cos(2 * M_PI * z) + x * y - z * z +
               0.3 * std::sin(double((i * 7 + j * 13 + k * 29) % 17));
        mean += v[q];
      }
  if (mean_free)
    for (double& a : v) a -= mean / double(v.size());
  return v;
}

/// A field of the box's shape (one ghost layer), values from host (row-major over the cells).
template <class T>
Field<T, 3> field(const Context& ctx, const PoissonBox3& b, const std::vector<double>& host = {}) {
  const double len[3] = {1, 1, 1};
  Field<T, 3> f(ctx, Grid<3>::uniform(Extents<3>{{b.n[0], b.n[1], b.n[2]}}, len, 1));
  f.fill(T(0));
  if (!host.empty()) f.copy_from_host(std::vector<T>(host.begin(), host.end()));
  return f;
}

/// The interior of f, row-major.
template <class T>
std::vector<T> values(const Field<T, 3>& f) {
  std::vector<T> h(std::size_t(f.grid().size()));
  detail::copy_to_host<T, 3>(f.context(), f.view(), h.data());
  return h;
}

template <class T>
double max_abs_diff(const Field<T, 3>& a, const Field<T, 3>& b, bool mean_free) {
  const std::vector<T> x = values(a), y = values(b);
  double shift = 0;
  if (mean_free) {
    for (std::size_t q = 0; q < x.size(); ++q) shift += (double(x[q]) - double(y[q])) / double(x.size());
  }
  double m = 0;
  for (std::size_t q = 0; q < x.size(); ++q) m = std::max(m, std::abs(double(x[q]) - double(y[q]) - shift));
  return m;
}

template <class T>
double max_abs(const Field<T, 3>& a) {
  double m = 0;
  for (T v : values(a)) m = std::max(m, std::abs(double(v)));
  return m;
}

TYPED_TEST(Multigrid3d, LinkOperatorOfAnAllFluidMaskIsTheBoxOperator) {
  for (const PoissonBox3& box : {make_box(6, 5, 4, 0, 1, 3), make_box(4, 6, 6, 2, 4, 0)}) {
    const std::vector<double> ones(std::size_t(box.n[0] * box.n[1] * box.n[2]), 1.0);
    Multigrid3<double> plain(this->ctx, poisson3_grid<double>(box));
    Multigrid3<double> linked(this->ctx, poisson3_grid<double>(box, ones));
    EXPECT_TRUE(linked.stencil().has_links);
    EXPECT_EQ(linked.grid().singular, box.singular());
    Field<double, 3> p = field<double>(this->ctx, box, rhs(box, false)), a = field<double>(this->ctx, box),
                     b = field<double>(this->ctx, box), c = field<double>(this->ctx, box);
    for_each(this->ctx, "test::apply7", p.interior(), Poisson7Apply<double>{Poisson7<double>::of(box), p.view(), a.view()});
    plain.apply(p.view(), b.view());
    linked.apply(p.view(), c.view());
    EXPECT_LT(max_abs_diff(a, b, false), 1e-12 * max_abs(a));
    EXPECT_LT(max_abs_diff(a, c, false), 1e-12 * max_abs(a));
  }
}

/// The largest residual reduction factor (a point smoother's: on cubic cells) of cycles 2..6 of standalone V-cycles from zero on box.
template <class T>
double worst_cycle_factor(const Context& ctx, const PoissonBox3& box, int* levels = nullptr) {
  Multigrid3<T> mg(ctx, poisson3_grid<T>(box));
  if (levels) *levels = mg.levels();
  const Field<T, 3> b = field<T>(ctx, box, rhs(box, box.singular()));
  Field<T, 3> x = field<T>(ctx, box), r = field<T>(ctx, box);
  double last = mg.norm(b.view()), worst = 0;
  for (int c = 1; c <= 6; ++c) {
    mg.vcycle(b.view(), x.view());
    mg.residual(b.view(), x.view(), r.view());
    const double now = mg.norm(r.view());
    if (c >= 2) worst = std::max(worst, now / last);
    last = now;
  }
  return worst;
}

TYPED_TEST(Multigrid3d, VCycleCutsTheResidualFourfoldOnA32CubeForEverySideKind) {
  struct Case {
    const char* what;
    int px, py, pz;
  };
  for (const Case& c : {Case{"neumann", 1, 1, 1}, Case{"dirichlet", 2, 2, 2}, Case{"periodic", 0, 0, 0},
                        Case{"mixed", 3, 0, 4}}) {
    const PoissonBox3 box = make_box(32, 32, 32, c.px, c.py, c.pz, true);
    int levels = 0;
    const double f64 = worst_cycle_factor<double>(this->ctx, box, &levels);
    EXPECT_EQ(levels, 3) << c.what;  // 32^3, 16^3, 8^3 (dense)
    EXPECT_LE(f64, 0.25) << c.what;  // two red-black sweeps each way in float64 (measured 0.23)
    const double f32 = worst_cycle_factor<float>(this->ctx, box);  // one sweep each way in float32 (measured 0.43)
    EXPECT_LE(f32, 0.5) << c.what;
    std::printf("V-cycle factor %s: float64 %.3f, float32 %.3f\n", c.what, f64, f32);
  }
}

/// mg_cg and the transform solve on box in precision T: max |x_mg - x_t| / max |x_t| (both
/// mean-free when singular), and mg_cg's iterations.
template <class T>
std::pair<double, int> against_transform(const Context& ctx, const PoissonBox3& box, double tol) {
  const Field<T, 3> b = field<T>(ctx, box, rhs(box, box.singular()));
  Field<T, 3> xt = field<T>(ctx, box), xm = field<T>(ctx, box);
  TransformPoisson3<T>(ctx, box).solve(b, xt);
  PoissonMgCg3<T> solver(ctx, poisson3_grid<T>(box));
  const SolveStats st = solver.solve(b, xm, tol, 200);
  EXPECT_TRUE(st.converged) << st.residual;
  EXPECT_LE(st.residual, tol);
  return {max_abs_diff(xm, xt, box.singular()) / max_abs(xt), st.iterations};
}

TYPED_TEST(Multigrid3d, MgCgMatchesTheTransformSolveForEverySideCombination) {
  int most = 0;
  for (int px = 0; px < 5; ++px)
    for (int py = 0; py < 5; ++py)
      for (int pz = 0; pz < 5; ++pz) {
        const PoissonBox3 box = make_box(16, 12, 8, px, py, pz);
        const auto [error, iterations] = against_transform<double>(this->ctx, box, 1e-10);
        EXPECT_LT(error, 1e-8) << px << py << pz;
        most = std::max(most, iterations);
      }
  EXPECT_LE(most, 14);
  std::printf("mg_cg float64 at 1e-10 on 16x12x8: at most %d iterations\n", most);
}

// A box two cells thick: with a thick spacing across (weak coupling) that axis is kept while the
// others halve (semi-coarsening); with the same spacing as the others it halves to one cell (a
// periodic axis's two fine cells then count once each in the restriction). mg_cg converges as
// on a cube either way.
TYPED_TEST(Multigrid3d, MgCgOnFlatBoxes) {
  for (int pz = 0; pz < 5; ++pz) {
    PoissonBox3 thick = make_box(32, 24, 2, 1, 0, pz, true), thin = make_box(32, 24, 2, 1, 0, pz, true);
    thin.inv_h2[2] = thin.inv_h2[0];
    for (const PoissonBox3& box : {thick, thin}) {
      const bool kept = box.inv_h2[2] < box.inv_h2[0];
      EXPECT_EQ(PoissonMgCg3<double>(this->ctx, poisson3_grid<double>(box)).multigrid().description(),
                kept ? "32x24x2 16x12x2" : "32x24x2 16x12x1");
      const auto [error, iterations] = against_transform<double>(this->ctx, box, 1e-10);
      EXPECT_LT(error, 1e-8) << pz << kept;
      EXPECT_LE(iterations, 12) << pz << kept;
      std::printf("flat box, z pair %d, z %s: %d iterations\n", pz, kept ? "kept" : "halved", iterations);
    }
  }
}

TYPED_TEST(Multigrid3d, MgCgMatchesTheTransformSolveInFloat32) {
  for (const PoissonBox3& box : {make_box(32, 32, 32, 0, 0, 0), make_box(32, 16, 24, 1, 1, 1), make_box(16, 32, 16, 3, 0, 2)}) {
    const auto [error, iterations] = against_transform<float>(this->ctx, box, 1e-5);
    EXPECT_LT(error, 1e-4);
    EXPECT_LE(iterations, 16);
    std::printf("mg_cg float32 at 1e-5: %d iterations\n", iterations);
  }
}

/// 1 outside a sphere of radius 0.22 at (0.45, 0.5, 0.5) of the unit cube, 0 inside; row-major.
std::vector<double> sphere_mask(const PoissonBox3& box) {
  std::vector<double> fluid;
  for (index_t i = 0; i < box.n[0]; ++i)
    for (index_t j = 0; j < box.n[1]; ++j)
      for (index_t k = 0; k < box.n[2]; ++k) {
        const double x = (i + 0.5) / double(box.n[0]) - 0.45, y = (j + 0.5) / double(box.n[1]) - 0.5,
                     z = (k + 0.5) / double(box.n[2]) - 0.5;
        fluid.push_back(x * x + y * y + z * z < 0.22 * 0.22 ? 0.0 : 1.0);
      }
  return fluid;
}

template <class T>
void sphere_against_plain_cg(const Context& ctx, double tol, double max_error, int max_iterations) {
  // (the third box keeps its thick z axis on every level: semi-coarsened links around the obstacle)
  for (const PoissonBox3& box : {make_box(24, 24, 24, 1, 1, 1), make_box(32, 24, 16, 3, 0, 1), make_box(32, 32, 4, 1, 0, 3, true)}) {
    const std::vector<double> fluid = sphere_mask(box);
    const Poisson3Grid<T> grid = poisson3_grid<T>(box, std::vector<T>(fluid.begin(), fluid.end()));
    std::vector<double> host = rhs(box, false);
    double mean = 0, count = 0;
    for (std::size_t q = 0; q < host.size(); ++q) mean += fluid[q] * host[q], count += fluid[q];
    for (std::size_t q = 0; q < host.size(); ++q) host[q] = fluid[q] * (host[q] - mean / count);  // 0 in the sphere
    const Field<T, 3> b = field<T>(ctx, box, host);
    PoissonMgCg3<T> solver(ctx, grid);
    EXPECT_EQ(solver.multigrid().grid().singular, box.singular());
    Field<T, 3> xm = field<T>(ctx, box), xc = field<T>(ctx, box), r = field<T>(ctx, box), p = field<T>(ctx, box),
                ap = field<T>(ctx, box);
    const SolveStats st = solver.solve(b, xm, tol, 200);
    EXPECT_TRUE(st.converged);
    EXPECT_LE(st.iterations, max_iterations);
    const Poisson7Links<T> s = solver.multigrid().stencil();
    const CgResult plain = cg(
        [&](Field<T, 3>& in, Field<T, 3>& out) { for_each(ctx, "test::apply_links", in.interior(), Poisson7LinksApply<T>{s, in.view(), out.view()}); },
        xc, b, r, p, ap, tol, 5000);
    EXPECT_TRUE(plain.converged);
    EXPECT_LT(st.iterations * 10, plain.iterations);
    std::printf("sphere %s: mg_cg %d iterations, plain CG %d\n", sizeof(T) == 8 ? "float64" : "float32", st.iterations,
                plain.iterations);
    // the two agree on the fluid cells up to a constant there when singular; the solid cells hold b = 0
    const std::vector<T> hm = values(xm), hc = values(xc);
    double shift = 0, top = 0, worst = 0;
    if (box.singular())
      for (std::size_t q = 0; q < hm.size(); ++q) shift += fluid[q] * (double(hm[q]) - double(hc[q])) / count;
    for (std::size_t q = 0; q < hm.size(); ++q) {
      top = std::max(top, std::abs(double(hc[q])));
      worst = std::max(worst, std::abs(double(hm[q]) - double(hc[q]) - fluid[q] * shift));
    }
    EXPECT_LT(worst, max_error * top);
  }
}

TYPED_TEST(Multigrid3d, MgCgAroundASphereMatchesPlainCg) {
  sphere_against_plain_cg<double>(this->ctx, 1e-10, 1e-7, 16);
  sphere_against_plain_cg<float>(this->ctx, 1e-5, 1e-3, 12);
}

TYPED_TEST(Multigrid3d, RefusesABoxThatDoesNotHalveFarEnough) {
  const PoissonBox3 box = make_box(18, 18, 18, 1, 1, 1);  // 9^3 = 729 cells: taken; 11^3 = 1331: refused
  EXPECT_NO_THROW(Multigrid3<double>(this->ctx, poisson3_grid<double>(box)));
  try {
    Multigrid3<double>(this->ctx, poisson3_grid<double>(make_box(11, 11, 11, 1, 1, 1)));
    ADD_FAILURE() << "an 11^3 coarsest box was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("11x11x11"), std::string::npos) << e.what();
  }
}

}  // namespace
