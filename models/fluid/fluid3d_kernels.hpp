#pragma once
// Kernels of the 3D incompressible fluid on a staggered (MAC) grid. Storage as in 2D
// (fluid_kernels.hpp): vel[c](i, j, k) is velocity component c on the low c-face of cell
// (i, j, k); the high faces (index n along c) sit in the ghost layer. p lives at cell centres.
// The physics is the pointwise functions both models share (mac_operators.hpp: momentum flux,
// advection, Laplacian, divergence, face gradient, dye flux), which the kernels of both
// backends call; the scheme is the 2D model's (conservative advection, central or blended
// towards donor-cell, the 7-point Laplacian, one exact projection per stage).
#include "core/mesh/grid.hpp"
#include "core/numerics/spectral/multiplier3.hpp"
#include "models/fluid/mac_operators.hpp"
#include "solvers/obstacle_poisson3.hpp"
#include "solvers/transform_poisson.hpp"

namespace sim::fluid3d {

/// What one side of a rank's box is (sides ordered x-low, x-high, y-low, y-high, z-low,
/// z-high): a wall, periodic (the dimension wraps within the box), internal (shared with
/// another rank, or periodic across ranks: the halo exchange fills its ghosts), an inflow
/// (x-low) or an outflow (x-high).
enum class Side { wall, periodic, internal, inflow, outflow };

/// The pointwise operators of both models (mac_operators.hpp), at three dimensions.
using Pos = fluid::Pos<3>;
template <class T>
using Velocity = fluid::Velocity<T, 3>;
template <class T>
using Spacing3 = fluid::MacSpacing<T, 3>;
using fluid::advection;
using fluid::at;
using fluid::divergence;
using fluid::dye_rate;
using fluid::face_gradient;
using fluid::Flux;
using fluid::laplacian;
using fluid::position;
using fluid::ref;
using fluid::same_layout;
using fluid::viscous_operator;

/// Where p's element (i, j, k) is, and how far apart its neighbours along d are, for the two
/// pressure layouts the projection reads: a field's view and the fused solve's buffer.
template <class T>
SIM_INLINE const T* origin_of(const View<const T, 3>& p) {
  return p.ptr;
}
template <class T>
SIM_INLINE const T* origin_of(const fft::StagedView3<T>& p) {
  return p.data;
}
template <class T>
SIM_INLINE index_t offset_of(const View<const T, 3>& p, index_t i, index_t j, index_t k) {
  return p.offset(i, j, k);
}
template <class T>
SIM_INLINE index_t offset_of(const fft::StagedView3<T>& p, index_t i, index_t j, index_t k) {
  return (i * p.n1 + j) * p.n2 + k;
}
template <int d, class T>
SIM_INLINE index_t step_of(const View<const T, 3>& p) {
  return p.stride[d];
}
template <int d, class T>
SIM_INLINE index_t step_of(const fft::StagedView3<T>& p) {
  return d == 0 ? p.n1 * p.n2 : d == 1 ? p.n2 : 1;
}

/// The c-component of grad p at the c-face q, given p in cell q (centre, at address pc): the
/// cell below along c read next to pc inside the box, through ops on its low face (wrapped
/// across a periodic side, or a shared side's ghost).
template <int c, class T, class P, class Ops>
SIM_INLINE T pressure_gradient(const Ops& ops, const P& p, const T* pc, T centre, const Pos& q, const Spacing3<T>& h) {
  const Pos lo = q.template shift<c>(-1);
  const T below = q.p[c] > 0 ? pc[-step_of<c>(p)] : T(ops.at(p, lo.p[0], lo.p[1], lo.p[2]));
  return face_gradient<c>(below, centre, h);
}

/// The passive dye's part of a stage (trivially copyable; out.ptr null: no dye): out = w base +
/// (1 - w) (in + dt dye_rate(in)), 0 in solid cells. Its fields have the velocity layout.
template <class T>
struct DyeStage3 {
  View<const T, 3> in, base;
  View<T, 3> out;
  View<const T, 3> fluid;  ///< with obstacles: 1 fluid, 0 solid
  T kappa = 0;
  /// The cell q's new dye (a = 1 - w, step = a dt).
  SIM_INLINE T value(const Velocity<T>& vel, const Pos& q, const Spacing3<T>& h, T w, T a, T step) const {
    if (fluid.ptr && at(fluid, q) == T(0)) return T(0);
    const T rate = dye_rate(vel, in, q, h, kappa);
    return (w != T(0) ? w * at(base, q) : T(0)) + a * at(in, q) + step * rate;
  }
};

/// One explicit stage: out = w base + (1 - w) (in + dt (nu lap(in) - adv(in))) on every face
/// of the cells, closed faces (a wall's normal face at index 0) 0. Shu-Osher form: w = 0
/// forward Euler, w = 1/2 Heun's second stage. dt is read from memory (StepInput).
template <class T, Flux flux = Flux::central>
struct MomentumStage3 {
  Velocity<T> in, base;
  View<T, 3> out[3];
  Spacing3<T> h;
  T nu, w;
  const double* dt;
  bool closed_low[3];  ///< dimension d's low side is a wall or an inflow: its face 0 is set by the ghost fill
  View<const T, 3> links[3] = {};  ///< with obstacles: each cell's low-face links (0: closed), in the velocity layout
  DyeStage3<T> dye{};              ///< the dye's update alongside (dye.out.ptr null: none)
  T gamma = 0;                     ///< Flux::blended: advection's donor-cell weight (advection = "upwind")
  /// Component c at face q, new value.
  template <int c>
  SIM_INLINE T component(const Pos& q, T a, T step) const {
    if (closed_low[c] && q.p[c] == 0) return T(0);
    if (links[c].ptr && at(links[c], q) == T(0)) return T(0);
    const T rate = nu * laplacian(in.c[c], q, h) - advection<c, flux>(in, q, h, gamma);
    return (w != T(0) ? w * at(base.c[c], q) : T(0)) + a * at(in.c[c], q) + step * rate;
  }
  /// All reads before the writes: a write through out may alias a read for all the compiler
  /// knows, and would otherwise force every later read to wait for it.
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const Pos q = position(in.c[0], i, j, k);
    const T a = T(1) - w, step = a * T(*dt);
    const T u = component<0>(q, a, step), v = component<1>(q, a, step), x = component<2>(q, a, step);
    const T d = dye.out.ptr ? dye.value(in, q, h, w, a, step) : T(0);
    ref(out[0], q) = u, ref(out[1], q) = v, ref(out[2], q) = x;
    if (dye.out.ptr) ref(dye.out, q) = d;
  }
};

