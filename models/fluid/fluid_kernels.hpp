#pragma once
// Kernels of the incompressible fluid model on a staggered (MAC) grid. Storage: u(i, j) is
// the x-velocity on the low x-face of cell (i, j), v(i, j) the y-velocity on its low y-face;
// both are Fields of the cell grid, so the high faces u(nx, j) and v(i, ny) sit in the ghost
// layer. p and the dye live at cell centres. On several ranks each holds a box of cells; a
// side shared with another rank (Side::internal) is left to the ghost exchange, and the
// high faces u(nx, j), v(i, ny) of such a side are the neighbour's low faces.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/mesh/grid.hpp"
#include "core/numerics/spectral/multiplier2.hpp"
#include "solvers/poisson.hpp"

namespace sim::fluid {

/// What one side of the domain is (sides ordered x-low, x-high, y-low, y-high).
enum class Side { wall, periodic, inflow, outflow, internal };

/// Everything the boundary kernels need (trivially copyable).
template <class T>
struct BoundarySpec {
  Side side[4] = {Side::wall, Side::wall, Side::wall, Side::wall};
  T wall_velocity[4] = {0, 0, 0, 0};  ///< tangential velocity of each wall (the lid: y-high)
  T inflow_velocity = 1;
  bool parabolic = false;  ///< inflow profile: 6 U y (L - y) / L^2 (mean U) instead of uniform U
  int dye_pattern = 0;     ///< inflow dye: 0 none, 1 stripes (of y)
  index_t nx = 0, ny = 0;  ///< this rank's cells
  index_t oy = 0, ny_global = 0;  ///< global index of its first row, and rows of the whole grid
  T hx = 1, hy = 1;

