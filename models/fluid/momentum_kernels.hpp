#pragma once
// The 2D fluid's momentum and dye update on the MAC grid (fluid_kernels.hpp describes the
// storage), its cpu row form, and the implicit viscous operator.
#include <type_traits>

#include "core/mesh/grid.hpp"
#include "models/fluid/mac_operators.hpp"
#include "solvers/poisson.hpp"

namespace sim::fluid {

/// Advection + diffusion of the face velocities and the dye, one stage:
///   velocity  out = w out0 + a in - c_adv adv(in) + c_visc nu lap(in) - c_p grad(p)
///   dye       out = w_dye d0 + (1 - w_dye) (d + dt rhs_d(d))
/// and, when carry is set, carry = in + h_carry (nu lap(in) - adv(in) - grad(p)) for a later
/// stage. grad(p) is the projection's face gradient (the incremental pressure form of the
/// implicit-viscosity schemes; c_p = 0 and no carry leave p unread). c_outflow = theta dt nu
/// before an implicit viscous solve with an outflow: the solve's operator extrapolates the
/// outflow face u(nx) = u(nx - 1) (symmetric), the explicit rule keeps the last column
/// divergence-free; the difference, taken from the input, is added to the last column so the
/// steady state is the explicit scheme's.
/// The coefficients give forward Euler, the two Heun stages, and the explicit parts of the
/// implicit-viscosity schemes (stage_coefficients.hpp). Advection is conservative, central,
/// blended towards donor-cell by gamma (0: central, second order; 1: upwind, robust; the
/// pointwise forms are in mac_operators.hpp). Faces closed to flow (walls, obstacles: link
/// coefficient 0) get 0; the ghost fill then sets boundary faces.
template <class T>
struct MomentumStage {
  View<const T, 2> u, v, d, u0, v0, d0;
  View<T, 2> uo, vo, dout, cu, cv;
  View<const T, 2> p;
  solvers::PoissonStencil<T> links;
  T inv_hx, inv_hy, inv_hx2, inv_hy2, nu, kappa;
  T gamma, w, a, w_dye;
  /// The time step is read from memory (a StepInput), so a recorded step replays with the
  /// current one; the dt-proportional coefficients are these factors times dt (c_outflow:
  /// f_outflow dt nu), rounded as the host would round them.
  const double* dt;
  double f_adv, f_visc, f_p, f_carry, f_outflow, nu_d;
  bool carry;
  index_t nx, ny;
  bool dye = true;  ///< false: a run without dye leaves d and dout alone (both stay 0)

  SIM_INLINE MacSpacing<T, 2> spacing() const { return {{inv_hx, inv_hy}, {inv_hx2, inv_hy2}}; }
  /// The velocity's components; u, v, d (and the fields read beside them) share one layout.
  SIM_INLINE Velocity<T, 2> velocity() const { return {{u, v}}; }
  SIM_INLINE T adv_u(index_t i, index_t j) const { return advection<0, Flux::blended>(velocity(), position(u, i, j), spacing(), gamma); }
  SIM_INLINE T adv_v(index_t i, index_t j) const { return advection<1, Flux::blended>(velocity(), position(u, i, j), spacing(), gamma); }
  SIM_INLINE T lap(const View<const T, 2>& f, index_t i, index_t j) const { return laplacian(f, position(f, i, j), spacing()); }
  /// Dye: donor-cell fluxes (bounded), plus diffusion.
  SIM_INLINE T rhs_d(index_t i, index_t j) const { return dye_rate(velocity(), d, position(u, i, j), spacing(), kappa); }
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const double step = *dt;
    const T c_adv = T(f_adv * step), c_visc = T(f_visc * step), c_p = T(f_p * step), h_carry = T(f_carry * step);
    const T c_outflow = T(f_outflow * step * nu_d), dt_dye = T(step);
    const bool pressure = carry || c_p != T(0);
    if (const T link = links.link_x(i, j); link == T(0)) {
      uo(i, j) = T(0);
    } else {
      const T adv = adv_u(i, j), visc = nu * lap(u, i, j), c = u(i, j);
      const T grad = pressure ? link * face_gradient<0>(links.at(p, i - 1, j), links.at(p, i, j), spacing()) : T(0);
      uo(i, j) = (w != T(0) ? w * u0(i, j) : T(0)) + a * c - c_adv * adv + c_visc * visc - c_p * grad;
      if (carry) cu(i, j) = c + h_carry * (visc - adv - grad);
      if (c_outflow != T(0) && i == nx - 1) uo(i, j) += c_outflow * inv_hx2 * (u(nx, j) - c);
    }
    if (const T link = links.link_y(i, j); link == T(0)) {
      vo(i, j) = T(0);
    } else {
      const T adv = adv_v(i, j), visc = nu * lap(v, i, j), c = v(i, j);
      const T grad = pressure ? link * face_gradient<1>(links.at(p, i, j - 1), links.at(p, i, j), spacing()) : T(0);
      vo(i, j) = (w != T(0) ? w * v0(i, j) : T(0)) + a * c - c_adv * adv + c_visc * visc - c_p * grad;
      if (carry) cv(i, j) = c + h_carry * (visc - adv - grad);
    }
    if (dye)
      dout(i, j) = links.solid(i, j) ? T(0)
                                     : (w_dye != T(0) ? w_dye * d0(i, j) : T(0)) + (T(1) - w_dye) * (d(i, j) + dt_dye * rhs_d(i, j));
  }
};