/// A momentum stage of the implicit-viscosity schemes (the 2D model's MomentumStage with its
/// StageCoefficients, stage_coefficients.hpp): out = w base + a in - c_adv adv(in) + c_visc nu
/// lap(in) - c_p grad(p) on open faces, closed faces 0, and, with carry, carry = in + h_carry
/// (nu lap(in) - adv(in) - grad(p)) for the corrector. grad(p) is the last pressure's face
/// gradient (the incremental pressure form), read through the pressure operator ops (p's
/// ghosts exchanged on several ranks). The dye's update rides along (DyeStage3 with its own
/// weight). dt is read from memory. With an outflow, the predictor's last column gains theta dt
/// nu (u(nx) - u(nx - 1)) / hx^2 (c_outflow): the viscous solve's operator extrapolates the
/// outflow face u(nx) = u(nx - 1) (symmetric), the explicit rule keeps the last cells
/// divergence-free; the difference, taken from the input, keeps the explicit scheme's steady state.
template <class T, class Ops>
struct ImexStage3 {
  Velocity<T> in, base;
  View<T, 3> out[3], carried[3];  ///< carried[0].ptr null: no carry
  View<const T, 3> p;
  Ops ops;
  Spacing3<T> h;
  T nu, gamma, w, a;
  const double* dt;
  double f_adv, f_visc, f_p, f_carry;
  bool closed_low[3];              ///< as MomentumStage3's
  View<const T, 3> links[3] = {};  ///< as MomentumStage3's
  DyeStage3<T> dye{};
  T w_dye = 0;
  index_t outflow_nx = -1;  ///< the outflow face's index along x when this box has it, else -1
  double f_outflow = 0;     ///< theta of the viscous solve that follows, with an outflow (c_outflow = f_outflow dt nu_d)
  double nu_d = 0;          ///< nu in double, for c_outflow
  /// Component c at face q: its new value, and the carried one.
  template <int c>
  SIM_INLINE void component(const Pos& q, const T* pc, T centre, const T (&coef)[5], T (&value)[2]) const {
    value[0] = value[1] = T(0);
    if (closed_low[c] && q.p[c] == 0) return;
    if (links[c].ptr && at(links[c], q) == T(0)) return;
    const T adv = gamma != T(0) ? advection<c, Flux::blended>(in, q, h, gamma) : advection<c>(in, q, h);
    const T visc = nu * laplacian(in.c[c], q, h), u = at(in.c[c], q);
    const bool pressure = coef[2] != T(0) || carried[0].ptr;
    const T grad = pressure ? pressure_gradient<c>(ops, p, pc, centre, q, h) : T(0);
    value[0] = (w != T(0) ? w * at(base.c[c], q) : T(0)) + a * u - coef[0] * adv + coef[1] * visc - coef[2] * grad;
    value[1] = u + coef[3] * (visc - adv - grad);
    if constexpr (c == 0)
      if (coef[4] != T(0) && q.p[0] == outflow_nx - 1) value[0] += coef[4] * h.inv_h2[0] * (at(in.c[0], q.template shift<0>(1)) - u);
  }
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const Pos q = position(in.c[0], i, j, k);
    const double step = *dt;
    const T coef[5] = {T(f_adv * step), T(f_visc * step), T(f_p * step), T(f_carry * step), T(f_outflow * step * nu_d)};
    const T* pc = p.ptr + p.offset(i, j, k);
    const T centre = *pc;
    T u[2], v[2], x[2];
    component<0>(q, pc, centre, coef, u), component<1>(q, pc, centre, coef, v), component<2>(q, pc, centre, coef, x);
    const T ad = T(1) - w_dye;
    const T d = dye.out.ptr ? dye.value(in, q, h, w_dye, ad, ad * T(step)) : T(0);
    ref(out[0], q) = u[0], ref(out[1], q) = v[0], ref(out[2], q) = x[0];
    if (carried[0].ptr) ref(carried[0], q) = u[1], ref(carried[1], q) = v[1], ref(carried[2], q) = x[1];
    if (dye.out.ptr) ref(dye.out, q) = d;
  }
};

