#pragma once
// sim::stencil_pass: one pass over a box of cells through a model's pointwise update, which
// sees each cell's radius-1 star (the cell and its face neighbours) of the fields read with
// neighbours, reads other fields at the cell and writes its results at the cell:
//
//   struct Step {                       // a model's update: a functor, any number of fields
//     T c;
//     template <class Cell>
//     SIM_INLINE void operator()(const Cell& x) const {
//       const Star<T, 2>& u = x.in[0];  // u.c, u.lo[d], u.hi[d]
//       x.write(0, u.c + c * (u.lo[0] + u.hi[0] + u.lo[1] + u.hi[1] - T(4) * u.c));
//     }
//   };
//   stencil_pass(ctx, "model::step", grid.interior(), Step{c}, reads(u), writes(un), faces);
//
// The GPU runs 2D and 3D boxes through the tuned tiled kernel (core/cuda/stencil_pass.cuh):
// the update is inlined into it, so a model gets the rate of a hand-written kernel. The CPU,
// and 1D, run the same update through for_each. The last (contiguous) dimension's physical
// faces may be given as rules (LastDimFaces, from face_rule): the pass then applies them
// itself, so the fields need only fill_ghosts(f, bc, Rank - 1): their strided faces are the
// costly part of a separate fill (one sector per row, twice). Overlap with a ghost exchange:
// halo.overlapped(f, box, [&](const Box<Rank>& b) { stencil_pass(..., b, ...); }).
#include <string>
#include <type_traits>

#include "core/distributed/decomposition.hpp"
#include "core/mesh/boundary.hpp"
#include "core/kernels/for_each.hpp"
#include "core/mesh/grid.hpp"
#include "core/mesh/stencil.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/stencil_pass.cuh"
#endif