  /// Inflow velocity at the centre of (local) row j.
  SIM_INLINE T inflow_at(index_t j) const {
    if (!parabolic) return inflow_velocity;
    const T L = T(ny_global) * hy, y = (T(j + oy) + T(0.5)) * hy;
    return T(6) * inflow_velocity * y * (L - y) / (L * L);
  }
  /// Dye carried in by the inflow at (local) row j.
  SIM_INLINE T inflow_dye(index_t j) const { return dye_pattern == 1 ? T(((j + oy) * 8 / ny_global) % 2) : T(0); }
};

/// First pass of the ghost fill: the y-sides (rows j = -1 and ny, and the faces v(i, 0), v(i, ny)), for i in [0, nx).
/// keep_u: leaves u(i, -1) and u(i, ny) alone (FillSides: the x-rule sets them).
template <class T>
struct FillYSides {
  BoundarySpec<T> b;
  View<T, 2> u, v, d;
  SIM_INLINE void operator()(index_t i) const { column(i, false); }
  SIM_INLINE void column(index_t i, bool keep_u) const {
    const index_t ny = b.ny;
    if (b.side[2] == Side::periodic) {
      if (!keep_u) u(i, -1) = u(i, ny - 1), u(i, ny) = u(i, 0);
      v(i, -1) = v(i, ny - 1), v(i, ny) = v(i, 0);
      d(i, -1) = d(i, ny - 1), d(i, ny) = d(i, 0);
      return;
    }
    if (b.side[2] != Side::internal) {
      v(i, 0) = T(0), v(i, -1) = -v(i, 1);
      if (!keep_u) u(i, -1) = T(2) * b.wall_velocity[2] - u(i, 0);
      d(i, -1) = d(i, 0);
    }
    if (b.side[3] != Side::internal) {
      v(i, ny) = T(0);
      if (!keep_u) u(i, ny) = T(2) * b.wall_velocity[3] - u(i, ny - 1);
      d(i, ny) = d(i, ny - 1);
    }
  }
};

/// Second pass: the x-sides (columns -1 and nx, faces u(0, j), u(nx, j)), for j in [-1, ny],
/// so the corners take the x-rule applied to the rows the first pass filled (a ghost row of
/// a shared y-side is skipped: the neighbour fills it for its own row, and the exchange
/// brings it). predict: after a momentum update the outflow face is extrapolated (zero
/// gradient) for the projection to correct; otherwise it is set so the last cell column is
/// exactly divergence-free.
template <class T>
struct FillXSides {
  BoundarySpec<T> b;
  View<T, 2> u, v, d;
  bool predict;
  SIM_INLINE void operator()(index_t j) const { row(j, u, v, d); }
  /// The x-rules for row j, reading the cells of columns [0, nx) through U, V, D.
  template <class Read>
  SIM_INLINE void row(index_t j, const Read& U, const Read& V, const Read& D) const {
    const index_t nx = b.nx;
    if (b.side[0] == Side::periodic) {
      u(-1, j) = U(nx - 1, j), u(nx, j) = U(0, j);
      v(-1, j) = V(nx - 1, j), v(nx, j) = V(0, j);
      d(-1, j) = D(nx - 1, j), d(nx, j) = D(0, j);
      return;
    }
    if ((j < 0 && b.side[2] == Side::internal) || (j >= b.ny && b.side[3] == Side::internal)) return;
    const bool in_rows = j >= 0 && j < b.ny;
    if (b.side[0] == Side::inflow) {
      const T uin = in_rows ? b.inflow_at(j) : T(0);
      u(0, j) = uin, u(-1, j) = uin;
      v(-1, j) = -V(0, j);
      d(-1, j) = in_rows ? b.inflow_dye(j) : T(0);
    } else if (b.side[0] == Side::wall) {
      u(0, j) = T(0), u(-1, j) = -U(1, j);
      v(-1, j) = T(2) * b.wall_velocity[0] - V(0, j);
      d(-1, j) = D(0, j);
    }
    if (b.side[1] == Side::internal) return;
    if (b.side[1] == Side::outflow) {
      if (predict || !in_rows) u(nx, j) = U(nx - 1, j);
      else u(nx, j) = U(nx - 1, j) - b.hx / b.hy * (V(nx - 1, j + 1) - V(nx - 1, j));
      v(nx, j) = V(nx - 1, j);
    } else {
      u(nx, j) = T(0);
      v(nx, j) = T(2) * b.wall_velocity[1] - V(nx - 1, j);
    }
    d(nx, j) = D(nx - 1, j);
  }
};

/// A field of (u, v, d) at (i, j), 0 <= i < nx, as FillYSides leaves it: the rows it fills
/// computed from the cells it reads, every other value as stored (one rank: no shared side).
template <class T>
struct AfterYSides {
  enum Component { u_face, v_face, dye };
  BoundarySpec<T> b;
  View<T, 2> f;
  Component c;
  SIM_INLINE T operator()(index_t i, index_t j) const {
    const index_t ny = b.ny;
    if (j > 0 && j < ny) return f(i, j);
    if (b.side[2] == Side::periodic) return j == -1 ? f(i, ny - 1) : j == ny ? f(i, 0) : f(i, j);
    const bool low = b.side[2] != Side::internal, high = b.side[3] != Side::internal;
    if (c == v_face) {
      if ((j == 0 && low) || (j == ny && high)) return T(0);
      return j == -1 && low ? -f(i, 1) : f(i, j);
    }
    if (j == -1 && low) return c == u_face ? T(2) * b.wall_velocity[2] - f(i, 0) : f(i, 0);
    if (j == ny && high) return c == u_face ? T(2) * b.wall_velocity[3] - f(i, ny - 1) : f(i, ny - 1);
    return f(i, j);
  }
};

/// The whole ghost fill in one pass, for one rank with nx, ny >= 2: the values of FillYSides
/// then FillXSides, bit for bit. Points k < nx fill column k's y-sides (but the u faces of
/// column 0 that an inflow or wall x-rule sets); point nx + 1 + j fills row j's x-sides,
/// j in [-1, ny], reading the y-sides' values through AfterYSides instead of waiting for them.
template <class T>
struct FillSides {
  BoundarySpec<T> b;
  View<T, 2> u, v, d;
  bool predict;
  SIM_INLINE void operator()(index_t k) const {
    if (k < b.nx) {
      const bool x_sets_u0 = b.side[0] == Side::inflow || b.side[0] == Side::wall;
      FillYSides<T>{b, u, v, d}.column(k, k == 0 && x_sets_u0);
      return;
    }
    using A = AfterYSides<T>;
    FillXSides<T>{b, u, v, d, predict}.row(k - b.nx - 1, A{b, u, A::u_face}, A{b, v, A::v_face}, A{b, d, A::dye});
  }
};

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
/// implicit-viscosity schemes (fluid.cpp). Advection is conservative, central, blended towards
/// donor-cell by gamma (0: central, second order; 1: upwind, robust). Faces closed to flow
/// (walls, obstacles: link coefficient 0) get 0; the ghost fill then sets boundary faces.
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