/// The outflow face in the incremental pressure form, over the box's (j, k): the predictor's
/// zero-gradient copy u(nx) = u(nx - 1) carries face nx - 1's old pressure gradient; exchange it
/// for face nx's own (p = 0 beyond the outflow, the face's link 2; 0 next to a solid cell), so
/// that the face is extrapolated without pressure, as the 2D model's OutflowPressureFace.
template <class T>
struct OutflowPressureFace3 {
  View<T, 3> u;
  View<const T, 3> p;
  View<const T, 3> inner_link, fluid;  ///< with obstacles: face nx - 1's link and the fluid mask (ptr null: 1)
  index_t nx;
  const double* dt;  ///< read from memory (StepInput)
  double hx;
  SIM_INLINE void operator()(index_t j, index_t k) const {
    const T dt_hx = T(*dt / hx);
    const T li = inner_link.ptr ? inner_link(nx - 1, j, k) : T(1), lo = fluid.ptr ? T(2) * fluid(nx - 1, j, k) : T(2);
    const T inner = li * (p(nx - 1, j, k) - p(nx - 2, j, k)), outer = lo * (T(0) - p(nx - 1, j, k));
    u(nx, j, k) += dt_hx * (inner - outer);
  }
};

/// The implicit viscous operator on the face velocities: out = p - s lap(p) on open faces
/// (viscous_operator, s_d = theta dt nu / h_d^2), out = p on fixed ones (closed as in the
/// momentum stage: a wall's or the inflow's face 0, an obstacle's faces). With p's ghosts
/// filled by the homogeneous rules it is symmetric positive definite on the open faces.
template <class T>
struct ViscousApply3 {
  Velocity<T> p;
  View<T, 3> out[3];
  T s[3];
  bool closed_low[3];
  View<const T, 3> links[3] = {};
  template <int c>
  SIM_INLINE T component(const Pos& q) const {
    const bool fixed = (closed_low[c] && q.p[c] == 0) || (links[c].ptr && at(links[c], q) == T(0));
    return fixed ? at(p.c[c], q) : viscous_operator(p.c[c], q, s);
  }
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const Pos q = position(p.c[0], i, j, k);
    const T u = component<0>(q), v = component<1>(q), w = component<2>(q);
    ref(out[0], q) = u, ref(out[1], q) = v, ref(out[2], q) = w;
  }
};

/// Right-hand side of the pressure equation: b = -div(u) / dt.
template <class T>
struct PressureRhs3 {
  Velocity<T> vel;
  View<T, 3> b;
  Spacing3<T> h;
  const double* dt;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    b(i, j, k) = -T(1 / *dt) * divergence(vel, position(vel.c[0], i, j, k), h);
  }
};

/// PressureRhs3 with no ghost fill before it, into b (a field's view, or the fused transform
/// solve's staged buffer, StagedView3): along a dimension the box wraps (wrap[d] its cells:
/// periodic on one rank) the faces above the last cells are read from the first cells' low
/// faces; along a shared one (wrap[d] 0) from the ghost layer, where the exchange of component
/// d alone along d put them.
template <class T, class Out = View<T, 3>>
struct WrappedPressureRhs3 {
  Velocity<T> vel;
  Out b;
  Spacing3<T> h;
  const double* dt;
  index_t wrap[3];
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    b(i, j, k) = -T(1 / *dt) * periodic_divergence(vel, position(vel.c[0], i, j, k), h, wrap);
  }
};

/// p and b from the fused transform solve's result and staged buffers (what its kernels left there).
template <class T>
struct GatherStaged3 {
  fft::StagedView3<T> result, staged;
  View<T, 3> p, b;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { p(i, j, k) = result(i, j, k), b(i, j, k) = staged(i, j, k); }
};

