#pragma once
// Multigrid's transfers between a grid and the grid twice as coarse: bilinear prolongation
// and full-weighting restriction, its transpose (R = P^T / 4).
#include "solvers/poisson.hpp"

namespace sim::solvers {

/// Bilinear prolongation weights in one dimension for fine index f: coarse c0 with w0 and
/// c1 with w1 (c1 == c0 at a non-periodic edge, where the ghost mirrors with sign).
template <class T>
struct Interp1D {
  index_t n_coarse = 0;
  bool periodic = false;
  bool halo_lo = false, halo_hi = false;  ///< side shared with another rank: its cells are in the ghosts
  T sign_lo = 1, sign_hi = 1;  ///< +1: zero gradient (Neumann), -1: zero value (Dirichlet)
  SIM_INLINE void weights(index_t f, index_t& c0, T& w0, index_t& c1, T& w1) const {
    c0 = f >> 1;
    w0 = T(0.75);
    c1 = (f & 1) ? c0 + 1 : c0 - 1;
    w1 = T(0.25);
    if ((c1 < 0 && !halo_lo) || (c1 >= n_coarse && !halo_hi)) {
      if (periodic) c1 = c1 < 0 ? c1 + n_coarse : c1 - n_coarse;
      else w1 = T(0.25) * (c1 < 0 ? sign_lo : sign_hi), c1 = c0;
    }
  }
  /// Fine index f of an nf-cell line, wrapped into it when periodic; false when it lies outside
  /// a non-periodic line (true for a ghost on a shared side).
  SIM_INLINE bool wrap(index_t& f, index_t nf) const {
    if (f >= 0 && f < nf) return true;
    if ((f < 0 && halo_lo) || (f >= nf && halo_hi)) return true;
    if (!periodic) return false;
    f = f < 0 ? f + nf : f - nf;
    return true;
  }
  /// Weight of coarse cell c in the interpolation to fine f (the transpose, for restriction).
  SIM_INLINE T weight_of(index_t f, index_t c) const {
    index_t c0, c1;
    T w0, w1;
    weights(f, c0, w0, c1, w1);
    return (c0 == c ? w0 : T(0)) + (c1 == c ? w1 : T(0));
  }
};

/// fine += P coarse.
template <class T>
struct MgProlongAdd {
  Interp1D<T> ix, iy;
  View<const T, 2> coarse;
  View<T, 2> fine;
  /// (P coarse)(i, j).
  SIM_INLINE T correction(index_t i, index_t j) const {
    index_t a0, a1, b0, b1;
    T wa0, wa1, wb0, wb1;
    ix.weights(i, a0, wa0, a1, wa1);
    iy.weights(j, b0, wb0, b1, wb1);
    using math::mul_rn;  // (products rounded on their own: the same bits in every kernel, see PoissonStencil)
    return mul_rn(wa0, mul_rn(wb0, coarse(a0, b0)) + mul_rn(wb1, coarse(a0, b1))) +
           mul_rn(wa1, mul_rn(wb0, coarse(a1, b0)) + mul_rn(wb1, coarse(a1, b1)));
  }
  SIM_INLINE void operator()(index_t i, index_t j) const { fine(i, j) += correction(i, j); }
};

/// Reads a field at the wrapped index (MgRestrict::restricted's reader for a whole-grid field).
template <class T>
struct WrappedReader {
  View<const T, 2> v;
  SIM_INLINE T operator()(index_t, index_t, index_t iw, index_t jw) const { return v(iw, jw); }
};

/// coarse = P^T fine / 4: each coarse cell gathers the 4 x 4 fine cells whose interpolation uses it.
template <class T>
struct MgRestrict {
  Interp1D<T> ix, iy;
  index_t nfx, nfy;
  View<const T, 2> fine;
  View<T, 2> coarse;
  PoissonStencil<T> coarse_stencil;  ///< solid coarse cells (identity rows) take 0: no correction there
  /// (P^T r / 4)(I, J), the fine r read as r(i, j, iw, jw): (i, j) unwrapped, (iw, jw) wrapped
  /// into the grid (the two differ only across a periodic side).
  template <class R>
  SIM_INLINE T restricted(index_t I, index_t J, const R& r) const {
    index_t jw[4];  // the y-weights of the four fine columns, computed once for the four rows
    T wy[4];
    bool open[4];
    for (int b = 0; b < 4; ++b) {
      jw[b] = 2 * J + b - 1;
      open[b] = iy.wrap(jw[b], nfy);
      wy[b] = open[b] ? iy.weight_of(jw[b], J) : T(0);
    }
    T acc = 0;
    for (index_t a = -1; a <= 2; ++a) {
      const index_t i = 2 * I + a;
      index_t iw = i;
      if (!ix.wrap(iw, nfx)) continue;
      const T wx = ix.weight_of(iw, I);
      if (wx == T(0)) continue;
      T row = 0;
      for (int b = 0; b < 4; ++b)
        if (open[b]) row += math::mul_rn(wy[b], r(i, 2 * J + b - 1, iw, jw[b]));
      acc += math::mul_rn(wx, row);
    }
    return T(0.25) * acc;
  }
  SIM_INLINE void operator()(index_t I, index_t J) const {
    if (coarse_stencil.solid(I, J)) {
      coarse(I, J) = T(0);
      return;
    }
    coarse(I, J) = restricted(I, J, WrappedReader<T>{fine});
  }
};

}  // namespace sim::solvers
