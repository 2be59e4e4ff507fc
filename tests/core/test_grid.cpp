// Grids, fields, ghost-cell boundaries and stencil operators on every backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/mesh/boundary.hpp"
#include "core/array/expr.hpp"
#include "core/mesh/stencil.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace sim_test {
// u(i, j) = f(x_i, y_j) over interior and ghosts, with f = a x^2 + b y^2 + c x y + x.
inline void set_quadratic(Field<double, 2>& u, double a, double b, double c) {
  auto v = u.view();
  const Grid<2> g = u.grid();
  for_each(u.context(), "test::quadratic", u.with_ghosts(), SIM_LAMBDA(index_t i, index_t j) {
    const double x = g.center(0, i), y = g.center(1, j);
    v(i, j) = a * x * x + b * y * y + c * x * y + x;
  });
}
inline void laplacian_2d(const Field<double, 2>& u, Field<double, 2>& out) {
  auto v = u.view();
  auto o = out.view();
  const auto s = Spacing<double, 2>::of(u.grid());
  for_each(u.context(), "test::laplacian", u.interior(), SIM_LAMBDA(index_t i, index_t j) { o(i, j) = laplacian(v, i, j, s); });
}
inline void gradient_divergence_3d(const Field<double, 3>& u, Field<double, 3>& gx, Field<double, 3>& lap) {
  auto v = u.view();
  auto g = gx.view();
  auto l = lap.view();
  const auto s = Spacing<double, 3>::of(u.grid());
  for_each(u.context(), "test::grad3", u.interior(), SIM_LAMBDA(index_t i, index_t j, index_t k) {
    g(i, j, k) = gradient(v, 0, i, j, k, s);
    l(i, j, k) = laplacian(v, i, j, k, s);
  });
}
inline void set_1d(Field<double, 1>& u) {  // u = 1 + x (2 - x)
  auto v = u.view();
  const Grid<1> g = u.grid();
  for_each(u.context(), "test::set_1d", u.interior(), SIM_LAMBDA(index_t i) {
    const double x = g.center(0, i);
    v(i) = 1.0 + x * (2.0 - x);
  });
}
inline double sine_laplacian_error(const Context& ctx, index_t n) {
  // Max error of the 3-point Laplacian of sin(2 pi x) with periodic ghosts.
  auto grid = Grid<1>::uniform(extents(n), {1.0});
  Field<double, 1> u(ctx, grid), out(ctx, grid);
  auto v = u.view();
  auto o = out.view();
  for_each(ctx, "test::sine", u.interior(), SIM_LAMBDA(index_t i) { v(i) = sin(2 * M_PI * grid.center(0, i)); });
  fill_ghosts(u, Boundary<1>::periodic());
  const auto s = Spacing<double, 1>::of(grid);
  for_each(ctx, "test::lap1", u.interior(), SIM_LAMBDA(index_t i) {
    o(i) = laplacian(v, i, s) + 4 * M_PI * M_PI * sin(2 * M_PI * grid.center(0, i));
  });
  return norm_max(out);
}
}  // namespace sim_test

template <class B>
class GridTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(GridTest);

TYPED_TEST(GridTest, FieldViewReachesGhosts) {
  auto grid = Grid<2>::uniform(extents(4, 6), {1.0, 1.5}, 2);
  Field<double, 2> u(this->ctx, grid);
  EXPECT_EQ(u.view().shape, extents(4, 6));
  EXPECT_EQ(u.to_host_with_ghosts().size(), 8u * 10u);
  // each row's first interior cell is 128-byte aligned; ghosts sit just before it
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&u.view()(0, 0)) % 128, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&u.view()(3, 0)) % 128, 0u);
  EXPECT_GE(&u.view()(-2, -2), u.storage().data());
  EXPECT_DOUBLE_EQ(grid.dx[1], 0.25);
  EXPECT_DOUBLE_EQ(grid.center(0, 0), 0.125);
  u.fill(0);
  u = u + 3;  // interior only
  EXPECT_EQ(sum(u), 3.0 * 24);
  EXPECT_EQ(sum(u.view().sub(u.with_ghosts()), &this->ctx), 3.0 * 24);
}

