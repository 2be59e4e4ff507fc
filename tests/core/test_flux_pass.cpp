// sim::flux_pass: flux-form updates with zero-flux walls. Upwind advection-diffusion in 2D
// and 3D against a host reference that decides walls by cell position; the total conserved
// to rounding over many steps with walls on every face; walls mixed with periodic faces;
// a box cut in pieces (as a halo's overlapped pass cuts it) gives the whole box's values;
// faces shared with another rank are never walls.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/mesh/boundary.hpp"
#include "core/mesh/flux_pass.hpp"
#include "core/numerics/random_field.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace sim_test {

/// Upwind advection with velocity a plus diffusion D: the flux through a face, per unit area.
template <class T, int Rank>
struct UpwindFlux {
  T a[Rank];
  T D;
  T inv_dx[Rank];
  SIM_INLINE T operator()(int d, T left, T right) const {
    return (a[d] > T(0) ? a[d] * left : a[d] * right) - D * (right - left) * inv_dx[d];
  }
};

template <class T, int Rank>
struct FluxStep {
  UpwindFlux<T, Rank> flux;
  Spacing<T, Rank> h;
  T dt;
  template <class Cell>
  SIM_INLINE void operator()(const Cell& x, Walls walls) const {
    x.write(0, x.in[0].c - dt * flux_divergence(x.in[0], flux, h, walls));
  }
};

template <class T, int Rank>
UpwindFlux<T, Rank> upwind(const Grid<Rank>& g) {
  UpwindFlux<T, Rank> f{};
  const double a[3] = {0.7, -0.45, 0.3};
  for (int d = 0; d < Rank; ++d) f.a[d] = T(a[d]), f.inv_dx[d] = T(1.0 / g.dx[d]);
  f.D = T(0.02);
  return f;
}

/// A field's interior and ghosts on the host, indexed by interior-origin cell indices.
template <class T, int Rank>
struct HostField {
  std::vector<T> v;
  index_t n[Rank], g;
  explicit HostField(const Field<T, Rank>& f) : v(f.to_host_with_ghosts()), g(f.grid().ghost) {
    for (int d = 0; d < Rank; ++d) n[d] = f.grid().cells.n[d];
  }
  T& at(const index_t (&p)[Rank]) {
    index_t e = 0;
    for (int d = 0; d < Rank; ++d) e = e * (n[d] + 2 * g) + (p[d] + g);
    return v[std::size_t(e)];
  }
};

/// Calls fn(p) for every interior cell p, row-major.
template <int Rank, class Fn>
void for_cells(const index_t (&n)[Rank], Fn fn) {
  index_t p[Rank] = {};
  for (;;) {
    fn(p);
    int d = Rank - 1;
    while (d >= 0 && ++p[d] == n[d]) p[d--] = 0;
    if (d < 0) return;
  }
}

/// Sum of the interior cells, in long double.
template <class T, int Rank>
long double total(const Field<T, Rank>& f) {
  HostField<T, Rank> h(f);
  long double s = 0;
  for_cells<Rank>(h.n, [&](const index_t (&p)[Rank]) { s += h.at(p); });
  return s;
}

/// The reference step on the host: walls where bc says wall and the cell is on that face.
template <class T, int Rank>
std::vector<T> reference_step(const Field<T, Rank>& u, const Boundary<Rank>& bc, const FluxStep<T, Rank>& step) {
  HostField<T, Rank> h(u);
  std::vector<T> out;
  for_cells<Rank>(h.n, [&](const index_t (&p)[Rank]) {
    Star<T, Rank> st;
    st.c = h.at(p);
    Walls w;
    for (int d = 0; d < Rank; ++d) {
      index_t q[Rank];
      for (int e = 0; e < Rank; ++e) q[e] = p[e];
      q[d] = p[d] - 1, st.lo[d] = h.at(q);
      q[d] = p[d] + 1, st.hi[d] = h.at(q);
      if (p[d] == 0 && bc.lo[d].kind == BcKind::wall) w.bits |= 1u << (2 * d);
      if (p[d] == h.n[d] - 1 && bc.hi[d].kind == BcKind::wall) w.bits |= 1u << (2 * d + 1);
    }
    out.push_back(st.c - step.dt * flux_divergence(st, step.flux, step.h, w));
  });
  return out;
}

template <class T, int Rank>
std::vector<T> interior(const Field<T, Rank>& f) {
  HostField<T, Rank> h(f);
  std::vector<T> out;
  for_cells<Rank>(h.n, [&](const index_t (&p)[Rank]) { out.push_back(h.at(p)); });
  return out;
}

/// One flux step of u into un through flux_pass, on box (the fields' ghosts filled first).
template <class T, int Rank>
void flux_step(const Context& ctx, Field<T, Rank>& u, Field<T, Rank>& un, const Boundary<Rank>& bc,
               const FluxStep<T, Rank>& step, const Box<Rank>& box) {
  Subdomain whole;
  for (int d = 0; d < Rank; ++d) whole.cells[d] = u.grid().cells.n[d];
  fill_ghosts(u, wall_ghosts_copy_cells(bc));
  flux_pass(ctx, "test::flux_step", box, wall_faces(bc, whole), step, reads(u), writes(un));
}

