// sim::stencil_pass against a plain for_each reference: several updates (a Laplacian step,
// a two-field reaction-diffusion step, one with fields read at the cell), 1D, 2D and 3D,
// odd sizes, boxes smaller than a tile and boxes touching one face, with the last
// dimension's faces ruled in the pass (periodic, Dirichlet, Neumann, mixed) and their ghosts
// poisoned, against every ghost filled first. The same bits on the CPU; on the GPU (the
// tuned kernel) within a few units in the last place (the compiler may fuse differently).
// 3D boxes of the GPU's paired-column kernel (pair_phase): both phases, even and odd rows,
// partial blocks, two-cell rows, ruled faces; the paired kernel against the unpaired one on
// views whose rows start at an odd column (a ruled low face inside a pair), and layouts that
// take no pairs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "core/mesh/boundary.hpp"
#include "core/numerics/random.hpp"
#include "core/mesh/stencil_pass.hpp"
#include "core/runtime/tuning.hpp"
#include "tests/support/backends.hpp"
#include "tests/support/ruled_faces.hpp"

using namespace sim;

namespace sim_test {

/// out = u + k lap u.
template <class T, int Rank>
struct LaplacianStep {
  Spacing<T, Rank> h;
  T k;
  template <class Cell>
  SIM_INLINE void operator()(const Cell& x) const {
    x.write(0, x.in[0].c + k * laplacian(x.in[0], h));
  }
};

/// Gray-Scott's Euler step: two fields read with neighbours, two written.
template <class T, int Rank>
struct TwoFieldStep {
  Spacing<T, Rank> h;
  T du, dv, f, kill, dt;
  template <class Cell>
  SIM_INLINE void operator()(const Cell& x) const {
    const Star<T, Rank>& u = x.in[0];
    const Star<T, Rank>& v = x.in[1];
    const T uvv = u.c * v.c * v.c;
    x.write(0, u.c + dt * (du * laplacian(u, h) - uvv + f * (T(1) - u.c)));
    x.write(1, v.c + dt * (dv * laplacian(v, h) + uvv - (f + kill) * v.c));
  }
};

/// Gray-Scott's shape with a feed read at the cell: two stars, one point read, two outputs.
template <class T, int Rank>
struct FedTwoFieldStep {
  Spacing<T, Rank> h;
  T du, dv, kill, dt;
  template <class Cell>
  SIM_INLINE void operator()(const Cell& x) const {
    const Star<T, Rank>& u = x.in[0];
    const Star<T, Rank>& v = x.in[1];
    const T f = x.read(0), uvv = u.c * v.c * v.c;
    x.write(0, u.c + dt * (du * laplacian(u, h) - uvv + f * (T(1) - u.c)));
    x.write(1, v.c + dt * (dv * laplacian(v, h) + uvv - (f + kill) * v.c));
  }
};

/// Reads two fields at the cell besides the star: out = a u + (1 - a)(u + lap u) + s.
template <class T, int Rank>
struct PointStep {
  Spacing<T, Rank> h;
  template <class Cell>
  SIM_INLINE void operator()(const Cell& x) const {
    const T a = x.read(0);
    x.write(0, a * x.in[0].c + (T(1) - a) * (x.in[0].c + laplacian(x.in[0], h)) + x.read(1));
  }
};

/// The reference: the update on stars read straight from fully filled views.
template <class T, int Rank, int S, int P, int O, class U>
struct Reference {
  U update;
  Reads<T, Rank, S> in;
  ViewList<View<const T, Rank>, P> point;
  Writes<T, Rank, O> out;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    StencilCell<T, Rank, S, ViewAccess<T, Rank, P, O>> x{{}, {point, out, {index_t(i)...}}};
    for (int s = 0; s < S; ++s) {
      const index_t p[Rank] = {index_t(i)...};
      x.in[s].c = at(in.v[s], p, 0, 0);
      for (int d = 0; d < Rank; ++d) x.in[s].lo[d] = at(in.v[s], p, d, -1), x.in[s].hi[d] = at(in.v[s], p, d, 1);
    }
    update(x);
  }
  SIM_INLINE static T at(const View<const T, Rank>& v, const index_t (&p)[Rank], int d, index_t step) {
    if constexpr (Rank == 1) return v(p[0] + step);
    else if constexpr (Rank == 2) return v(p[0] + (d == 0 ? step : 0), p[1] + (d == 1 ? step : 0));
    else return v(p[0] + (d == 0 ? step : 0), p[1] + (d == 1 ? step : 0), p[2] + (d == 2 ? step : 0));
  }
};