TYPED_TEST(GridTest, LaplacianOfQuadraticIsExactIn2D) {
  auto grid = Grid<2>::uniform(extents(13, 9), {1.3, 0.9});
  Field<double, 2> u(this->ctx, grid), out(this->ctx, grid);
  sim_test::set_quadratic(u, 1.5, -0.5, 2.0);
  sim_test::laplacian_2d(u, out);
  EXPECT_NEAR(min(out), 2 * 1.5 + 2 * -0.5, 1e-9);
  EXPECT_NEAR(max(out), 2 * 1.5 + 2 * -0.5, 1e-9);
}

TYPED_TEST(GridTest, GradientAndLaplacianIn3D) {
  auto grid = Grid<3>::uniform(extents(6, 7, 5), {1.0, 1.0, 1.0});
  Field<double, 3> u(this->ctx, grid), gx(this->ctx, grid), lap(this->ctx, grid);
  u.fill(0);
  const auto all = u.view().sub(u.with_ghosts());
  detail::copy_from_host<double, 3>(this->ctx, [&] {  // u = x^2 + 3 y + z^2 on all cells, ghosts included
    std::vector<double> h(u.with_ghosts().size());
    auto b = grid.with_ghosts();
    std::size_t t = 0;
    for (index_t i = b.lo[0]; i < b.hi[0]; ++i)
      for (index_t j = b.lo[1]; j < b.hi[1]; ++j)
        for (index_t k = b.lo[2]; k < b.hi[2]; ++k) {
          double x = grid.center(0, i), y = grid.center(1, j), z = grid.center(2, k);
          h[t++] = x * x + 3 * y + z * z;
        }
    return h;
  }().data(), all);
  sim_test::gradient_divergence_3d(u, gx, lap);
  EXPECT_NEAR(min(lap), 4.0, 1e-9);
  EXPECT_NEAR(max(lap), 4.0, 1e-9);
  // du/dx = 2x at an interior cell
  auto v = gx.view();
  std::vector<double> one(1);
  detail::copy_to_host<double, 3>(this->ctx, v.sub(Box<3>{{2, 3, 1}, {3, 4, 2}}), one.data());
  EXPECT_NEAR(one[0], 2 * grid.center(0, 2), 1e-12);
}

TYPED_TEST(GridTest, PeriodicGhostsCopyTheOppositeSide) {
  auto grid = Grid<2>::uniform(extents(5, 4), {1.0, 1.0}, 2);
  Field<double, 2> u(this->ctx, grid);
  u.fill(-99);
  std::vector<double> interior(20);
  for (int t = 0; t < 20; ++t) interior[t] = t;
  detail::copy_from_host<double, 2>(this->ctx, interior.data(), u.view());
  fill_ghosts(u, Boundary<2>::periodic());
  auto h = u.to_host_with_ghosts();  // 9 x 8 with ghosts
  auto at = [&](index_t i, index_t j) { return h[(i + 2) * 8 + (j + 2)]; };
  auto wrap = [](index_t i, index_t n) { return ((i % n) + n) % n; };
  for (index_t i = -2; i < 7; ++i)
    for (index_t j = -2; j < 6; ++j) ASSERT_EQ(at(i, j), double(wrap(i, 5) * 4 + wrap(j, 4))) << i << "," << j;
}

TYPED_TEST(GridTest, DirichletAndNeumannHoldOnTheFaces) {
  auto grid = Grid<1>::uniform(extents(10), {2.0});
  Field<double, 1> u(this->ctx, grid);
  sim_test::set_1d(u);
  Boundary<1> bc;
  bc.lo[0] = {BcKind::dirichlet, 0.75};
  bc.hi[0] = {BcKind::neumann, -1.5};
  fill_ghosts(u, bc);
  auto h = u.to_host_with_ghosts();  // index 0 is the ghost at -1
  EXPECT_NEAR(0.5 * (h[0] + h[1]), 0.75, 1e-14);                  // face value
  EXPECT_NEAR((h[11] - h[10]) / grid.dx[0], -1.5, 1e-12);        // outward derivative
}

