#pragma once
// The 2D fluid's physics as pointwise functions on the MAC grid (fluid_kernels.hpp describes
// the storage), shared by the kernels of both backends and by the cpu row forms: advection of
// a face velocity, the Laplacian, the dye's donor-cell flux, the divergence of a cell.
#include "core/mesh/grid.hpp"

namespace sim::fluid {

/// |x| (as the kernels write it on both backends).
template <class T>
SIM_INLINE T magnitude(T x) {
  return x < T(0) ? -x : x;
}

/// Advection of u at its face (i, j): the conservative fluxes through the four sides of the
/// face's control volume, central, blended towards donor-cell by gamma (0: central, 1: upwind).
template <class T>
SIM_INLINE T advection_u(const View<const T, 2>& u, const View<const T, 2>& v, index_t i, index_t j, T gamma, T inv_hx,
                         T inv_hy) {
  const T c = u(i, j);
  const T ue = T(0.5) * (c + u(i + 1, j)), uw = T(0.5) * (u(i - 1, j) + c);
  const T vn = T(0.5) * (v(i - 1, j + 1) + v(i, j + 1)), vs = T(0.5) * (v(i - 1, j) + v(i, j));
  const T un = T(0.5) * (c + u(i, j + 1)), us = T(0.5) * (u(i, j - 1) + c);
  const T duu = (ue * ue - uw * uw + gamma * (magnitude(ue) * T(0.5) * (c - u(i + 1, j)) - magnitude(uw) * T(0.5) * (u(i - 1, j) - c))) * inv_hx;
  const T duv = (vn * un - vs * us + gamma * (magnitude(vn) * T(0.5) * (c - u(i, j + 1)) - magnitude(vs) * T(0.5) * (u(i, j - 1) - c))) * inv_hy;
  return duu + duv;
}

/// Advection of v at its face (i, j), as advection_u with the roles of x and y swapped.
template <class T>
SIM_INLINE T advection_v(const View<const T, 2>& u, const View<const T, 2>& v, index_t i, index_t j, T gamma, T inv_hx,
                         T inv_hy) {
  const T c = v(i, j);
  const T vn = T(0.5) * (c + v(i, j + 1)), vs = T(0.5) * (v(i, j - 1) + c);
  const T ue = T(0.5) * (u(i + 1, j - 1) + u(i + 1, j)), uw = T(0.5) * (u(i, j - 1) + u(i, j));
  const T ve = T(0.5) * (c + v(i + 1, j)), vw = T(0.5) * (v(i - 1, j) + c);
  const T dvv = (vn * vn - vs * vs + gamma * (magnitude(vn) * T(0.5) * (c - v(i, j + 1)) - magnitude(vs) * T(0.5) * (v(i, j - 1) - c))) * inv_hy;
  const T duv = (ue * ve - uw * vw + gamma * (magnitude(ue) * T(0.5) * (c - v(i + 1, j)) - magnitude(uw) * T(0.5) * (v(i - 1, j) - c))) * inv_hx;
  return dvv + duv;
}

/// The 5-point Laplacian of f at (i, j), with inv_hx2 = 1 / hx^2, inv_hy2 = 1 / hy^2.
template <class T>
SIM_INLINE T laplacian(const View<const T, 2>& f, index_t i, index_t j, T inv_hx2, T inv_hy2) {
  const T c = f(i, j);
  return (f(i - 1, j) - T(2) * c + f(i + 1, j)) * inv_hx2 + (f(i, j - 1) - T(2) * c + f(i, j + 1)) * inv_hy2;
}

/// The donor-cell flux of a scalar through a face of velocity vel between the values lo and hi.
template <class T>
SIM_INLINE T donor_cell_flux(T vel, T lo, T hi) {
  return vel > T(0) ? vel * lo : vel * hi;
}

/// The divergence of the face velocities at cell (i, j).
template <class T>
SIM_INLINE T cell_divergence(const View<const T, 2>& u, const View<const T, 2>& v, index_t i, index_t j, T inv_hx, T inv_hy) {
  return (u(i + 1, j) - u(i, j)) * inv_hx + (v(i, j + 1) - v(i, j)) * inv_hy;
}

}  // namespace sim::fluid