  SIM_INLINE T adv_u(index_t i, index_t j) const {
    const T c = u(i, j);
    const T ue = T(0.5) * (c + u(i + 1, j)), uw = T(0.5) * (u(i - 1, j) + c);
    const T vn = T(0.5) * (v(i - 1, j + 1) + v(i, j + 1)), vs = T(0.5) * (v(i - 1, j) + v(i, j));
    const T un = T(0.5) * (c + u(i, j + 1)), us = T(0.5) * (u(i, j - 1) + c);
    const T duu = (ue * ue - uw * uw + gamma * (abs_(ue) * T(0.5) * (c - u(i + 1, j)) - abs_(uw) * T(0.5) * (u(i - 1, j) - c))) * inv_hx;
    const T duv = (vn * un - vs * us + gamma * (abs_(vn) * T(0.5) * (c - u(i, j + 1)) - abs_(vs) * T(0.5) * (u(i, j - 1) - c))) * inv_hy;
    return duu + duv;
  }
  SIM_INLINE T adv_v(index_t i, index_t j) const {
    const T c = v(i, j);
    const T vn = T(0.5) * (c + v(i, j + 1)), vs = T(0.5) * (v(i, j - 1) + c);
    const T ue = T(0.5) * (u(i + 1, j - 1) + u(i + 1, j)), uw = T(0.5) * (u(i, j - 1) + u(i, j));
    const T ve = T(0.5) * (c + v(i + 1, j)), vw = T(0.5) * (v(i - 1, j) + c);
    const T dvv = (vn * vn - vs * vs + gamma * (abs_(vn) * T(0.5) * (c - v(i, j + 1)) - abs_(vs) * T(0.5) * (v(i, j - 1) - c))) * inv_hy;
    const T duv = (ue * ve - uw * vw + gamma * (abs_(ue) * T(0.5) * (c - v(i + 1, j)) - abs_(uw) * T(0.5) * (v(i - 1, j) - c))) * inv_hx;
    return dvv + duv;
  }
  SIM_INLINE T lap(const View<const T, 2>& f, index_t i, index_t j) const {
    const T c = f(i, j);
    return (f(i - 1, j) - T(2) * c + f(i + 1, j)) * inv_hx2 + (f(i, j - 1) - T(2) * c + f(i, j + 1)) * inv_hy2;
  }
  /// Dye: donor-cell fluxes (bounded), plus diffusion.
  SIM_INLINE T rhs_d(index_t i, index_t j) const {
    const T c = d(i, j);
    auto flux = [](T vel, T lo, T hi) { return vel > T(0) ? vel * lo : vel * hi; };
    const T fx = flux(u(i + 1, j), c, d(i + 1, j)) - flux(u(i, j), d(i - 1, j), c);
    const T fy = flux(v(i, j + 1), c, d(i, j + 1)) - flux(v(i, j), d(i, j - 1), c);
    return kappa * lap(d, i, j) - fx * inv_hx - fy * inv_hy;
  }
  SIM_INLINE static T abs_(T x) { return x < T(0) ? -x : x; }
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const double step = *dt;
    const T c_adv = T(f_adv * step), c_visc = T(f_visc * step), c_p = T(f_p * step), h_carry = T(f_carry * step);
    const T c_outflow = T(f_outflow * step * nu_d), dt_dye = T(step);
    const bool pressure = carry || c_p != T(0);
    if (const T link = links.link_x(i, j); link == T(0)) {
      uo(i, j) = T(0);
    } else {
      const T adv = adv_u(i, j), visc = nu * lap(u, i, j), c = u(i, j);
      const T grad = pressure ? link * (links.at(p, i, j) - links.at(p, i - 1, j)) * inv_hx : T(0);
      uo(i, j) = (w != T(0) ? w * u0(i, j) : T(0)) + a * c - c_adv * adv + c_visc * visc - c_p * grad;
      if (carry) cu(i, j) = c + h_carry * (visc - adv - grad);
      if (c_outflow != T(0) && i == nx - 1) uo(i, j) += c_outflow * inv_hx2 * (u(nx, j) - c);
    }
    if (const T link = links.link_y(i, j); link == T(0)) {
      vo(i, j) = T(0);
    } else {
      const T adv = adv_v(i, j), visc = nu * lap(v, i, j), c = v(i, j);
      const T grad = pressure ? link * (links.at(p, i, j) - links.at(p, i, j - 1)) * inv_hy : T(0);
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
  SIM_INLINE static T apply(const View<const T, 2>& f, index_t i, index_t j, T sx, T sy) {
    const T c = f(i, j);
    return c - (sx * (f(i - 1, j) - T(2) * c + f(i + 1, j)) + sy * (f(i, j - 1) - T(2) * c + f(i, j + 1)));
  }
  SIM_INLINE void operator()(index_t i, index_t j) const {
    au(i, j) = links.link_x(i, j) == T(0) ? pu(i, j) : apply(pu, i, j, s_x, s_y);
    av(i, j) = links.link_y(i, j) == T(0) ? pv(i, j) : apply(pv, i, j, s_x, s_y);
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

/// Right-hand side of the pressure equation: b = -div(u) / dt (0 in solid cells).
template <class T>
struct PressureRhs {
  View<const T, 2> u, v;
  View<T, 2> b;
  solvers::PoissonStencil<T> links;
  T inv_hx, inv_hy;
  const double* dt;                  ///< read from memory (StepInput)
  fft::StagedView<T> staged{};       ///< when set, b is also written here: the fused transform solve's gather
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T inv_dt = T(1 / *dt);
    const T value = links.solid(i, j) ? T(0) : -inv_dt * ((u(i + 1, j) - u(i, j)) * inv_hx + (v(i, j + 1) - v(i, j)) * inv_hy);
    b(i, j) = value;
    if (staged.data) staged(i, j) = value;
  }
};

/// The cpu backend's form of PressureRhs without per-face links (no solid cells): whole rows,
/// the row's values vectorised into b, then copied into the staged buffer's (permuted) row.
/// PressureRhs's expression: the same bits. Not used on GPUs.
template <class T>
struct PressureRhsRows {
  PressureRhs<T> k;
  static bool applies(const PressureRhs<T>& k) {
    return !k.links.has_links && k.u.stride[1] == 1 && k.v.stride[1] == 1 && k.b.stride[1] == 1;
  }
  SIM_INLINE void operator()(index_t i, index_t j) const { k(i, j); }
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
  __attribute__((flatten))
#endif
  void row(index_t i, index_t j0, index_t j1) const {
    View<const T, 2> u = k.u, v = k.v;
    View<T, 2> b = k.b;
    u.stride[1] = v.stride[1] = b.stride[1] = 1;
    const T inv_dt = T(1 / *k.dt), inv_hx = k.inv_hx, inv_hy = k.inv_hy;
#pragma omp simd
    for (index_t j = j0; j < j1; ++j) b(i, j) = -inv_dt * ((u(i + 1, j) - u(i, j)) * inv_hx + (v(i, j + 1) - v(i, j)) * inv_hy);
    if (!k.staged.data) return;
    for (index_t j = j0; j < j1; ++j) k.staged(i, j) = b(i, j);
  }
};

/// Divergence of the face velocities at cell centres (0 in solid cells).
template <class T>
struct Divergence {
  View<const T, 2> u, v;
  View<T, 2> out;
  solvers::PoissonStencil<T> links;
  T inv_hx, inv_hy;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    out(i, j) = links.solid(i, j) ? T(0) : (u(i + 1, j) - u(i, j)) * inv_hx + (v(i, j + 1) - v(i, j)) * inv_hy;
  }
};

/// The largest |u| and |v| of a box (the adaptive time step's input).
struct SpeedPair {
  double u, v;
};

/// (|u(i, j)|, |v(i, j)|) for a reduction with LargerSpeeds: both maxima in one pass and one wait.
template <class T>
struct FaceSpeeds {
  View<const T, 2> u, v;
  SIM_INLINE SpeedPair operator()(index_t i, index_t j) const {
    const T a = u(i, j), b = v(i, j);
    return {double(a < T(0) ? -a : a), double(b < T(0) ? -b : b)};
  }
};

/// Componentwise maximum (as ops::Maximum, so the bits match norm_max's).
struct LargerSpeeds {
  SIM_INLINE SpeedPair operator()(const SpeedPair& a, const SpeedPair& b) const {
    return {a.u < b.u ? b.u : a.u, a.v < b.v ? b.v : a.v};
  }
};

/// next_dt()'s formula on the device (one rank): cfl over the advective and diffusive rates,
/// from the speeds a reduction left in memory; the same bits as the host's.
struct CflDt {
  const SpeedPair* speeds;
  double cfl, hx, hy, viscous_rate, u_hint;
  SIM_INLINE double operator()() const {
    const double um = speeds->u < u_hint ? u_hint : speeds->u;  // std::max(u, u_hint)
    return cfl / (um / hx + speeds->v / hy + viscous_rate);
  }
};

/// u -= dt c grad p on every open face, over the box [0, nx] x [0, ny] (u for j < ny, v for i < nx).
/// p is a field's view, or the fused transform solve's staged result, which `store` (when set)
/// then receives on the cells: the solve's scatter fused into the projection.
template <class T, class P = View<const T, 2>>
struct Project {
  View<T, 2> u, v;
  P p;
  solvers::PoissonStencil<T> links;
  const double* dt;  ///< read from memory (StepInput)
  double inv_hx, inv_hy;  ///< 1 / h: dt / h as a product (a double division a cell is costly on GPUs)
  View<T, 2> store{};
  /// Projects the faces at (i, j); returns (|u(i, j)|, |v(i, j)|) after, for the maximum speeds
  /// (0 outside the cells: FaceSpeeds's values, so a reduction fused into the pass gives its bits).
  SIM_INLINE SpeedPair operator()(index_t i, index_t j) const {
    if (store.ptr && i < links.nx && j < links.ny) store(i, j) = p(i, j);
    const T dt_hx = T(*dt * inv_hx), dt_hy = T(*dt * inv_hy);
    if (j < links.ny) {
      const T c = links.link_x(i, j);
      if (c != T(0)) u(i, j) -= dt_hx * c * (links.at(p, i, j) - links.at(p, i - 1, j));
    }
    if (i < links.nx) {
      const T c = links.link_y(i, j);
      if (c != T(0)) v(i, j) -= dt_hy * c * (links.at(p, i, j) - links.at(p, i, j - 1));
    }
    if (i >= links.nx || j >= links.ny) return {0.0, 0.0};
    return FaceSpeeds<T>{u, v}(i, j);
  }
};

/// The cpu backend's form of the fused transform solve's projection (Project on the staged,
/// Makhoul-ordered pressure) on a rectangle without per-face links, periodic or shared sides:
/// whole rows, each pressure row put in natural order once (instead of two permuted reads a
/// face), the faces' updates vectorised, then the row's speeds reduced in Project's order.
/// Each face's value is Project's own expression: the same bits. Not used on GPUs (operator()
/// is Project's, for the instantiation a cuda build makes).
template <class T>
struct ProjectRows {
  Project<T, fft::StagedView<T>> k;
  using cpu_reduce_rows = void;  ///< row(i, j0, j1, op, init) reduces (core/kernels/for_each_reduce.hpp)

