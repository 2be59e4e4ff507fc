#pragma once
// sim::diffusion_stage: one explicit stage of du/dt = alpha lap u + s as a single pass:
//   out = w u0 + (1 - w) (v + dt (alpha lap v + s))
// over the interior (v's ghosts filled first). The GPU runs a hand-tuned 2D/3D kernel
// (core/cuda/diffusion.cuh); the CPU, and 1D, run the plain for_each form below.
#include <stdexcept>

#include "core/for_each.hpp"
#include "core/stencil.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/diffusion.cuh"
#endif

namespace sim {
inline namespace SIM_TU_NS {

/// The pointwise form of the stage, for the CPU and for 1D.
template <class T, int Rank>
struct DiffusionStageFn {
  View<const T, Rank> v, u0, src;
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
/// may be null views (has_src / w == 0). Fields must share one grid.
template <class T, int Rank>
void diffusion_stage(const Context& ctx, const Grid<Rank>& g, View<const T, Rank> v, View<T, Rank> out,
                     View<const T, Rank> u0, View<const T, Rank> src, bool has_src, T alpha, T dt, T w) {
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
    // offsets reach from one ghost layer before the origin to one after the far corner
    const index_t reach = (g.cells.n[0] + 2) * v.stride[0];
    if (gpu::launch_diffusion_stage(ctx, Rank, a, reach)) return;
  }
#endif
  for_each(ctx, "sim::diffusion_stage", g.interior(),
           DiffusionStageFn<T, Rank>{v, u0, src, out, s, alpha * dt, dt, w, has_src, has_u0});
}

}  // namespace SIM_TU_NS
}  // namespace sim