TYPED_TEST(GridTest, CornersAreFilledConsistently) {
  auto grid = Grid<2>::uniform(extents(4, 4), {1.0, 1.0});
  Field<double, 2> u(this->ctx, grid);
  u.fill(-1);
  u = u * 0 + 2;  // interior 2
  fill_ghosts(u, Boundary<2>::all({BcKind::dirichlet, 1.0}));
  auto h = u.to_host_with_ghosts();
  EXPECT_EQ(h[0 * 6 + 1], 0.0);  // edge ghost: 2*1 - 2
  EXPECT_EQ(h[0 * 6 + 0], 2.0);  // corner: mirrored twice
  EXPECT_EQ(h[5 * 6 + 5], 2.0);
}

TYPED_TEST(GridTest, LaplacianConvergesAtSecondOrder) {
  double e1 = sim_test::sine_laplacian_error(this->ctx, 32);
  double e2 = sim_test::sine_laplacian_error(this->ctx, 64);
  double e3 = sim_test::sine_laplacian_error(this->ctx, 128);
  double p1 = std::log2(e1 / e2), p2 = std::log2(e2 / e3);
  EXPECT_GT(p1, 1.9);
  EXPECT_LT(p1, 2.1);
  EXPECT_GT(p2, 1.9);
  EXPECT_LT(p2, 2.1);
}

TYPED_TEST(GridTest, BadBoundariesAreErrors) {
  auto grid = Grid<2>::uniform(extents(4, 4), {1.0, 1.0});
  Field<double, 2> u(this->ctx, grid);
  Boundary<2> bc = Boundary<2>::periodic();
  bc.hi[1] = {BcKind::neumann, 0};
  EXPECT_THROW(fill_ghosts(u, bc), Error);
  EXPECT_THROW((Grid<2>::uniform(extents(0, 4), {1.0, 1.0})), ShapeError);
}

TYPED_TEST(GridTest, ScalarFieldsRefuseTheFluidsKinds) {
  auto grid = Grid<2>::uniform(extents(4, 4), {1.0, 1.0});
  Field<double, 2> u(this->ctx, grid);
  Boundary<2> bc = Boundary<2>::all({BcKind::neumann, 0});
  bc.hi[1] = {BcKind::wall, 1};
  try {
    fill_ghosts(u, bc);
    ADD_FAILURE() << "a wall on a scalar field was filled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("y_hi = \"wall\""), std::string::npos) << e.what();
  }
}

// One vocabulary: faces by name (x_lo ... z_hi), kinds by name (periodic ... outflow).
TEST(Boundary, FacesAndKindsByName) {
  const char* faces[] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(face_name({k / 2, k % 2}), faces[k]);
    Face f;
    ASSERT_TRUE(face_from_name(faces[k], 3, f)) << faces[k];
    EXPECT_EQ(f.axis, k / 2);
    EXPECT_EQ(f.side, k % 2);
  }
  Face f;
  EXPECT_FALSE(face_from_name("z_lo", 2, f));  // no z on a 2D grid
  EXPECT_FALSE(face_from_name("left", 2, f));
  for (BcKind k : {BcKind::periodic, BcKind::dirichlet, BcKind::neumann, BcKind::wall, BcKind::inflow, BcKind::outflow}) {
    BcKind back = BcKind::neumann;
    ASSERT_TRUE(bc_kind_from_name(bc_name(k), back)) << bc_name(k);
    EXPECT_EQ(back, k);
  }
  BcKind k = BcKind::wall;
  EXPECT_FALSE(bc_kind_from_name("Wall", k));
  EXPECT_EQ(k, BcKind::wall);
}
