#pragma once
// The heat model's explicit stage of du/dt = alpha lap u + s, as a pointwise update run by
// sim::stencil_pass (the core's tuned stencil pass):
//   out = w u0 + (1 - w) (v + dt (alpha lap v + s))
// over a box of v's grid (v's ghosts filled first, or the last dimension's faces ruled).
#include "core/mesh/stencil_pass.hpp"

namespace sim::heat {

/// The update at one cell: v + sum_d c_d (v_lo - 2 v + v_hi) with c_d = alpha dt / dx_d^2,
/// then the source and the u0 blend where the stage has them (EXTRA: point reads 0 = u0 and
/// 1 = src; without, the pass carries neither their registers nor tests).
template <class T, int Rank, bool EXTRA>
struct ExplicitStage {
  T c[Rank];
  T dt, w;
  bool has_src, has_u0;
  template <class Cell>
  SIM_INLINE void operator()(const Cell& x) const {
    const Star<T, Rank>& v = x.in[0];
    T lap = c[0] * (v.lo[0] - T(2) * v.c + v.hi[0]);
    for (int d = 1; d < Rank; ++d) lap = lap + c[d] * (v.lo[d] - T(2) * v.c + v.hi[d]);
    T next = v.c + lap;
    if constexpr (EXTRA) {
      if (has_src) next += dt * x.read(1);
      if (has_u0) next = w * x.read(0) + (T(1) - w) * next;
    }
    x.write(0, next);
  }
};

/// out = w u0 + (1 - w)(v + alpha dt lap v + dt src) on box; src and u0 may be unused views
/// (has_src false / w == 0). faces: the last dimension's rules, applied in place of v's
/// ghosts where on and box touches them.
template <class T, int Rank>
void explicit_stage(const Context& ctx, const Grid<Rank>& g, const Box<Rank>& box, View<const T, Rank> v,
                    View<T, Rank> out, View<const T, Rank> u0, View<const T, Rank> src, bool has_src, T alpha, T dt,
                    T w, const LastDimFaces<T>& faces = {}) {
  const Spacing<T, Rank> s = Spacing<T, Rank>::of(g);
  const bool has_u0 = w != T(0);
  T c[Rank];
  for (int d = 0; d < Rank; ++d) c[d] = alpha * dt * s.inv_dx2[d];
  if (has_src || has_u0) {
    ExplicitStage<T, Rank, true> update{{}, dt, w, has_src, has_u0};
    for (int d = 0; d < Rank; ++d) update.c[d] = c[d];
    stencil_pass(ctx, "heat::stage", box, update, reads(v), point_reads(has_u0 ? u0 : v, has_src ? src : v),
                 writes(out), faces);
  } else {
    ExplicitStage<T, Rank, false> update{{}, dt, w, false, false};
    for (int d = 0; d < Rank; ++d) update.c[d] = c[d];
    stencil_pass(ctx, "heat::stage", box, update, reads(v), writes(out), faces);
  }
}

}  // namespace sim::heat