/// The divergence of the face velocities at cell centres.
template <class T>
struct Divergence3 {
  Velocity<T> vel;
  View<T, 3> out;
  Spacing3<T> h;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = divergence(vel, position(vel.c[0], i, j, k), h); }
};

/// The pressure operator of one rank's box of a grid split over ranks (trivially copyable):
/// the whole grid's Poisson7 seen from the box, p read from the box's ghosts across a shared
/// side (exchanged before), wrapped across a periodic dimension the box spans, 0 beyond a wall.
template <class T>
struct BoxPressure7 {
  solvers::Poisson7<T> box;  ///< n: the box's cells; side_c: 1 on a shared side; periodic: wraps within the box
  bool shared[6] = {false, false, false, false, false, false};
  /// Coefficient of the face of dimension d at face index f in [0, n[d]] of the box.
  SIM_INLINE T link(int d, index_t f) const { return box.link(d, f); }
  /// Index q of dimension d: inside, wrapped, a shared side's ghost, or -2 (beyond a wall).
  SIM_INLINE index_t index(int d, index_t q) const {
    if (q >= 0 && q < box.n[d]) return q;
    if (box.periodic[d]) return q < 0 ? q + box.n[d] : q - box.n[d];
    return shared[2 * d + (q < 0 ? 0 : 1)] ? q : index_t(-2);
  }
  /// p at (i, j, k), any one index one outside the box.
  template <class P>
  SIM_INLINE T at(const P& p, index_t i, index_t j, index_t k) const {
    i = index(0, i), j = index(1, j), k = index(2, k);
    return i == -2 || j == -2 || k == -2 ? T(0) : T(p(i, j, k));
  }
  /// (A p)(i, j, k), as Poisson7::apply.
  template <class P>
  SIM_INLINE T apply(const P& p, index_t i, index_t j, index_t k) const {
    const T c = p(i, j, k);
    const T lx = link(0, i), hx = link(0, i + 1), ly = link(1, j), hy = link(1, j + 1), lz = link(2, k), hz = link(2, k + 1);
    return (lx * (c - at(p, i - 1, j, k)) + hx * (c - at(p, i + 1, j, k))) * box.inv_h2[0] +
           (ly * (c - at(p, i, j - 1, k)) + hy * (c - at(p, i, j + 1, k))) * box.inv_h2[1] +
           (lz * (c - at(p, i, j, k - 1)) + hz * (c - at(p, i, j, k + 1))) * box.inv_h2[2];
  }
};

/// out = A p on a rank's box (BoxPressure7; p's shared ghosts exchanged).
template <class T>
struct BoxPressure7Apply {
  BoxPressure7<T> s;
  View<const T, 3> p;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = s.apply(p, i, j, k); }
};

/// The masked pressure operator (obstacles) of one rank's box of a grid split over ranks
/// (trivially copyable): BoxPressure7's neighbours (a shared side's ghosts) with the low-face
/// links of the box's cells and the fluid mask, as MaskedPoisson7 has them for the whole grid.
/// The links' ghosts are exchanged as the velocity's are: a shared high face's link is the
/// neighbouring box's low-face link, in the ghost layer.
template <class T>
struct MaskedBoxPressure7 {
  BoxPressure7<T> box;        ///< the box's operator without obstacles
  View<const T, 3> links[3];  ///< low-face link of each cell along each dimension, ghosts exchanged
  View<const T, 3> fluid;     ///< 1 fluid, 0 solid
  /// The link of the d-face (i, j, k), its index along d in [0, n[d]]: the high side's is the
  /// ghost's on a shared side, face 0's across a periodic one, the side's coefficient next to a fluid cell at a wall.
  SIM_INLINE T face_link(int d, index_t i, index_t j, index_t k) const {
    index_t f[3] = {i, j, k};
    if (f[d] < box.box.n[d] || box.shared[2 * d + 1]) return links[d](i, j, k);
    f[d] = 0;
    if (box.box.periodic[d]) return links[d](f[0], f[1], f[2]);
    f[d] = box.box.n[d] - 1;
    return fluid(f[0], f[1], f[2]) != T(0) ? box.box.side_c[2 * d + 1] : T(0);
  }
  /// p at (i, j, k), any one index one outside the box (BoxPressure7::at).
  template <class P>
  SIM_INLINE T at(const P& p, index_t i, index_t j, index_t k) const {
    return box.at(p, i, j, k);
  }
  /// (A p)(i, j, k): the identity in a solid cell.
  template <class P>
  SIM_INLINE T apply(const P& p, index_t i, index_t j, index_t k) const {
    const T c = p(i, j, k);
    if (fluid(i, j, k) == T(0)) return c;
    const T lx = links[0](i, j, k), hx = face_link(0, i + 1, j, k), ly = links[1](i, j, k), hy = face_link(1, i, j + 1, k),
            lz = links[2](i, j, k), hz = face_link(2, i, j, k + 1);
    return (lx * (c - at(p, i - 1, j, k)) + hx * (c - at(p, i + 1, j, k))) * box.box.inv_h2[0] +
           (ly * (c - at(p, i, j - 1, k)) + hy * (c - at(p, i, j + 1, k))) * box.box.inv_h2[1] +
           (lz * (c - at(p, i, j, k - 1)) + hz * (c - at(p, i, j, k + 1))) * box.box.inv_h2[2];
  }
};