enum class Kind { laplacian, two_fields, point_reads, fed_two_fields };

/// One case: fields of `cells` with random values, the pass over box with the last
/// dimension ruled (its ghosts NaN) against the reference with every ghost filled.
template <class T, int Rank>
void check(const Context& ctx, Kind kind, const Extents<Rank>& cells, const Boundary<Rank>& bc, const Box<Rank>& box,
           const std::string& what) {
  double len[Rank];
  for (int d = 0; d < Rank; ++d) len[d] = 1.0 + 0.25 * d;
  const Grid<Rank> g = Grid<Rank>::uniform(cells, len);
  const Spacing<T, Rank> h = Spacing<T, Rank>::of(g);
  Field<T, Rank> u(ctx, g), v(ctx, g), p0(ctx, g), p1(ctx, g);
  fill_uniform(u.storage(), T(-1), T(2));
  fill_uniform(v.storage(), T(0), T(1));
  fill_uniform(p0.storage(), T(0), T(1));
  fill_uniform(p1.storage(), T(-1), T(1));
  Field<T, Rank> ru(ctx, g), rv(ctx, g);  // the ruled copies
  ru.storage().copy_from(u.storage());
  rv.storage().copy_from(v.storage());
  fill_ghosts(u, bc), fill_ghosts(v, bc);
  poison_last_dim_ghosts(ru), poison_last_dim_ghosts(rv);
  fill_ghosts(ru, bc, Rank - 1), fill_ghosts(rv, bc, Rank - 1);
  const LastDimFaces<T> faces = last_dim_faces<T>(bc, g);

  Field<T, Rank> a0(ctx, g), a1(ctx, g), b0(ctx, g), b1(ctx, g);
  for (Field<T, Rank>* f : {&a0, &a1, &b0, &b1}) f->fill(T(0));
  const Field<T, Rank>&cu = u, &cv = v, &cru = ru, &crv = rv, &cp0 = p0, &cp1 = p1;
  if (kind == Kind::laplacian) {
    const LaplacianStep<T, Rank> up{h, T(0.01)};
    stencil_pass(ctx, "test::laplacian", box, up, reads(cru), writes(a0), faces);
    for_each(ctx, "test::reference", box,
             Reference<T, Rank, 1, 0, 1, LaplacianStep<T, Rank>>{up, reads(cu), {}, writes(b0)});
  } else if (kind == Kind::two_fields) {
    const TwoFieldStep<T, Rank> up{h, T(2e-3), T(1e-3), T(0.04), T(0.06), T(0.5)};
    stencil_pass(ctx, "test::two_fields", box, up, reads(cru, crv), writes(a0, a1), faces);
    for_each(ctx, "test::reference", box,
             Reference<T, Rank, 2, 0, 2, TwoFieldStep<T, Rank>>{up, reads(cu, cv), {}, writes(b0, b1)});
  } else if (kind == Kind::fed_two_fields) {
    const FedTwoFieldStep<T, Rank> up{h, T(2e-3), T(1e-3), T(0.06), T(0.5)};
    stencil_pass(ctx, "test::fed_two_fields", box, up, reads(cru, crv), point_reads(cp0), writes(a0, a1), faces);
    for_each(ctx, "test::reference", box,
             Reference<T, Rank, 2, 1, 2, FedTwoFieldStep<T, Rank>>{up, reads(cu, cv), point_reads(cp0),
                                                                   writes(b0, b1)});
  } else {
    const PointStep<T, Rank> up{h};
    stencil_pass(ctx, "test::point_reads", box, up, reads(cru), point_reads(cp0, cp1), writes(a0), faces);
    for_each(ctx, "test::reference", box,
             Reference<T, Rank, 1, 2, 1, PointStep<T, Rank>>{up, reads(cu), point_reads(cp0, cp1), writes(b0)});
  }
  // the same bits on the CPU; the GPU kernel may fuse multiply-adds otherwise than for_each
  const double tol = ctx.is_cuda() ? 8 * double(std::numeric_limits<T>::epsilon()) : 0;
  expect_values(a0.to_host_with_ghosts(), b0.to_host_with_ghosts(), what + " (pass vs reference, first output)", tol);
  expect_values(a1.to_host_with_ghosts(), b1.to_host_with_ghosts(), what + " (pass vs reference, second output)", tol);
}