/// The cpu backend's form of a MomentumStage without carry, pressure gradient, outflow term,
/// per-face links (obstacles) or dye (the explicit schemes' stages on a rectangle): whole rows
/// (core/cpu/for_each.hpp), the link and weight choices made once a row, the unit stride along
/// j known to the compiler (a local copy of the views), so that g++ vectorises the row's
/// cells. Each face's value is MomentumStage's own expression (its helpers, the same order of
/// operations, the zero pressure term kept): the same bits. Not used on GPUs.
template <class T>
struct MomentumRows {
  MomentumStage<T> k;
  /// True when k is such a stage on unit-stride rows.
  static bool applies(const MomentumStage<T>& k) {
    return !k.carry && k.f_p == 0 && !(k.f_outflow * k.nu_d != 0) && !k.links.has_links && !k.dye && k.u.stride[1] == 1 &&
           k.v.stride[1] == 1 && k.u0.stride[1] == 1 && k.v0.stride[1] == 1 && k.uo.stride[1] == 1 && k.vo.stride[1] == 1;
  }
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
  __attribute__((flatten))
#endif
  void row(index_t i, index_t j0, index_t j1) const {
    MomentumStage<T> s = k;
    s.u.stride[1] = s.v.stride[1] = s.u0.stride[1] = s.v0.stride[1] = s.uo.stride[1] = s.vo.stride[1] = 1;
    const double step = *s.dt;
    const T c_adv = T(s.f_adv * step), c_visc = T(s.f_visc * step), c_p = T(s.f_p * step), grad = T(0);
    const T w = s.w, a = s.a, nu = s.nu, lx = s.links.link_x(i, 0);
    const T ly_lo = s.links.side_c[2];  // (rows run over j < ny: the high side's link is not read)
    auto cells = [&](auto with_base) {
      constexpr bool base = decltype(with_base)::value;
      if (lx == T(0)) {
        for (index_t j = j0; j < j1; ++j) s.uo(i, j) = T(0);
      } else {
#pragma omp simd
        for (index_t j = j0; j < j1; ++j) {
          const T adv = s.adv_u(i, j), visc = nu * s.lap(s.u, i, j), c = s.u(i, j);
          s.uo(i, j) = (base ? w * s.u0(i, j) : T(0)) + a * c - c_adv * adv + c_visc * visc - c_p * grad;
        }
      }
      auto v_face = [&](index_t j) {
        const T adv = s.adv_v(i, j), visc = nu * s.lap(s.v, i, j), c = s.v(i, j);
        return (base ? w * s.v0(i, j) : T(0)) + a * c - c_adv * adv + c_visc * visc - c_p * grad;
      };
      index_t j = j0;
      if (j == 0 && j < j1) s.vo(i, 0) = ly_lo == T(0) ? T(0) : v_face(0), ++j;  // links.link_y(i, 0)
#pragma omp simd
      for (index_t jj = j; jj < j1; ++jj) s.vo(i, jj) = v_face(jj);  // link 1 for 0 < j < ny
    };
    if (w != T(0)) cells(std::true_type{});
    else cells(std::false_type{});
  }
};

/// The implicit viscous operator on face velocities, out = p - s lap(p) on open faces and
/// out = p on closed ones (fixed values: walls, inflow, obstacles). With p's ghosts filled by
/// the homogeneous boundary rules it is symmetric positive definite on the open faces.
template <class T>
struct ViscousApply {
  View<const T, 2> pu, pv;
  View<T, 2> au, av;
  solvers::PoissonStencil<T> links;
  T s_x, s_y;  ///< theta dt nu / h^2 per direction
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T s[2] = {s_x, s_y};
    au(i, j) = links.link_x(i, j) == T(0) ? pu(i, j) : viscous_operator(pu, position(pu, i, j), s);
    av(i, j) = links.link_y(i, j) == T(0) ? pv(i, j) : viscous_operator(pv, position(pv, i, j), s);
  }
};

/// The outflow face in the incremental pressure form, over rows j: the predictor's
/// zero-gradient copy u(nx, j) = u(nx - 1, j) carries face nx - 1's old pressure gradient;
/// exchange it for face nx's own, so the face is extrapolated without pressure, as when
/// the predictor carries none.
template <class T>
struct OutflowPressureFace {
  View<T, 2> u;
  View<const T, 2> p;
  solvers::PoissonStencil<T> links;
  const double* dt;  ///< read from memory (StepInput)
  double hx;
  SIM_INLINE void operator()(index_t j) const {
    const T dt_hx = T(*dt / hx);
    const index_t n = links.nx;
    const T inner = links.link_x(n - 1, j) * (links.at(p, n - 1, j) - links.at(p, n - 2, j));
    const T outer = links.link_x(n, j) * (links.at(p, n, j) - links.at(p, n - 1, j));
    u(n, j) += dt_hx * (inner - outer);
  }
};

}  // namespace sim::fluid
