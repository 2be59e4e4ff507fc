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
  if (ctx.is_cuda() && Rank >= 2 && v.stride[Rank - 1] == 1 && out.stride[Rank - 1] == 1) {
    gpu::DiffusionArgs<T> a;
    a.v = v.ptr, a.u0 = has_u0 ? u0.ptr : v.ptr, a.src = has_src ? src.ptr : v.ptr, a.out = out.ptr;
    a.n0 = g.cells.n[0], a.n1 = Rank > 1 ? g.cells.n[1] : 1, a.n2 = Rank > 2 ? g.cells.n[2] : 1;
    a.sv0 = v.stride[0], a.sv1 = Rank > 2 ? v.stride[1] : 0, a.so0 = out.stride[0], a.so1 = Rank > 2 ? out.stride[1] : 0;
    a.c0 = alpha * dt * s.inv_dx2[0], a.c1 = alpha * dt * s.inv_dx2[Rank > 1 ? 1 : 0];
    a.c2 = alpha * dt * s.inv_dx2[Rank > 2 ? 2 : 0];
    a.dt = dt, a.w = w, a.has_src = has_src, a.has_u0 = has_u0;
    if (Rank == 2) a.n2 = 1;
    gpu::launch_diffusion_stage(ctx, Rank, a);
    return;
  }
#endif
  for_each(ctx, "sim::diffusion_stage", g.interior(),
           DiffusionStageFn<T, Rank>{v, u0, src, out, s, alpha * dt, dt, w, has_src, has_u0});
}

}  // namespace SIM_TU_NS
}  // namespace sim