template <class T, int Rank>
void expect_matches_reference(const Context& ctx, const Extents<Rank>& cells, const Boundary<Rank>& bc) {
  double length[Rank];
  for (int d = 0; d < Rank; ++d) length[d] = 0.1 * double(cells.n[d]);
  const Grid<Rank> g = Grid<Rank>::uniform(cells, length);
  Field<T, Rank> u(ctx, g), un(ctx, g);
  fill_uniform(u, T(0.5), T(2));
  const FluxStep<T, Rank> step{upwind<T, Rank>(g), Spacing<T, Rank>::of(g), T(0.05)};
  flux_step(ctx, u, un, bc, step, g.interior());
  const std::vector<T> want = reference_step(u, bc, step), got = interior(un);
  ASSERT_EQ(got.size(), want.size());
  const T tol = std::numeric_limits<T>::epsilon() * T(16);
  for (std::size_t e = 0; e < got.size(); ++e) ASSERT_NEAR(got[e], want[e], tol * std::fabs(want[e])) << "cell " << e;
}

}  // namespace sim_test

using namespace sim_test;

template <class B>
class FluxPassTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(FluxPassTest);

TYPED_TEST(FluxPassTest, WallsWhereTheCellTouchesThem) {
  expect_matches_reference<double, 2>(this->ctx, extents(13, 37), Boundary<2>::all({BcKind::wall, 0.0}));
  expect_matches_reference<float, 2>(this->ctx, extents(40, 33), Boundary<2>::all({BcKind::wall, 0.0}));
  expect_matches_reference<double, 3>(this->ctx, extents(9, 11, 35), Boundary<3>::all({BcKind::wall, 0.0}));
  Boundary<3> mixed = Boundary<3>::all({BcKind::wall, 0.0});
  mixed.lo[0] = mixed.hi[0] = {BcKind::periodic, 0.0};
  mixed.lo[2] = mixed.hi[2] = {BcKind::periodic, 0.0};
  expect_matches_reference<double, 3>(this->ctx, extents(6, 8, 33), mixed);
  Boundary<2> one_cell = Boundary<2>::all({BcKind::wall, 0.0});
  expect_matches_reference<double, 2>(this->ctx, extents(1, 5), one_cell);  // a cell walled on both sides
  expect_matches_reference<double, 1>(this->ctx, extents(17), Boundary<1>::all({BcKind::wall, 0.0}));
}

TYPED_TEST(FluxPassTest, TotalConservedToRoundingBetweenWalls) {
  const Grid<3> g = Grid<3>::uniform(extents(12, 10, 40), {1.2, 1.0, 4.0});
  Field<double, 3> u(this->ctx, g), un(this->ctx, g);
  fill_uniform(u, 0.0, 1.0);
  const Boundary<3> bc = Boundary<3>::all({BcKind::wall, 0.0});
  const FluxStep<double, 3> step{upwind<double, 3>(g), Spacing<double, 3>::of(g), 0.04};
  const long double m0 = total(u);
  for (int n = 0; n < 200; ++n) {
    flux_step(this->ctx, u, un, bc, step, g.interior());
    std::swap(u, un);
  }
  const long double m1 = total(u);
  EXPECT_LT(std::fabs(double(m1 - m0)), 1e-12 * double(m0)) << "mass " << double(m0) << " -> " << double(m1);
  // the walls hold it: with dirichlet faces in place of two walls it leaks
  Boundary<3> open = bc;
  open.hi[0] = open.lo[0] = {BcKind::dirichlet, 0.0};
  for (int n = 0; n < 20; ++n) {
    flux_step(this->ctx, u, un, open, step, g.interior());
    std::swap(u, un);
  }
  EXPECT_GT(std::fabs(double(total(u) - m1)), 1e-6 * double(m0));
}

TYPED_TEST(FluxPassTest, ABoxInPiecesIsTheWholeBox) {
  const Grid<2> g = Grid<2>::uniform(extents(21, 34), {2.1, 3.4});
  Field<double, 2> u(this->ctx, g), whole(this->ctx, g), pieces(this->ctx, g);
  fill_uniform(u, 0.0, 1.0);
  const Boundary<2> bc = Boundary<2>::all({BcKind::wall, 0.0});
  const FluxStep<double, 2> step{upwind<double, 2>(g), Spacing<double, 2>::of(g), 0.05};
  flux_step(this->ctx, u, whole, bc, step, g.interior());
  for (const Box<2>& b : {Box<2>{{0, 0}, {21, 1}}, Box<2>{{0, 1}, {1, 33}}, Box<2>{{1, 1}, {20, 33}},
                          Box<2>{{20, 1}, {21, 33}}, Box<2>{{0, 33}, {21, 34}}})
    flux_step(this->ctx, u, pieces, bc, step, b);
  EXPECT_EQ(interior(whole), interior(pieces));
}

TEST(FluxPassWalls, SharedFacesAreNeverWalls) {
  const Boundary<2> bc = Boundary<2>::all({BcKind::wall, 0.0});
  Subdomain left;
  left.neighbour[1][1] = 1;  // the high face of dimension 1 is shared with rank 1
  const Walls w = wall_faces(bc, left);
  EXPECT_TRUE(w.lo(0) && w.hi(0) && w.lo(1));
  EXPECT_FALSE(w.hi(1));
  Boundary<2> periodic = bc;
  periodic.lo[0] = periodic.hi[0] = {BcKind::periodic, 0.0};
  const Walls p = wall_faces(periodic, Subdomain{});
  EXPECT_FALSE(p.lo(0) || p.hi(0));
  EXPECT_TRUE(p.lo(1) && p.hi(1));
  const Boundary<2> ghosts = wall_ghosts_copy_cells(bc);
  EXPECT_EQ(ghosts.lo[0].kind, BcKind::neumann);
  EXPECT_EQ(ghosts.hi[1].value, 0.0);
}