/// out = A p on a rank's box around obstacles (MaskedBoxPressure7; p's shared ghosts exchanged).
template <class T>
struct MaskedBoxPressure7Apply {
  MaskedBoxPressure7<T> s;
  View<const T, 3> p;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = s.apply(p, i, j, k); }
};

/// The link of the c-face q (q.p[c] < n[c]) of each pressure operator: 0 closes the face.
template <int c, class T>
SIM_INLINE T face_link(const solvers::Poisson7<T>& ops, const Pos& q) {
  return ops.link(c, q.p[c]);
}
template <int c, class T>
SIM_INLINE T face_link(const BoxPressure7<T>& ops, const Pos& q) {
  return ops.link(c, q.p[c]);
}
template <int c, class T>
SIM_INLINE T face_link(const solvers::MaskedPoisson7<T>& ops, const Pos& q) {
  return ops.links[c](q.p[0], q.p[1], q.p[2]);
}
template <int c, class T>
SIM_INLINE T face_link(const MaskedBoxPressure7<T>& ops, const Pos& q) {
  return ops.links[c](q.p[0], q.p[1], q.p[2]);
}

/// u_c -= dt grad_c p on every open face of the cells (a wall's face 0 is closed: link 0).
/// p is a field's view, or the fused transform solve's staged result, which `store` (when
/// set) then receives: the solve's scatter fused into the projection. Ops: the whole grid's
/// Poisson7 on one rank, a box's BoxPressure7 on several. With wrap set (wrap[d] the box's
/// cells along each dimension d it spans whole and periodic, 0 along the others) a cell next
/// to such a side also writes its faces' periodic copies into the ghost layers, which a ghost
/// fill would otherwise make before the next momentum stage.
template <class T, class P = View<const T, 3>, class Ops = solvers::Poisson7<T>>
struct Project3 {
  View<T, 3> vel[3];
  P p;
  Ops ops;  ///< the pressure operator: its links and periodic wrap
  Spacing3<T> h;
  const double* dt;
  View<T, 3> store{};
  index_t wrap[3] = {};  ///< all 0: no ghost copies
  /// Component c at face q after the projection (unchanged on a closed face: link 0).
  template <int c>
  SIM_INLINE T component(const Pos& q, const T* pc, T centre, T dt_) const {
    const T u = at(View<const T, 3>(vel[c]), q);
    return face_link<c>(ops, q) != T(0) ? u - dt_ * pressure_gradient<c>(ops, p, pc, centre, q, h) : u;
  }
  /// All reads before the writes (see MomentumStage3).
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const Pos q = position(vel[0], i, j, k);
    const T* pc = origin_of(p) + offset_of(p, i, j, k);
    const T centre = *pc, step = T(*dt);
    const T u = component<0>(q, pc, centre, step), v = component<1>(q, pc, centre, step), w = component<2>(q, pc, centre, step);
    if (store.ptr) store(i, j, k) = centre;
    ref(vel[0], q) = u, ref(vel[1], q) = v, ref(vel[2], q) = w;
    if (wrap[0] != 0 || wrap[1] != 0 || wrap[2] != 0) write_periodic_copies(i, j, k, u, v, w);
  }
  /// The faces of cell (i, j, k) into the ghost cells that are its periodic images, (i + a
  /// n0, j + b n1, k + c n2) for a, b, c in {-1, 0, 1} inside the ghost layer (sides, edges
  /// and corners: what fill_sides along x, y, then z copies).
  SIM_INLINE void write_periodic_copies(index_t i, index_t j, index_t k, T u, T v, T w) const {
    auto image = [](index_t x, index_t n) { return x == 0 ? n : x == n - 1 ? -1 : x; };  // (the one ghost a cell has along a dimension)
    const index_t gi = image(i, wrap[0]), gj = image(j, wrap[1]), gk = image(k, wrap[2]);
    if (gi == i && gj == j && gk == k) return;
    for (int a = 0; a < (gi != i ? 2 : 1); ++a)
      for (int b = 0; b < (gj != j ? 2 : 1); ++b)
        for (int c = 0; c < (gk != k ? 2 : 1); ++c) {
          if (a + b + c == 0) continue;
          const index_t o = vel[0].offset(a ? gi : i, b ? gj : j, c ? gk : k);
          vel[0].ptr[o] = u, vel[1].ptr[o] = v, vel[2].ptr[o] = w;
        }
  }
};