namespace sim {

/// The last dimension's faces of the fields a stencil_pass reads with neighbours: where a
/// rule is `on` and the pass's box touches that face, the pass applies the rule instead of
/// reading the ghosts. period: the grid's extent in that dimension (for periodic rules).
template <class T>
struct LastDimFaces {
  FaceRule<T> lo, hi;
  index_t period = 0;
};

/// The rules of both faces of the last dimension of bc on grid g, as a pass applies them.
template <class T, int Rank>
LastDimFaces<T> last_dim_faces(const Boundary<Rank>& bc, const Grid<Rank>& g) {
  return {face_rule<T>(bc, g, Rank - 1, 0), face_rule<T>(bc, g, Rank - 1, 1), g.cells.n[Rank - 1]};
}

/// The rules of the last dimension's faces of this rank's box `sub` (grid g): on the faces
/// that lie on the global boundary only; a face shared with another rank reads the ghosts its
/// halo exchange fills. On one process (sub the whole grid) the same as last_dim_faces(bc, g).
template <class T, int Rank>
LastDimFaces<T> last_dim_faces(const Boundary<Rank>& bc, const Grid<Rank>& g, const Subdomain& sub) {
  LastDimFaces<T> f = last_dim_faces<T>(bc, g);
  f.lo.on = sub.at_boundary(Rank - 1, 0);
  f.hi.on = sub.at_boundary(Rank - 1, 1);
  return f;
}

/// N views of one kind (at least one slot, so that N = 0 compiles).
template <class V, int N>
struct ViewList {
  static constexpr int size = N;
  V v[N > 0 ? N : 1];
};

/// The fields a pass reads with neighbours (reads), reads at the cell (point_reads) and
/// writes (writes). Each takes Fields or views of one element type and rank.
template <class T, int Rank, int N>
using Reads = ViewList<View<const T, Rank>, N>;
template <class T, int Rank, int N>
struct PointReads : ViewList<View<const T, Rank>, N> {};
template <class T, int Rank, int N>
using Writes = ViewList<View<T, Rank>, N>;

namespace detail {
template <class T, int Rank>
View<const T, Rank> read_view(const Field<T, Rank>& f) { return f.view(); }
template <class T, int Rank>
View<const T, Rank> read_view(const View<T, Rank>& v) { return v; }
template <class T, int Rank>
View<const T, Rank> read_view(const View<const T, Rank>& v) { return v; }
template <class T, int Rank>
View<T, Rank> write_view(Field<T, Rank>& f) { return f.view(); }
template <class T, int Rank>
View<T, Rank> write_view(const View<T, Rank>& v) { return v; }
template <class V>
using value_t = std::remove_const_t<typename V::value_type>;
}  // namespace detail

/// The fields read with neighbours: the update's x.in[0], x.in[1], ...
template <class A, class... B>
auto reads(const A& a, const B&... b) {
  using V = decltype(detail::read_view(a));
  return Reads<detail::value_t<V>, V::rank, 1 + int(sizeof...(B))>{{detail::read_view(a), detail::read_view(b)...}};
}
/// The fields read at the cell only: the update's x.read(0), x.read(1), ...
template <class A, class... B>
auto point_reads(const A& a, const B&... b) {
  using V = decltype(detail::read_view(a));
  return PointReads<detail::value_t<V>, V::rank, 1 + int(sizeof...(B))>{{{detail::read_view(a), detail::read_view(b)...}}};
}
/// The fields written at the cell: the update's x.write(0, value), x.write(1, value), ...
template <class A, class... B>
auto writes(A&& a, B&&... b) {
  using V = decltype(detail::write_view(a));
  return Writes<detail::value_t<V>, V::rank, 1 + int(sizeof...(B))>{{detail::write_view(a), detail::write_view(b)...}};
}

/// read(p) and write(o, x) at one cell through views (the for_each path).
template <class T, int Rank, int P, int O>
struct ViewAccess {
  ViewList<View<const T, Rank>, P> point;
  ViewList<View<T, Rank>, O> out;
  index_t p[Rank];
  SIM_INLINE T read(int k) const { return at(point.v[k]); }
  SIM_INLINE void write(int k, T x) const { at(out.v[k]) = x; }
  template <class V>
  SIM_INLINE auto& at(const V& v) const {
    if constexpr (Rank == 1) return v(p[0]);
    else if constexpr (Rank == 2) return v(p[0], p[1]);
    else return v(p[0], p[1], p[2]);
  }
};

inline namespace SIM_TU_NS {

/// The pass as a for_each body (the CPU, 1D, and boxes the tuned kernel does not take).
/// RULED: the cells next to a ruled face of the last dimension (n: the box's extent there).
template <class T, int Rank, int S, int P, int O, class U, bool RULED>
struct StencilPassFn {
  U update;
  Reads<T, Rank, S> in;
  ViewList<View<const T, Rank>, P> point;
  Writes<T, Rank, O> out;
  LastDimFaces<T> faces;
  index_t n;

  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    StencilCell<T, Rank, S, ViewAccess<T, Rank, P, O>> x{{}, {point, out, {index_t(i)...}}};
    for (int s = 0; s < S; ++s) x.in[s] = star(in.v[s], x.at.p);
    update(x);
  }

  SIM_INLINE Star<T, Rank> star(const View<const T, Rank>& v, const index_t (&p)[Rank]) const {
    Star<T, Rank> st;
    st.c = value(v, p, 0, 0);
    for (int d = 0; d < Rank; ++d) st.lo[d] = value(v, p, d, -1), st.hi[d] = value(v, p, d, 1);
    if constexpr (RULED) {
      constexpr int L = Rank - 1;
      if (p[L] == 0 && faces.lo.on) st.lo[L] = ruled(faces.lo, v, p, faces.lo.periodic ? faces.period - 1 : 0);
      if (p[L] == n - 1 && faces.hi.on) st.hi[L] = ruled(faces.hi, v, p, faces.hi.periodic ? n - faces.period : n - 1);
    }
    return st;
  }
  /// v at p moved by step in dimension d.
  SIM_INLINE static T value(const View<const T, Rank>& v, const index_t (&p)[Rank], int d, index_t step) {
    index_t q[Rank];
    for (int e = 0; e < Rank; ++e) q[e] = p[e] + (e == d ? step : 0);
    if constexpr (Rank == 1) return v(q[0]);
    else if constexpr (Rank == 2) return v(q[0], q[1]);
    else return v(q[0], q[1], q[2]);
  }
  /// The rule's value from the cell at index k of the last dimension (fill_ghosts' bits).
  SIM_INLINE static T ruled(const FaceRule<T>& f, const View<const T, Rank>& v, const index_t (&p)[Rank], index_t k) {
    index_t q[Rank];
    for (int e = 0; e < Rank; ++e) q[e] = p[e];
    q[Rank - 1] = k;
    return f.sign * value(v, q, 0, 0) + f.add;
  }
};

/// One pass over box (indices of the fields' views, which must share one shape): for each
/// cell, update(x) with x.in[s] the stars of `in`, x.read(p) the cells of `point` and
/// x.write(o, value) into `out`. Ghosts of `in` must hold what the stars read, except on the
/// last dimension's faces where `faces` has a rule on (and box touches them): there the pass
/// applies the rule. Outputs must not alias the fields read. The update is a functor (its operator() a template on the cell type, marked
/// SIM_INLINE) holding values and views only, never `this`.
template <class T, int Rank, int S, int P, int O, class U>
void stencil_pass(const Context& ctx, const char* name, const Box<Rank>& box, const U& update,
                  const Reads<T, Rank, S>& in, const PointReads<T, Rank, P>& point, const Writes<T, Rank, O>& out,
                  const LastDimFaces<T>& faces = {}) {
  static_assert(std::is_trivially_copyable<U>::value,
                "a stencil_pass update is copied to the GPU: hold values and views, not this or references");
  if (box.size() == 0) return;
  const Extents<Rank> shape = in.v[0].shape;
  auto check = [&](const auto& v, const char* what) {
    if (v.shape != shape)
      throw ShapeError(std::string(name) + ": a field of " + what + " has shape " + to_string(v.shape) +
                       ", the first field read " + to_string(shape) + "; a stencil pass takes fields of one grid");
  };
  for (int s = 0; s < S; ++s) check(in.v[s], "reads()");
  for (int p = 0; p < P; ++p) check(point.v[p], "point_reads()");
  for (int o = 0; o < O; ++o) check(out.v[o], "writes()");
  if (!box_of(shape).contains(box))
    throw ShapeError(std::string(name) + ": box " + to_string(box) + " is not inside the fields' cells " + to_string(shape));
  constexpr int L = Rank - 1;
  const index_t n = shape.n[L];
  LastDimFaces<T> f = faces;  // the rules of the faces box touches
  if (box.lo[L] != 0) f.lo.on = false;
  if (box.hi[L] != n) f.hi.on = false;
  // views moved to the box's first cell
  Reads<T, Rank, S> bin;
  ViewList<View<const T, Rank>, P> bpoint;
  Writes<T, Rank, O> bout;
  for (int s = 0; s < S; ++s) bin.v[s] = in.v[s].sub(box);
  for (int p = 0; p < P; ++p) bpoint.v[p] = point.v[p].sub(box);
  for (int o = 0; o < O; ++o) bout.v[o] = out.v[o].sub(box);
  const Box<Rank> local = box_of(box.shape());
#if SIM_TU_HAS_CUDA
  if constexpr (Rank >= 2) {
    bool same = bin.v[0].stride[L] == 1;
    auto same_layout = [&](const auto& x) {
      for (int d = 0; d < Rank; ++d) same = same && x.stride[d] == bin.v[0].stride[d];
    };
    for (int s = 0; s < S; ++s) same_layout(bin.v[s]);
    for (int p = 0; p < P; ++p) same_layout(bpoint.v[p]);
    for (int o = 0; o < O; ++o) same_layout(bout.v[o]);
    if (ctx.is_cuda() && same) {
      gpu::PassArgs<T, S, P, O, U> a{update, {}, {}, {}, 0, 0, 0, 0, 0, {}, {}, 0};
      for (int s = 0; s < S; ++s) a.in.p[s] = bin.v[s].ptr, a.lo[s] = f.lo, a.hi[s] = f.hi;
      for (int p = 0; p < P; ++p) a.point.p[p] = bpoint.v[p].ptr;
      for (int o = 0; o < O; ++o) a.out.p[o] = bout.v[o].ptr;
      a.n0 = local.hi[0], a.n1 = local.hi[1], a.n2 = Rank > 2 ? local.hi[L] : 1;
      a.s0 = bin.v[0].stride[0], a.s1 = Rank > 2 ? bin.v[0].stride[1] : 0;
      a.period = f.period;
      // offsets reach from one ghost layer before the origin to one after the far corner
      const index_t reach = (local.hi[0] + 2) * a.s0;
      if (gpu::launch_stencil_pass<Rank>(ctx, name, a, reach)) return;
    }
  }
#endif
  // the cells next to ruled faces build their stars with the rules; the others read directly
  const index_t m = local.hi[L];
  Box<Rank> middle = local, low = local, high = local;
  if (f.lo.on) middle.lo[L] = 1;
  if (f.hi.on) middle.hi[L] = m - 1;
  if (middle.lo[L] > middle.hi[L]) middle.hi[L] = middle.lo[L];  // one cell, ruled on both sides
  low.hi[L] = middle.lo[L], high.lo[L] = middle.hi[L];
  for_each(ctx, name, middle, StencilPassFn<T, Rank, S, P, O, U, false>{update, bin, bpoint, bout, f, m});
  for (const Box<Rank>& edge : {low, high})
    for_each(ctx, name, edge, StencilPassFn<T, Rank, S, P, O, U, true>{update, bin, bpoint, bout, f, m});
}

/// The pass without fields read at the cell only.
template <class T, int Rank, int S, int O, class U>
void stencil_pass(const Context& ctx, const char* name, const Box<Rank>& box, const U& update,
                  const Reads<T, Rank, S>& in, const Writes<T, Rank, O>& out, const LastDimFaces<T>& faces = {}) {
  stencil_pass(ctx, name, box, update, in, PointReads<T, Rank, 0>{}, out, faces);
}

}  // namespace SIM_TU_NS
}  // namespace sim