  static bool applies(const Project<T, fft::StagedView<T>>& k) {
    const solvers::PoissonStencil<T>& l = k.links;
    return !l.has_links && !l.periodic_x && !l.periodic_y && !l.halo_x[0] && !l.halo_x[1] && !l.halo_y[0] && !l.halo_y[1] &&
           k.u.stride[1] == 1 && k.v.stride[1] == 1 && (!k.store.ptr || k.store.stride[1] == 1);
  }
  SIM_INLINE SpeedPair operator()(index_t i, index_t j) const { return k(i, j); }
  /// The row's faces (j in [j0, j1) of the faces box [0, nx] x [0, ny]).
  void row(index_t i, index_t j0, index_t j1) const { update(i, j0, j1); }
  /// The same, and the row's speeds reduced with op from init, in the order of j.
  template <class Op>
  SpeedPair row(index_t i, index_t j0, index_t j1, const Op& op, SpeedPair init) const {
    update(i, j0, j1);
    const index_t nx = k.links.nx, ny = k.links.ny;
    SpeedPair a = init;
    for (index_t j = j0; j < j1; ++j) a = op(a, i < nx && j < ny ? FaceSpeeds<T>{k.u, k.v}(i, j) : SpeedPair{0.0, 0.0});
    return a;
  }