/// The ghost rules of the six sides (trivially copyable).
template <class T>
struct Walls3 {
  Side side[6] = {Side::wall, Side::wall, Side::wall, Side::wall, Side::wall, Side::wall};
  T wall_velocity[6][3] = {};  ///< each wall's velocity (its tangential components; the normal one is 0)
  index_t n[3] = {1, 1, 1};
  T inflow_velocity = 1;    ///< the inflow's mean velocity (along +x)
  bool parabolic = false;   ///< inflow profile: the plane channel's 6 U y (L - y) / L^2 across y (mean U), else uniform U
  index_t oy = 0, ny_global = 1;  ///< global index of the box's first y row, and the whole grid's rows
  T hy = 1;
  int dye_pattern = 0;  ///< the dye the inflow carries: 0 none, 1 stripes (8 across y, as in 2D)
  /// The dye the inflow carries at (local) row j.
  SIM_INLINE T inflow_dye(index_t j) const { return dye_pattern == 1 ? T(((j + oy) * 8 / ny_global) % 2) : T(0); }
  /// The inflow's velocity at the centre of (local) row j (the same along z).
  SIM_INLINE T inflow_at(index_t j) const {
    if (!parabolic) return inflow_velocity;
    const T L = T(ny_global) * hy, y = (T(j + oy) + T(0.5)) * hy;
    return T(6) * inflow_velocity * y * (L - y) / (L * L);
  }
};

/// Fills the ghosts of dimension d's two sides for all three components, over the other two
/// dimensions' cells and the ghosts of the dimensions filled before it (d' < d), so that edges
/// and corners get what a dimension-by-dimension fill gives. Periodic: copies across; wall:
/// the normal face 0 (both ends), each tangential ghost the reflection about the wall velocity;
/// inflow (a low side): the normal faces the inflow velocity, the tangential velocity 0 on the
/// face; outflow (a high side): zero gradient (the normal face is the last inner face's, the
/// momentum prediction that OutflowFace3 replaces after a projection); internal: nothing (the
/// halo exchange of dimension d follows). The 2D model's rules (fluid_kernels.hpp, FillXSides).
template <class T, int d>
struct FillSides3 {
  View<T, 3> vel[3];
  Walls3<T> b;
  View<T, 3> dye{};  ///< the passive dye (ptr null: none): copied across a periodic side, zero gradient at walls and the outflow, the inflow's stripes
  /// The dye at index x along d, (r, s) along e and f.
  SIM_INLINE T& dye_ref(index_t x, index_t r, index_t s) const {
    if constexpr (d == 0) return dye(x, r, s);
    else if constexpr (d == 1) return dye(r, x, s);
    else return dye(r, s, x);
  }
  /// The dye's ghosts on both sides of a dimension that is not periodic (periodic() copies those).
  SIM_INLINE void dye_ghosts(index_t r, index_t s) const {
    const index_t n = b.n[d];
    const Side lo = b.side[2 * d], hi = b.side[2 * d + 1];
    if (lo == Side::inflow) dye_ref(-1, r, s) = b.inflow_dye(r);  // (an inflow is an x side: r indexes y)
    else if (lo != Side::internal) dye_ref(-1, r, s) = dye_ref(0, r, s);
    if (hi != Side::internal) dye_ref(n, r, s) = dye_ref(n - 1, r, s);
  }
  static constexpr int e = d == 0 ? 1 : 0, f = d == 2 ? 1 : 2;  ///< the other two dimensions, in order
  /// Component c at index x along d, (r, s) along e and f.
  SIM_INLINE T& ref(int c, index_t x, index_t r, index_t s) const {
    if constexpr (d == 0) return vel[c](x, r, s);
    else if constexpr (d == 1) return vel[c](r, x, s);
    else return vel[c](r, s, x);
  }
  /// Component c's ghosts on both sides of a dimension that is not periodic (periodic() copies those).
  template <int c>
  SIM_INLINE void component(index_t r, index_t s) const {
    const index_t n = b.n[d];
    const Side lo = b.side[2 * d], hi = b.side[2 * d + 1];  // (internal: the halo's)
    if constexpr (c == d) {
      if (lo == Side::wall) ref(c, 0, r, s) = T(0), ref(c, -1, r, s) = n > 1 ? -ref(c, 1, r, s) : T(0);
      if (lo == Side::inflow) {
        const T inflow = b.inflow_at(r);  // (an inflow is an x side: r indexes y)
        ref(c, 0, r, s) = inflow, ref(c, -1, r, s) = inflow;
      }
      if (hi == Side::wall) ref(c, n, r, s) = T(0);
      if (hi == Side::outflow) ref(c, n, r, s) = ref(c, n - 1, r, s);
    } else {
      if (lo == Side::wall) ref(c, -1, r, s) = T(2) * b.wall_velocity[2 * d][c] - ref(c, 0, r, s);
      if (lo == Side::inflow) ref(c, -1, r, s) = -ref(c, 0, r, s);
      if (hi == Side::wall) ref(c, n, r, s) = T(2) * b.wall_velocity[2 * d + 1][c] - ref(c, n - 1, r, s);
      if (hi == Side::outflow) ref(c, n, r, s) = ref(c, n - 1, r, s);
    }
  }
  /// A periodic dimension's ghosts, every value read before the first write: a write may
  /// alias a later read for all the compiler knows, which would make each copy wait for the
  /// one before (the copies are scattered single words, bound by their latency).
  SIM_INLINE void periodic(index_t r, index_t s) const {
    const index_t n = b.n[d];
    const T u_lo = ref(0, n - 1, r, s), u_hi = ref(0, 0, r, s), v_lo = ref(1, n - 1, r, s), v_hi = ref(1, 0, r, s);
    const T w_lo = ref(2, n - 1, r, s), w_hi = ref(2, 0, r, s);
    const T d_lo = dye.ptr ? dye_ref(n - 1, r, s) : T(0), d_hi = dye.ptr ? dye_ref(0, r, s) : T(0);
    ref(0, -1, r, s) = u_lo, ref(0, n, r, s) = u_hi, ref(1, -1, r, s) = v_lo, ref(1, n, r, s) = v_hi;
    ref(2, -1, r, s) = w_lo, ref(2, n, r, s) = w_hi;
    if (dye.ptr) dye_ref(-1, r, s) = d_lo, dye_ref(n, r, s) = d_hi;
  }
  /// (r, s) index the other two dimensions; they run from -1 where already filled.
  SIM_INLINE void operator()(index_t r, index_t s) const {
    if (b.side[2 * d] == Side::periodic) return periodic(r, s);
    component<0>(r, s), component<1>(r, s), component<2>(r, s);
    if (dye.ptr) dye_ghosts(r, s);
  }
};