/// Every kind of update and boundary on each box, float32 and float64.
template <int Rank>
void check_all(const Context& ctx, const Extents<Rank>& cells, const std::vector<Box<Rank>>& boxes) {
  for (const auto& [name, bc] : ruled_boundaries<Rank>())
    for (const Box<Rank>& box : boxes)
      for (Kind kind : {Kind::laplacian, Kind::two_fields, Kind::point_reads, Kind::fed_two_fields}) {
        const std::string what = name + " " + to_string(cells) + " box " + to_string(box.shape()) + " kind " +
                                 std::to_string(int(kind));
        check<double, Rank>(ctx, kind, cells, bc, box, what + " float64");
        check<float, Rank>(ctx, kind, cells, bc, box, what + " float32");
      }
}

/// The pass on the GPU with the paired-column kernel on or off (elsewhere, or in a host-only
/// build, the pass as it is).
template <class F>
void with_pairs(bool on, const F& run) {
#if SIM_TU_HAS_CUDA
  const sim::tuning::Scoped pairs("SIMKIT_STENCIL_PAIRS", on ? "1" : "0");
  run();
#else
  (void)on;
  run();
#endif
}

/// pair_phase of the pass's fields, as its launch asks it.
template <class T>
int phase_of(std::initializer_list<const T*> ptrs, const View<const T, 3>& v) {
  std::vector<const void*> p(ptrs.begin(), ptrs.end());
  return pair_phase(sizeof(T), p.data(), int(p.size()), v.stride[0], v.stride[1], v.shape.n[2]);
}

/// The Gray-Scott shape (two stars, a point read, two outputs) over box of views whose rows
/// start at column `shift` of their fields (out_shift for the outputs), the last dimension
/// ruled by bc (periodic across the views' rows): the paired kernel against the unpaired one
/// (the same values on the CPU, where neither runs). Expects the pair phase `phase`.
template <class T>
void check_pairs_on_views(const Context& ctx, const Boundary<3>& bc, index_t shift, index_t out_shift,
                          const Box<3>& box, int phase, const std::string& what) {
  const Extents<3> cells = extents(index_t(5), index_t(9), index_t(133));
  const Grid<3> g = Grid<3>::uniform(cells, {1.0, 1.25, 1.5});
  const Spacing<T, 3> h = Spacing<T, 3>::of(g);
  Field<T, 3> u(ctx, g), v(ctx, g), feed(ctx, g);
  fill_uniform(u.storage(), T(-1), T(2));
  fill_uniform(v.storage(), T(0), T(1));
  fill_uniform(feed.storage(), T(0), T(0.1));
  fill_ghosts(u, bc), fill_ghosts(v, bc), fill_ghosts(feed, bc);
  const index_t n2 = 130;  // the views' rows
  auto part = [&](index_t s) { return Box<3>{{0, 0, s}, {cells.n[0], cells.n[1], s + n2}}; };
  const Field<T, 3>&cu = u, &cv = v, &cf = feed;
  const View<const T, 3> iu = cu.view().sub(part(shift)), iv = cv.view().sub(part(shift)),
                         ifeed = cf.view().sub(part(shift));
  LastDimFaces<T> faces = last_dim_faces<T>(bc, g);
  faces.period = n2;
  const FedTwoFieldStep<T, 3> up{h, T(2e-3), T(1e-3), T(0.06), T(0.5)};
  Field<T, 3> a0(ctx, g), a1(ctx, g), b0(ctx, g), b1(ctx, g);
  for (Field<T, 3>* f : {&a0, &a1, &b0, &b1}) f->fill(T(0));
  const View<T, 3> oa0 = a0.view().sub(part(out_shift)), oa1 = a1.view().sub(part(out_shift)),
                   ob0 = b0.view().sub(part(out_shift)), ob1 = b1.view().sub(part(out_shift));
  const View<const T, 3> bu = iu.sub(box);
  EXPECT_EQ(phase_of<T>({bu.ptr, iv.sub(box).ptr, ifeed.sub(box).ptr, View<const T, 3>(oa0).sub(box).ptr,
                         View<const T, 3>(oa1).sub(box).ptr},
                        bu),
            phase)
      << what;
  with_pairs(false, [&] {
    stencil_pass(ctx, "test::unpaired", box, up, reads(iu, iv), point_reads(ifeed), writes(oa0, oa1), faces);
  });
  with_pairs(true, [&] {
    stencil_pass(ctx, "test::paired", box, up, reads(iu, iv), point_reads(ifeed), writes(ob0, ob1), faces);
  });
  // the two kernels evaluate the same update on the same stars; the tolerance only allows
  // the compiler to contract the update's arithmetic otherwise in one of them
  const double tol = ctx.is_cuda() ? 8 * double(std::numeric_limits<T>::epsilon()) : 0;
  expect_values(b0.to_host_with_ghosts(), a0.to_host_with_ghosts(), what + " (paired vs unpaired, first output)", tol);
  expect_values(b1.to_host_with_ghosts(), a1.to_host_with_ghosts(), what + " (paired vs unpaired, second output)", tol);
}

}  // namespace sim_test