 private:
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
  __attribute__((flatten))
#endif
  void update(index_t i, index_t j0, index_t j1) const {
    const index_t nx = k.links.nx, ny = k.links.ny;
    static thread_local std::vector<T> rows;  // p(i, .) and p(i - 1, .) in natural order, 0 outside the cells
    if (rows.size() < std::size_t(2 * (ny + 1))) rows.assign(std::size_t(2 * (ny + 1)), T(0));
    T* pc = rows.data();
    T* pl = pc + (ny + 1);
    auto natural = [&](index_t r, T* out) {  // links.at(p, r, j) for j in [0, ny]
      if (r < 0 || r >= nx) {
        for (index_t j = 0; j <= ny; ++j) out[j] = T(0);
        return;
      }
      const T* src = k.p.data + fft::StagedView<T>::position(r, k.p.n1, k.p.permuted) * k.p.n2;
      for (index_t j = 0; j < ny; ++j) out[j] = src[fft::StagedView<T>::position(j, k.p.n2, k.p.permuted)];
      out[ny] = T(0);
    };
    natural(i, pc);
    natural(i - 1, pl);
    View<T, 2> u = k.u, v = k.v, store = k.store;
    u.stride[1] = v.stride[1] = store.stride[1] = 1;
    const index_t jc = std::min(j1, ny);  // faces of cells (j < ny)
    if (store.ptr && i < nx)
#pragma omp simd
      for (index_t j = j0; j < jc; ++j) store(i, j) = pc[j];
    const T dt_hx = T(*k.dt * k.inv_hx), dt_hy = T(*k.dt * k.inv_hy);
    if (const T c = k.links.link_x(i, 0); c != T(0))
#pragma omp simd
      for (index_t j = j0; j < jc; ++j) u(i, j) -= dt_hx * c * (pc[j] - pl[j]);
    if (i >= nx) return;
    auto v_face = [&](index_t j, T c) {
      if (c != T(0)) v(i, j) -= dt_hy * c * (pc[j] - (j > 0 ? pc[j - 1] : T(0)));
    };
    index_t j = j0;
    if (j == 0 && j < j1) v_face(0, k.links.side_c[2]), ++j;
    const index_t je = std::min(j1, ny);
#pragma omp simd
    for (index_t jj = j; jj < je; ++jj) v(i, jj) -= dt_hy * T(1) * (pc[jj] - pc[jj - 1]);  // link 1 for 0 < j < ny
    if (j1 > ny && ny >= j) v_face(ny, k.links.side_c[3]);
  }
};

/// Cell-centred velocity and vorticity (the mean of the four corner circulations) for output.
template <class T>
struct CellOutputs {
  View<const T, 2> u, v;
  View<T, 2> uc, vc, vort;
  T inv_hx, inv_hy;
  SIM_INLINE T corner(index_t i, index_t j) const {
    return (v(i, j) - v(i - 1, j)) * inv_hx - (u(i, j) - u(i, j - 1)) * inv_hy;
  }
  SIM_INLINE void operator()(index_t i, index_t j) const {
    uc(i, j) = T(0.5) * (u(i, j) + u(i + 1, j));
    vc(i, j) = T(0.5) * (v(i, j) + v(i, j + 1));
    vort(i, j) = T(0.25) * (corner(i, j) + corner(i + 1, j) + corner(i, j + 1) + corner(i + 1, j + 1));
  }
};

}  // namespace sim::fluid