/// The outflow face u(nx, j, k) of the x-high side, for (j, k) in the box's rows: set so that
/// the last cell is divergence-free (the 2D model's rule with the z term), after a projection.
template <class T>
struct OutflowFace3 {
  View<T, 3> u;
  View<const T, 3> v, w;
  index_t nx;
  T hx_hy, hx_hz;  ///< hx / hy, hx / hz
  SIM_INLINE void operator()(index_t j, index_t k) const {
    const index_t i = nx - 1;
    u(nx, j, k) = u(i, j, k) - hx_hy * (v(i, j + 1, k) - v(i, j, k)) - hx_hz * (w(i, j, k + 1) - w(i, j, k));
  }
};

/// The force of the fluid on the obstacle, per unit density (a triple of sums over faces).
struct ForceTriple {
  double f[3];
};

/// The force on the obstacle from the faces of cell (i, j, k) that the obstacle closes (link 0
/// where the box's operator has an open face): on such a face the momentum equation's rate
/// nu lap(u_c) - div(u u_c) - d_c p is what the no-slip condition removes, so the body takes
/// it (its sum over the closed faces, times a cell's volume, is the force; the pressure part is
/// the pressure on the obstacle's faces, the viscous part the shear of the faces next to it).
/// p_scale turns the last stage's pressure into the physical one (2 after Heun's second stage).
/// Ops: the whole grid's MaskedPoisson7 on one rank, a box's MaskedBoxPressure7 on several
/// (its box's links: a shared side's face is open, and the rank owning the cell above counts it).
template <class T, class Ops = solvers::MaskedPoisson7<T>>
struct ObstacleForce3 {
  Velocity<T> vel;
  View<const T, 3> p;
  Ops ops;
  Spacing3<T> h;
  T nu, p_scale;
  T gamma = 0;  ///< advection's donor-cell weight, as in the momentum stage
  template <int c>
  SIM_INLINE double component(const Pos& q, const T* pc, T centre) const {
    if (face_link<c>(ops, q) != T(0) || ops.box.link(c, q.p[c]) == T(0)) return 0.0;
    const T grad = pressure_gradient<c>(ops, p, pc, centre, q, h);
    const T adv = gamma != T(0) ? advection<c, Flux::blended>(vel, q, h, gamma) : advection<c>(vel, q, h);
    return double(nu * laplacian(vel.c[c], q, h) - adv - p_scale * grad);
  }
  SIM_INLINE ForceTriple operator()(index_t i, index_t j, index_t k) const {
    const Pos q = position(vel.c[0], i, j, k);
    const T* pc = p.ptr + p.offset(i, j, k);
    const T centre = *pc;
    return ForceTriple{{component<0>(q, pc, centre), component<1>(q, pc, centre), component<2>(q, pc, centre)}};
  }
};

