#pragma once
// sim::diffusion_stage: one explicit stage of du/dt = alpha lap u + s as a single pass:
//   out = w u0 + (1 - w) (v + dt (alpha lap v + s))
// over the interior (v's ghosts filled first). The GPU runs a hand-tuned 2D/3D kernel
// (core/cuda/diffusion.cuh); the CPU, and 1D, run the plain for_each form below.
// The last (contiguous) dimension's physical faces may be given as rules (LastDimFaces):
// the pass then applies them itself, so v needs only fill_ghosts(v, bc, Rank - 1). Its
// strided faces are the costly part of a separate fill (one sector per row, twice).
#include <stdexcept>

#include "core/boundary.hpp"
#include "core/for_each.hpp"
#include "core/stencil.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/diffusion.cuh"
#endif

namespace sim {
inline namespace SIM_TU_NS {

/// The last dimension's faces of a diffusion_stage box: where a rule is `on`, the stage
/// applies it instead of reading v's ghosts. period: the grid's extent in that dimension.
template <class T>
struct LastDimFaces {
  FaceRule<T> lo, hi;
  index_t period = 0;
};

/// v as the stencil reads it, with the ruled ghosts of the last dimension computed
/// (n: the box's extent in that dimension).
template <class T, int Rank>
struct RuledView {
  View<const T, Rank> v;
  LastDimFaces<T> faces;
  index_t n;
  template <class... I>
  SIM_INLINE T operator()(I... i) const {
    index_t p[Rank] = {index_t(i)...};
    const index_t k = p[Rank - 1];
    if (k < 0 && faces.lo.on) return ruled(faces.lo, p, faces.lo.periodic ? k + faces.period : 0);
    if (k >= n && faces.hi.on) return ruled(faces.hi, p, faces.hi.periodic ? k - faces.period : n - 1);
    return v(i...);
  }
  SIM_INLINE T ruled(const FaceRule<T>& f, index_t* p, index_t q) const {
    p[Rank - 1] = q;
    T x;
    if constexpr (Rank == 1) x = v(p[0]);
    if constexpr (Rank == 2) x = v(p[0], p[1]);
    if constexpr (Rank == 3) x = v(p[0], p[1], p[2]);
    return f.sign * x + f.add;
  }
};

/// The pointwise form of the stage, for the CPU and for 1D (V: a View, or a RuledView).
template <class T, int Rank, class V = View<const T, Rank>>
struct DiffusionStageFn {
  V v;
  View<const T, Rank> u0, src;
  View<T, Rank> out;
  Spacing<T, Rank> s;
  T alpha_dt, dt, w;
  bool has_src, has_u0;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    T next = v(i...) + alpha_dt * laplacian(v, i..., s);
    if (has_src) next += dt * src(i...);
    out(i...) = has_u0 ? w * u0(i...) + (T(1) - w) * next : next;
  }
};

/// out = w u0 + (1 - w)(v + alpha dt lap v + dt src) on the interior of v's grid; src and u0
/// may be null views (has_src / w == 0). Fields must share one grid. faces: the last
/// dimension's rules, applied in place of v's ghosts where on.
template <class T, int Rank>
void diffusion_stage(const Context& ctx, const Grid<Rank>& g, View<const T, Rank> v, View<T, Rank> out,
                     View<const T, Rank> u0, View<const T, Rank> src, bool has_src, T alpha, T dt, T w,
                     const LastDimFaces<T>& faces = {}) {
  const Spacing<T, Rank> s = Spacing<T, Rank>::of(g);
  const bool has_u0 = w != T(0);
#if SIM_TU_HAS_CUDA
  auto same_layout = [&](const auto& x) {
    for (int d = 0; d < Rank; ++d)
      if (x.stride[d] != v.stride[d]) return false;
    return true;
  };
  if (ctx.is_cuda() && Rank >= 2 && v.stride[Rank - 1] == 1 && same_layout(out) && (!has_u0 || same_layout(u0)) &&
      (!has_src || same_layout(src))) {
    gpu::DiffusionArgs<T> a;
    a.v = v.ptr, a.u0 = has_u0 ? u0.ptr : v.ptr, a.src = has_src ? src.ptr : v.ptr, a.out = out.ptr;
    a.n0 = g.cells.n[0], a.n1 = g.cells.n[1], a.n2 = Rank > 2 ? g.cells.n[Rank - 1] : 1;
    a.s0 = v.stride[0], a.s1 = Rank > 2 ? v.stride[1] : 0;
    a.c0 = alpha * dt * s.inv_dx2[0], a.c1 = alpha * dt * s.inv_dx2[1], a.c2 = alpha * dt * s.inv_dx2[Rank - 1];
    a.dt = dt, a.w = w, a.has_src = has_src, a.has_u0 = has_u0;
    a.lo = faces.lo, a.hi = faces.hi, a.period = faces.period;
    // offsets reach from one ghost layer before the origin to one after the far corner
    const index_t reach = (g.cells.n[0] + 2) * v.stride[0];
    if (gpu::launch_diffusion_stage(ctx, Rank, a, reach)) return;
  }
#endif
  // the cells next to ruled faces read through a RuledView; the others read v directly
  constexpr int L = Rank - 1;
  const index_t n = g.cells.n[L];
  Box<Rank> middle = g.interior(), low = middle, high = middle;
  if (faces.lo.on) middle.lo[L] = 1;
  if (faces.hi.on) middle.hi[L] = n - 1;
  if (middle.lo[L] > middle.hi[L]) middle.hi[L] = middle.lo[L];  // one cell, ruled on both sides
  low.hi[L] = middle.lo[L], high.lo[L] = middle.hi[L];
  for_each(ctx, "sim::diffusion_stage", middle,
           DiffusionStageFn<T, Rank>{v, u0, src, out, s, alpha * dt, dt, w, has_src, has_u0});
  const RuledView<T, Rank> ruled{v, faces, n};
  for (const Box<Rank>& edge : {low, high})
    for_each(ctx, "sim::diffusion_stage", edge,
             DiffusionStageFn<T, Rank, RuledView<T, Rank>>{ruled, u0, src, out, s, alpha * dt, dt, w, has_src, has_u0});
}

}  // namespace SIM_TU_NS
}  // namespace sim