template <class B>
class StencilPassTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(StencilPassTest);

TYPED_TEST(StencilPassTest, MatchesReference1D) {
  for (index_t n : {1, 2, 29}) {
    std::vector<Box<1>> boxes = {Box<1>{{0}, {n}}};
    if (n > 2) boxes.push_back(Box<1>{{1}, {n - 1}}), boxes.push_back(Box<1>{{n - 3}, {n}});
    sim_test::check_all<1>(this->ctx, extents(n), boxes);
  }
}

TYPED_TEST(StencilPassTest, MatchesReference2D) {
  // odd sizes, a last dimension of one cell (ruled on both sides), boxes smaller than a tile
  // (32 x 8 threads, up to 8 rows each), boxes touching one face only
  for (const Extents<2>& cells : {extents(index_t(13), index_t(37)), extents(index_t(70), index_t(65)),
                                  extents(index_t(7), index_t(1))}) {
    const index_t n0 = cells.n[0], n1 = cells.n[1];
    std::vector<Box<2>> boxes = {box_of(cells), Box<2>{{1, 0}, {3, n1}}};
    if (n1 > 4) {
      boxes.push_back(Box<2>{{2, 1}, {5, 4}});        // touches no face: smaller than a tile
      boxes.push_back(Box<2>{{0, n1 - 3}, {n0, n1}});  // touches the high face only
      boxes.push_back(Box<2>{{0, 0}, {n0 - 1, 3}});    // the low face only
    }
    sim_test::check_all<2>(this->ctx, cells, boxes);
  }
}

TYPED_TEST(StencilPassTest, MatchesReference3D) {
  for (const Extents<3>& cells : {extents(index_t(5), index_t(11), index_t(33)),
                                  extents(index_t(9), index_t(17), index_t(64)), extents(index_t(3), index_t(4), index_t(1))}) {
    const index_t n0 = cells.n[0], n1 = cells.n[1], n2 = cells.n[2];
    std::vector<Box<3>> boxes = {box_of(cells), Box<3>{{0, 1, 0}, {n0, n1 - 1, n2}}};
    if (n2 > 4) {
      boxes.push_back(Box<3>{{1, 2, 1}, {3, 5, 4}});
      boxes.push_back(Box<3>{{0, 0, n2 - 2}, {n0, n1, n2}});
      boxes.push_back(Box<3>{{1, 0, 0}, {n0, n1, 5}});
    }
    // on the GPU: the paired-column kernel where the layout allows it, and the unpaired one
    for (bool pairs : {true, false})
      sim_test::with_pairs(pairs, [&] { sim_test::check_all<3>(this->ctx, cells, boxes); });
  }
}

