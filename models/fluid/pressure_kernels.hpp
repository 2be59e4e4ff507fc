#pragma once
// The 2D fluid's pressure equation on the MAC grid (fluid_kernels.hpp describes the storage):
// its right-hand side, the divergence, the mean removal of a singular problem, and the
// extrapolated initial guess.
#include "core/mesh/grid.hpp"
#include "core/numerics/spectral/multiplier2.hpp"
#include "models/fluid/mac_operators.hpp"
#include "solvers/poisson.hpp"

namespace sim::fluid {

/// Right-hand side of the pressure equation: b = -div(u) / dt (0 in solid cells), where b is
/// given; written through `staged` when set (a transform solve's own buffer: fft::StagedView on
/// one rank, solvers::CosineSlabRows on several).
template <class T, class Staged = fft::StagedView<T>>
struct PressureRhs {
  View<const T, 2> u, v;
  View<T, 2> b;
  solvers::PoissonStencil<T> links;
  T inv_hx, inv_hy;
  const double* dt;                  ///< read from memory (StepInput)
  Staged staged{};                   ///< when set, b is also written here: the transform solve's gather
  /// The spacing as the divergence reads it (1 / h only).
  SIM_INLINE MacSpacing<T, 2> spacing() const { return {{inv_hx, inv_hy}, {T(0), T(0)}}; }
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T inv_dt = T(1 / *dt);
    const T value = links.solid(i, j) ? T(0) : -inv_dt * divergence(Velocity<T, 2>{{u, v}}, position(u, i, j), spacing());
    if (b.ptr) b(i, j) = value;
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
    const T inv_dt = T(1 / *k.dt);
    const MacSpacing<T, 2> h = k.spacing();
    const Velocity<T, 2> vel{{u, v}};
#pragma omp simd
    for (index_t j = j0; j < j1; ++j) b(i, j) = -inv_dt * divergence(vel, position(u, i, j), h);
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
    out(i, j) = links.solid(i, j) ? T(0) : divergence(Velocity<T, 2>{{u, v}}, position(u, i, j), MacSpacing<T, 2>{{inv_hx, inv_hy}, {T(0), T(0)}});
  }
};

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