namespace sim::fluid {

/// f(i, j) in double (for sums).
template <class T>
struct Value {
  View<const T, 2> f;
  SIM_INLINE double operator()(index_t i, index_t j) const { return double(f(i, j)); }
};

/// f -= sum / cells on the fluid cells, sum read from memory (the Neumann problem's right-hand side made mean-free).
template <class T>
struct RemoveMean {
  View<T, 2> f;
  solvers::PoissonStencil<T> links;
  const double* sum;
  double cells;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T mean = T(*sum / cells);
    f(i, j) = links.has_links ? f(i, j) - mean * links.active(i, j) : f(i, j) - mean;
  }
};

/// p on the fluid cells (0 on solid ones), for its mean.
template <class T>
struct FluidValue {
  View<const T, 2> f;
  solvers::PoissonStencil<T> links;
  SIM_INLINE double operator()(index_t i, index_t j) const {
    return links.has_links ? double(f(i, j) * links.active(i, j)) : double(f(i, j));
  }
};

/// The pressure solve's initial guess, extrapolated in time: p (the latest, made mean-free by
/// *sum / cells when sum is set) and the depth (1 or 3) pressures h1.. before it; out = w0 p +
/// w1 h1 + w2 h2 + w3 h3, then the history shifts (h1 = p, ...). out may be p.
template <class T>
struct ExtrapolatePressure {
  View<T, 2> p, h1, h2, h3, out;
  solvers::PoissonStencil<T> links;
  const double* sum;  // null: p is used as it is
  double cells;
  T w0, w1, w2, w3;
  int depth;  // 3: h2 and h3 too; 1: h1 only (h2, h3 untouched)
  SIM_INLINE void operator()(index_t i, index_t j) const {
    T now = p(i, j);
    if (sum) now -= T(*sum / cells) * (links.has_links ? links.active(i, j) : T(1));
    const T a = h1(i, j);
    if (depth == 3) {
      const T b = h2(i, j), c = h3(i, j);
      out(i, j) = w0 * now + w1 * a + w2 * b + w3 * c;
      h3(i, j) = b, h2(i, j) = a;
    } else {
      out(i, j) = w0 * now + w1 * a;
    }
    h1(i, j) = now;
  }
};

}  // namespace sim::fluid