TYPED_TEST(StencilPassTest, RuledFacesReadNoGhost) {
  // the poisoned ghosts of the last dimension would turn edge cells NaN if the pass read them
  const Grid<2> g = Grid<2>::uniform(extents(index_t(6), index_t(40)), {1.0, 1.0});
  const Boundary<2> bc = Boundary<2>::all({BcKind::dirichlet, 0.0});
  Field<float, 2> u(this->ctx, g), un(this->ctx, g);
  fill_uniform(u.storage());
  un.fill(0.0f);
  sim_test::poison_last_dim_ghosts(u);
  fill_ghosts(u, bc, 1);
  const LastDimFaces<float> faces = last_dim_faces<float>(bc, g);
  const Field<float, 2>& cu = u;
  stencil_pass(this->ctx, "test::ruled", g.interior(), sim_test::LaplacianStep<float, 2>{Spacing<float, 2>::of(g), 0.1f},
               reads(cu), writes(un), faces);
  std::size_t nan = 0;
  for (float x : un.to_host_with_ghosts()) nan += std::isnan(x);
  EXPECT_EQ(nan, 0u);
}

TYPED_TEST(StencilPassTest, RefusesFieldsOfOtherShapesAndBoxesOutside) {
  const Grid<2> g = Grid<2>::uniform(extents(index_t(6), index_t(8)), {1.0, 1.0});
  const Grid<2> other = Grid<2>::uniform(extents(index_t(6), index_t(9)), {1.0, 1.0});
  Field<double, 2> u(this->ctx, g), un(this->ctx, g), wrong(this->ctx, other);
  const Field<double, 2>& cu = u;
  const sim_test::LaplacianStep<double, 2> up{Spacing<double, 2>::of(g), 0.1};
  EXPECT_THROW(stencil_pass(this->ctx, "test::shapes", g.interior(), up, reads(cu), writes(wrong)), ShapeError);
  EXPECT_THROW(stencil_pass(this->ctx, "test::box", Box<2>{{0, 0}, {7, 8}}, up, reads(cu), writes(un)), ShapeError);
}

TYPED_TEST(StencilPassTest, PairPhaseOfLayouts) {
  // an aligned block: element 0 is even
  alignas(64) static float f[64];
  alignas(64) static double d[64];
  const void* even[] = {f, f + 2, f + 8};
  const void* odd[] = {f + 1, f + 3};
  const void* mixed[] = {f, f + 1};
  const void* unaligned[] = {reinterpret_cast<const char*>(f) + 2};
  EXPECT_EQ(pair_phase(sizeof(float), even, 3, 600, 40, 30), 0);
  EXPECT_EQ(pair_phase(sizeof(float), odd, 2, 600, 40, 30), 1);
  EXPECT_EQ(pair_phase(sizeof(float), odd, 2, 600, 40, 2), 1);
  EXPECT_EQ(pair_phase(sizeof(float), mixed, 2, 600, 40, 30), -1);      // phases differ
  EXPECT_EQ(pair_phase(sizeof(float), even, 3, 601, 40, 30), -1);       // odd s0
  EXPECT_EQ(pair_phase(sizeof(float), even, 3, 600, 41, 30), -1);       // odd s1
  EXPECT_EQ(pair_phase(sizeof(float), even, 3, 600, 40, 1), -1);        // rows of one cell
  EXPECT_EQ(pair_phase(sizeof(float), unaligned, 1, 600, 40, 30), -1);  // not on an element
  const void* deven[] = {d + 4};
  const void* dodd[] = {d + 5, d + 7};
  EXPECT_EQ(pair_phase(sizeof(double), deven, 1, 64, 8, 3), 0);
  EXPECT_EQ(pair_phase(sizeof(double), dodd, 2, 64, 8, 3), 1);
  // fields: rows start aligned (phase 0); a box from an odd column has phase 1
  const Grid<3> g = Grid<3>::uniform(extents(index_t(3), index_t(5), index_t(67)), {1.0, 1.0, 1.0});
  Field<float, 3> u(this->ctx, g), w(this->ctx, g);
  const Field<float, 3>& cu = u;
  const View<const float, 3> v = cu.view();
  const View<const float, 3> at1 = v.sub(Box<3>{{0, 0, 1}, {3, 5, 67}}), at2 = v.sub(Box<3>{{0, 0, 2}, {3, 5, 67}});
  EXPECT_EQ(sim_test::phase_of<float>({v.ptr, View<const float, 3>(w.view()).ptr}, v), 0);
  EXPECT_EQ(sim_test::phase_of<float>({at1.ptr}, at1), 1);
  EXPECT_EQ(sim_test::phase_of<float>({at2.ptr}, at2), 0);
  EXPECT_EQ(sim_test::phase_of<float>({at1.ptr, at2.ptr}, at1), -1);
}

