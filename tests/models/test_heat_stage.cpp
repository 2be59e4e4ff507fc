// The heat model's explicit stage (models/heat/heat_stage.hpp, on sim::stencil_pass) with the
// last dimension's face rules applied in the pass: the same bits as filling those ghosts
// first, on every backend (the GPU kernels and the for_each form).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/mesh/boundary.hpp"
#include "core/numerics/random.hpp"
#include "models/heat/heat_stage.hpp"
#include "tests/support/backends.hpp"
#include "tests/support/ruled_faces.hpp"

using namespace sim;

namespace sim_test {

/// out on box, once with every ghost filled and once with the last dimension's faces applied
/// by the pass (their ghosts NaN); returns both interiors (ghosts included) as host vectors.
template <class T, int Rank>
std::pair<std::vector<T>, std::vector<T>> both_ways(const Context& ctx, const Extents<Rank>& cells, const Boundary<Rank>& bc,
                                                    const Box<Rank>& box, bool extras) {
  double len[Rank];
  for (int d = 0; d < Rank; ++d) len[d] = 1.0 + 0.25 * d;
  const Grid<Rank> g = Grid<Rank>::uniform(cells, len);
  Field<T, Rank> u(ctx, g), filled(ctx, g), ruled(ctx, g), out_a(ctx, g), out_b(ctx, g), src(ctx, g);
  fill_uniform(u.storage(), T(-1), T(2));
  fill_uniform(src.storage(), T(0), T(1));
  filled.storage().copy_from(u.storage());
  ruled.storage().copy_from(u.storage());
  out_a.storage().fill(T(0));
  out_b.storage().fill(T(0));
  fill_ghosts(filled, bc);
  poison_last_dim_ghosts(ruled);
  fill_ghosts(ruled, bc, Rank - 1);

  constexpr int L = Rank - 1;
  LastDimFaces<T> faces;
  if (box.lo[L] == 0) faces.lo = face_rule<T>(bc, g, L, 0);
  if (box.hi[L] == cells.n[L]) faces.hi = face_rule<T>(bc, g, L, 1);
  faces.period = cells.n[L];
  const T alpha = T(0.3), dt = T(0.05), w = extras ? T(0.25) : T(0);
  auto stage = [&](Field<T, Rank>& v, Field<T, Rank>& out, const LastDimFaces<T>& f) {
    const Field<T, Rank>& cv = v;
    const Field<T, Rank>& cs = src;
    heat::explicit_stage<T, Rank>(ctx, g, box, cv.view(), out.view(), cv.view(), cs.view(), extras, alpha, dt, w, f);
  };
  stage(filled, out_a, {});
  stage(ruled, out_b, faces);
  return {out_a.to_host_with_ghosts(), out_b.to_host_with_ghosts()};
}

}  // namespace sim_test

template <class B>
class HeatStageTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(HeatStageTest);

TYPED_TEST(HeatStageTest, RuledLastDimensionMatchesFilledGhosts2D) {
  for (const auto& [name, bc] : sim_test::ruled_boundaries<2>()) {
    for (index_t n1 : {1, 37, 70}) {
      const Extents<2> cells = extents(index_t(9), n1);
      const Box<2> whole{{0, 0}, {9, n1}}, rim{{1, 0}, {4, n1}}, inner{{0, 0}, {9, n1 > 2 ? n1 - 2 : n1}};
      for (const Box<2>& box : {whole, rim, inner}) {
        auto [a, b] = sim_test::both_ways<double, 2>(this->ctx, cells, bc, box, box.lo[0] == 1);
        sim_test::expect_values(a, b, name);
        auto [fa, fb] = sim_test::both_ways<float, 2>(this->ctx, cells, bc, box, false);
        sim_test::expect_values(fa, fb, name);
      }
    }
  }
}

TYPED_TEST(HeatStageTest, RuledLastDimensionMatchesFilledGhosts3D) {
  for (const auto& [name, bc] : sim_test::ruled_boundaries<3>()) {
    for (index_t n2 : {1, 33, 64}) {
      const Extents<3> cells = extents(index_t(6), index_t(11), n2);
      const Box<3> whole{{0, 0, 0}, {6, 11, n2}}, rim{{0, 1, 0}, {6, 10, n2}}, inner{{0, 0, 1}, {6, 11, n2}};
      for (const Box<3>& box : {whole, rim, inner}) {
        if (box.size() == 0) continue;
        auto [a, b] = sim_test::both_ways<double, 3>(this->ctx, cells, bc, box, box.lo[1] == 1);
        sim_test::expect_values(a, b, name);
        auto [fa, fb] = sim_test::both_ways<float, 3>(this->ctx, cells, bc, box, true);
        sim_test::expect_values(fa, fb, name);
      }
    }
  }
}

TYPED_TEST(HeatStageTest, RuledFacesLeaveNoGhostUnread) {
  // the poisoned ghosts would turn the edge cells NaN if the pass read them
  const auto bc = Boundary<3>::all({BcKind::dirichlet, 0.0});
  auto [a, b] = sim_test::both_ways<float, 3>(this->ctx, extents(index_t(4), index_t(5), index_t(40)), bc,
                                              Box<3>{{0, 0, 0}, {4, 5, 40}}, false);
  std::size_t nan = 0;
  for (float x : b) nan += std::isnan(x);
  EXPECT_EQ(nan, 0u);
}