/// Componentwise sum.
struct AddForces {
  SIM_INLINE ForceTriple operator()(const ForceTriple& a, const ForceTriple& b) const {
    return ForceTriple{{a.f[0] + b.f[0], a.f[1] + b.f[1], a.f[2] + b.f[2]}};
  }
};

/// The largest |u|, |v|, |w| of a box.
struct SpeedTriple {
  double s[3];
};

/// (|u|, |v|, |w|) at the low faces of cell (i, j, k), for a reduction with LargerSpeeds3.
template <class T>
struct FaceSpeeds3 {
  Velocity<T> vel;
  SIM_INLINE SpeedTriple operator()(index_t i, index_t j, index_t k) const {
    SpeedTriple r;
    for (int c = 0; c < 3; ++c) {
      const T a = vel.c[c](i, j, k);
      r.s[c] = double(a < T(0) ? -a : a);
    }
    return r;
  }
};

/// Componentwise maximum.
struct LargerSpeeds3 {
  SIM_INLINE SpeedTriple operator()(const SpeedTriple& a, const SpeedTriple& b) const {
    SpeedTriple r;
    for (int c = 0; c < 3; ++c) r.s[c] = a.s[c] < b.s[c] ? b.s[c] : a.s[c];
    return r;
  }
};

/// Sums of a cell: the face velocities' squares (kinetic energy, times 2) and the squares of
/// the vorticity components on the cell's three low edges (enstrophy, times 2).
struct EnergySums {
  double energy, enstrophy;
};

/// EnergySums of cell (i, j, k); ghosts filled.
template <class T>
struct CellEnergy {
  Velocity<T> vel;
  Spacing3<T> h;
  /// Component c of the vorticity on the low edge of cell q along c: d_a u_b - d_b u_a, (c, a, b) cyclic.
  template <int c>
  SIM_INLINE double vorticity(const Pos& q) const {
    constexpr int a = (c + 1) % 3, b = (c + 2) % 3;
    return double((at(vel.c[b], q) - at(vel.c[b], q.template shift<a>(-1))) * h.inv_h[a] -
                  (at(vel.c[a], q) - at(vel.c[a], q.template shift<b>(-1))) * h.inv_h[b]);
  }
  /// u_c^2 and omega_c^2 of component c at cell q, added to r.
  template <int c>
  SIM_INLINE void add(const Pos& q, EnergySums& r) const {
    const double u = double(at(vel.c[c], q)), o = vorticity<c>(q);
    r.energy += u * u, r.enstrophy += o * o;
  }
  SIM_INLINE EnergySums operator()(index_t i, index_t j, index_t k) const {
    const Pos q = position(vel.c[0], i, j, k);
    EnergySums r{0.0, 0.0};
    add<0>(q, r), add<1>(q, r), add<2>(q, r);
    return r;
  }
};

/// Sum of EnergySums.
struct AddEnergySums {
  SIM_INLINE EnergySums operator()(const EnergySums& a, const EnergySums& b) const {
    return {a.energy + b.energy, a.enstrophy + b.enstrophy};
  }
};

/// Cell-centred velocity and the vorticity's magnitude at cell centres (the mean of the
/// edge values around the centre), for output; ghosts filled.
template <class T>
struct CellOutputs3 {
  Velocity<T> vel;
  View<T, 3> centred[3], vorticity;
  Spacing3<T> h;
  /// Component c: the centred velocity stored, the vorticity's square (the mean of the four
  /// edges along c around the cell centre) added to sq.
  template <int c>
  SIM_INLINE void component(const Pos& q, double& sq) const {
    constexpr int a = (c + 1) % 3, b = (c + 2) % 3;
    const CellEnergy<T> edges{vel, h};
    centred[c](q.p[0], q.p[1], q.p[2]) = T(0.5) * (at(vel.c[c], q) + at(vel.c[c], q.template shift<c>(1)));
    const double o = 0.25 * (edges.template vorticity<c>(q) + edges.template vorticity<c>(q.template shift<a>(1)) +
                             edges.template vorticity<c>(q.template shift<b>(1)) +
                             edges.template vorticity<c>(q.template shift<a>(1).template shift<b>(1)));
    sq += o * o;
  }
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const Pos q = position(vel.c[0], i, j, k);
    double sq = 0;
    component<0>(q, sq), component<1>(q, sq), component<2>(q, sq);
    vorticity(i, j, k) = T(sq > 0 ? ::sqrt(sq) : 0.0);
  }
};

}  // namespace sim::fluid3d
