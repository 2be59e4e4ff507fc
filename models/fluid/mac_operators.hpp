#pragma once
// The fluid's physics as pointwise functions on the MAC grid, once for 2D and 3D, shared by
// both models' kernels on both backends (and by the cpu row forms): the momentum flux through
// a side of a face's control volume (central, and its donor-cell part), the advection of a
// face velocity, the Laplacian, the implicit viscous operator, the divergence of a cell, the
// pressure gradient at a face, the dye's donor-cell flux and rate. Storage (fluid_kernels.hpp,
// fluid3d_kernels.hpp): component c lives on the low c-face of each cell; every velocity field
// (and the dye) of a model shares one layout, so a position is one offset into all of them.
// Components and directions are template arguments, so each use compiles to straight-line code
// (runtime loop indices over the views ran several times slower on the cpu).
#include <type_traits>

#include "core/mesh/grid.hpp"

namespace sim::fluid {

/// A cell or face position of a D-dimensional grid: its indices, and its offset in the one
/// layout the velocity fields share (strides s), so that reaching a neighbour is one addition.
template <int D>
struct Pos {
  index_t p[D];
  index_t o;
  index_t s[D];
  /// The position n cells along dimension d.
  template <int d>
  SIM_INLINE Pos shift(index_t n) const {
    Pos q = *this;
    q.p[d] += n;
    q.o += n * s[d];
    return q;
  }
};

/// Position (i, j) in the layout of f (any of the velocity fields).
template <class V>
SIM_INLINE Pos<2> position(const V& f, index_t i, index_t j) {
  return Pos<2>{{i, j}, f.offset(i, j), {f.stride[0], f.stride[1]}};
}
/// Position (i, j, k) in the layout of f.
template <class V>
SIM_INLINE Pos<3> position(const V& f, index_t i, index_t j, index_t k) {
  return Pos<3>{{i, j, k}, f.offset(i, j, k), {f.stride[0], f.stride[1], f.stride[2]}};
}

/// f at position q; f has the velocity fields' layout.
template <class T, int D>
SIM_INLINE T at(const View<const T, D>& f, const Pos<D>& q) {
  return f.ptr[q.o];
}
/// The element of f at q, to write; f has the velocity fields' layout.
template <class T, int D>
SIM_INLINE T& ref(const View<T, D>& f, const Pos<D>& q) {
  return f.ptr[q.o];
}

/// The D velocity components (read-only views of one layout).
template <class T, int D>
struct Velocity {
  View<const T, D> c[D];
};

/// True when the views share one layout (shape and strides), as the positions' offsets assume.
template <class V, class... W>
bool same_layout(const V& first, const W&... rest) {
  auto same = [&](const auto& w) {
    for (int d = 0; d < V::rank; ++d)
      if (w.stride[d] != first.stride[d] || w.shape.n[d] != first.shape.n[d]) return false;
    return true;
  };
  return (same(rest) && ...);
}

/// Grid spacing as kernels use it: 1 / h and 1 / h^2 per dimension.
template <class T, int D>
struct MacSpacing {
  T inv_h[D], inv_h2[D];
};

/// |x| (as the kernels write it on both backends).
template <class T>
SIM_INLINE T magnitude(T x) {
  return x < T(0) ? -x : x;
}

/// The velocity carrying momentum component c through the low d-side of the control volume
/// around the c-face q: the mean of the two d-faces straddling that side.
template <int c, int d, class T, int D>
SIM_INLINE T carrier(const Velocity<T, D>& vel, const Pos<D>& q) {
  return T(0.5) * (at(vel.c[d], q.template shift<c>(-1)) + at(vel.c[d], q));
}

/// The central flux of momentum component c through the low d-side of the c-face q's control
/// volume: the carrier times component c there (the mean of its two nearest values along d).
/// For d == c both means are the same: the square of the cell-centred c-velocity.
template <int c, int d, class T, int D>
SIM_INLINE T momentum_flux(const Velocity<T, D>& vel, const Pos<D>& q) {
  const T carried = T(0.5) * (at(vel.c[c], q.template shift<d>(-1)) + at(vel.c[c], q));
  return carrier<c, d>(vel, q) * carried;
}

/// The donor-cell part of the same side's flux: |carrier| times half the jump of component c
/// across the side (added to the central flux times gamma, it gives the upwind cell's value at
/// gamma = 1).
template <int c, int d, class T, int D>
SIM_INLINE T momentum_flux_upwind(const Velocity<T, D>& vel, const Pos<D>& q) {
  return magnitude(carrier<c, d>(vel, q)) * T(0.5) * (at(vel.c[c], q.template shift<d>(-1)) - at(vel.c[c], q));
}

/// How advection's fluxes are formed: central (second order), or central blended towards
/// donor-cell by a weight gamma (0: central, 1: upwind; the blend's terms are evaluated even at 0).
enum class Flux { central, blended };

/// The net flux of momentum component c through the two d-sides of the c-face q's control
/// volume, over h_d: central, or blended towards donor-cell by gamma.
template <int c, int d, Flux flux, class T, int D>
SIM_INLINE T momentum_flux_difference(const Velocity<T, D>& vel, const Pos<D>& q, const MacSpacing<T, D>& h, T gamma) {
  const Pos<D> hi = q.template shift<d>(1);
  if constexpr (flux == Flux::central) {
    return (momentum_flux<c, d>(vel, hi) - momentum_flux<c, d>(vel, q)) * h.inv_h[d];
  } else {
    return (momentum_flux<c, d>(vel, hi) - momentum_flux<c, d>(vel, q) +
            gamma * (momentum_flux_upwind<c, d>(vel, hi) - momentum_flux_upwind<c, d>(vel, q))) *
           h.inv_h[d];
  }
}

/// div(u u_c) at the c-face q: the net momentum flux out of its control volume over its volume
/// (gamma: the donor-cell weight of Flux::blended). In 2D the own direction's term comes first
/// (the order the 2D model has always summed in: on GPUs, which fuse multiply-adds, the order
/// of a sum of products decides which product fuses), in 3D the directions in order.
template <int c, Flux flux = Flux::central, class T, int D>
SIM_INLINE T advection(const Velocity<T, D>& vel, const Pos<D>& q, const MacSpacing<T, D>& h, T gamma = T(0)) {
  if constexpr (D == 2) {
    return momentum_flux_difference<c, c, flux>(vel, q, h, gamma) + momentum_flux_difference<c, 1 - c, flux>(vel, q, h, gamma);
  } else {
    return momentum_flux_difference<c, 0, flux>(vel, q, h, gamma) + momentum_flux_difference<c, 1, flux>(vel, q, h, gamma) +
           momentum_flux_difference<c, 2, flux>(vel, q, h, gamma);
  }
}

/// The second difference of f at q along d (centre: f at q), over h_d^2.
template <int d, class T, int D>
SIM_INLINE T second_difference(const View<const T, D>& f, const Pos<D>& q, T centre, const MacSpacing<T, D>& h) {
  return (at(f, q.template shift<d>(-1)) - T(2) * centre + at(f, q.template shift<d>(1))) * h.inv_h2[d];
}

/// The 5-point (2D) or 7-point (3D) Laplacian of f at q.
template <class T, int D>
SIM_INLINE T laplacian(const View<const T, D>& f, const Pos<D>& q, const MacSpacing<T, D>& h) {
  const T centre = at(f, q);
  if constexpr (D == 2) return second_difference<0>(f, q, centre, h) + second_difference<1>(f, q, centre, h);
  else return second_difference<0>(f, q, centre, h) + second_difference<1>(f, q, centre, h) + second_difference<2>(f, q, centre, h);
}

/// The implicit viscous operator f - sum_d s_d (second difference of f along d) at q, with
/// s_d = theta dt nu / h_d^2 (the operator (I - theta dt nu L) of the viscous solves).
template <class T, int D>
SIM_INLINE T viscous_operator(const View<const T, D>& f, const Pos<D>& q, const T (&s)[D]) {
  const T c = at(f, q);
  auto second = [&](auto dim) {
    constexpr int d = decltype(dim)::value;
    return s[d] * (at(f, q.template shift<d>(-1)) - T(2) * c + at(f, q.template shift<d>(1)));
  };
  if constexpr (D == 2) return c - (second(std::integral_constant<int, 0>{}) + second(std::integral_constant<int, 1>{}));
  else
    return c - (second(std::integral_constant<int, 0>{}) + second(std::integral_constant<int, 1>{}) +
                second(std::integral_constant<int, 2>{}));
}

/// The difference of velocity component d across cell q along d, over h_d; the face above q
/// read `up` cells along d (1, or 1 - n where a periodic side wraps it to the first cell's face).
template <int d, class T, int D>
SIM_INLINE T outflow(const Velocity<T, D>& vel, const Pos<D>& q, const MacSpacing<T, D>& h, index_t up = 1) {
  return (at(vel.c[d], q.template shift<d>(up)) - at(vel.c[d], q)) * h.inv_h[d];
}

/// The divergence of the face velocities in cell q.
template <class T, int D>
SIM_INLINE T divergence(const Velocity<T, D>& vel, const Pos<D>& q, const MacSpacing<T, D>& h) {
  if constexpr (D == 2) return outflow<0>(vel, q, h) + outflow<1>(vel, q, h);
  else return outflow<0>(vel, q, h) + outflow<1>(vel, q, h) + outflow<2>(vel, q, h);
}

/// divergence() in a box that wraps along the dimensions d with n[d] > 0 (n[d] cells): the face
/// above a last cell along such a d is read as the first cell's low face it copies (no ghost
/// fill before it); along a d with n[d] == 0 from the ghost layer, as divergence() does.
template <class T, int D>
SIM_INLINE T periodic_divergence(const Velocity<T, D>& vel, const Pos<D>& q, const MacSpacing<T, D>& h, const index_t (&n)[D]) {
  auto up = [&](int d) { return q.p[d] + 1 == n[d] ? 1 - n[d] : index_t(1); };
  if constexpr (D == 2) return outflow<0>(vel, q, h, up(0)) + outflow<1>(vel, q, h, up(1));
  else return outflow<0>(vel, q, h, up(0)) + outflow<1>(vel, q, h, up(1)) + outflow<2>(vel, q, h, up(2));
}

/// The c-component of grad p at a c-face from the pressures of the cells below and above it.
template <int c, class T, int D>
SIM_INLINE T face_gradient(T below, T above, const MacSpacing<T, D>& h) {
  return (above - below) * h.inv_h[c];
}

/// The donor-cell flux of the dye d through the low c-face of cell q (the upwind cell's value).
template <int c, class T, int D>
SIM_INLINE T dye_flux(const Velocity<T, D>& vel, const View<const T, D>& d, const Pos<D>& q) {
  const T u = at(vel.c[c], q);
  return u > T(0) ? u * at(d, q.template shift<c>(-1)) : u * at(d, q);
}

/// The net donor-cell flux of the dye out of cell q along c (not yet over h_c).
template <int c, class T, int D>
SIM_INLINE T dye_flux_difference(const Velocity<T, D>& vel, const View<const T, D>& d, const Pos<D>& q) {
  return dye_flux<c>(vel, d, q.template shift<c>(1)) - dye_flux<c>(vel, d, q);
}

/// The dye's rate of change in cell q: diffusion kappa lap(d) less the net donor-cell flux out
/// (bounded and conservative).
template <class T, int D>
SIM_INLINE T dye_rate(const Velocity<T, D>& vel, const View<const T, D>& d, const Pos<D>& q, const MacSpacing<T, D>& h, T kappa) {
  const T fx = dye_flux_difference<0>(vel, d, q), fy = dye_flux_difference<1>(vel, d, q);
  if constexpr (D == 2) {
    return kappa * laplacian(d, q, h) - fx * h.inv_h[0] - fy * h.inv_h[1];
  } else {
    const T fz = dye_flux_difference<2>(vel, d, q);
    return kappa * laplacian(d, q, h) - fx * h.inv_h[0] - fy * h.inv_h[1] - fz * h.inv_h[2];
  }
}

}  // namespace sim::fluid