TYPED_TEST(StencilPassTest, MatchesReference3DPairedColumns) {
  // rows of the GPU's paired-column kernel (64 columns a block): phase 0 and 1, even and odd
  // rows, rows not a multiple of 64, two-cell rows, the ruled faces at either end of a pair;
  // planes and rows of whole blocks too (5 x 17: blocks of 8 rows, 4 or 2 planes)
  {
    const Extents<3> cells = extents(index_t(5), index_t(17), index_t(130));
    const index_t n0 = 5, n1 = 17;
    sim_test::check_all<3>(this->ctx, cells,
                           {box_of(cells),                          // phase 0, both faces, 2 cells past 2 blocks
                            Box<3>{{0, 0, 1}, {n0, n1, 129}},       // phase 1, 128 cells: 65 pairs
                            Box<3>{{0, 0, 1}, {n0, n1, 130}},       // phase 1, odd, high face (second of a pair)
                            Box<3>{{0, 0, 2}, {n0, n1, 130}},       // phase 0, two whole blocks, high face
                            Box<3>{{1, 2, 3}, {3, 7, 5}},           // phase 1, two cells
                            Box<3>{{0, 0, 0}, {n0, n1, 2}},         // phase 0, two cells, low face
                            Box<3>{{0, 1, 0}, {n0, n1, 65}},        // phase 0, odd, low face
                            Box<3>{{0, 0, 127}, {n0, n1, 130}},     // phase 1, three cells, high face
                            Box<3>{{0, 0, 128}, {n0, n1, 130}},     // phase 0, two cells, high face
                            Box<3>{{0, 0, 129}, {n0, n1, 130}}});   // one cell: no pairs
  }
  {
    const Extents<3> cells = extents(index_t(2), index_t(5), index_t(67));  // odd: the high face is a pair's first
    sim_test::check_all<3>(this->ctx, cells, {box_of(cells), Box<3>{{0, 0, 3}, {2, 5, 67}}});
  }
}

TYPED_TEST(StencilPassTest, PairedColumnsMatchUnpairedKernel) {
  // views whose rows start at an odd column: the ruled low face is the second cell of the
  // first pair (unreachable with whole fields, whose rows start aligned); outputs at another
  // phase than the inputs take no pairs
  const Box<3> all{{0, 0, 0}, {5, 9, 130}};
  const std::vector<Box<3>> boxes = {all, Box<3>{{1, 1, 0}, {5, 8, 67}}, Box<3>{{0, 0, 0}, {5, 9, 2}},
                                     Box<3>{{0, 2, 64}, {4, 9, 130}}};
  for (const auto& [name, bc] : sim_test::ruled_boundaries<3>())
    for (const Box<3>& box : boxes)
      for (index_t shift : {1, 0})
        for (index_t out_shift : {shift, 1 - shift}) {
          const int phase = out_shift != shift ? -1 : int((shift + box.lo[2]) % 2);
          const std::string what = name + " box " + to_string(box) + " shift " + std::to_string(shift) + "/" +
                                   std::to_string(out_shift);
          sim_test::check_pairs_on_views<float>(this->ctx, bc, shift, out_shift, box, phase, what + " float32");
          sim_test::check_pairs_on_views<double>(this->ctx, bc, shift, out_shift, box, phase, what + " float64");
        }
}
