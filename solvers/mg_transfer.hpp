#pragma once
// Multigrid's transfers between a grid and the grid twice as coarse: bilinear prolongation
// and full-weighting restriction, its transpose (R = P^T / 4). Around obstacles a fine fluid
// cell interpolates from the fluid coarse cells only: its bilinear weights are divided by
// their sum over the fluid ones (the fine level's `scale`, 0 on solid fine cells), as a
// Neumann side mirrors the cell's own value; interpolating a solid coarse cell's 0 pulled the
// correction next to the obstacle towards 0 (a Dirichlet wall): the cylinder's mg_cg took 7-8
// iterations a solve instead of 4-5. R keeps the transpose: R = (D P)^T / 4 = P^T D / 4.
#include <vector>

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
  View<const T, 2> scale{};  ///< the fine cells' weight scaling around obstacles (interpolation_scale); null: none
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
  SIM_INLINE void operator()(index_t i, index_t j) const {
    fine(i, j) += scale.ptr ? math::mul_rn(correction(i, j), scale(i, j)) : correction(i, j);
  }
};

/// Reads a field at the wrapped index, times scale there when given (MgRestrict::restricted's
/// reader for a whole-grid field).
template <class T>
struct WrappedReader {
  View<const T, 2> v;
  View<const T, 2> scale{};
  SIM_INLINE T operator()(index_t, index_t, index_t iw, index_t jw) const {
    return scale.ptr ? math::mul_rn(v(iw, jw), scale(iw, jw)) : v(iw, jw);
  }
};

/// coarse = P^T fine / 4: each coarse cell gathers the 4 x 4 fine cells whose interpolation uses it.
template <class T>
struct MgRestrict {
  Interp1D<T> ix, iy;
  index_t nfx, nfy;
  View<const T, 2> fine;
  View<T, 2> coarse;
  PoissonStencil<T> coarse_stencil;  ///< solid coarse cells (identity rows) take 0: no correction there
  View<const T, 2> scale{};  ///< the fine cells' weight scaling around obstacles, ghosts included (MgProlongAdd's); null: none
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
    coarse(I, J) = restricted(I, J, WrappedReader<T>{fine, scale});
  }
};

/// The scale of every fine cell of the whole grid f (row-major) for the transfers to the whole
/// grid c twice as coarse, interpolated as ix, iy say (no shared sides): 1 / (the sum of its
/// bilinear weights on fluid coarse cells) times the sum of all of them on a fluid fine cell
/// (1 away from obstacles), 0 on a solid one. Empty without obstacles.
template <class T>
std::vector<T> interpolation_scale(const PoissonGrid<T>& f, const PoissonGrid<T>& c, const Interp1D<T>& ix, const Interp1D<T>& iy) {
  if (!f.has_links()) return {};
  std::vector<T> out(std::size_t(f.nx * f.ny));
  for (index_t i = 0; i < f.nx; ++i)
    for (index_t j = 0; j < f.ny; ++j) {
      index_t a[2], b[2];
      T wa[2], wb[2];
      ix.weights(i, a[0], wa[0], a[1], wa[1]);
      iy.weights(j, b[0], wb[0], b[1], wb[1]);
      double all = 0, fluid = 0;  // a fluid fine cell's own coarse cell is fluid: fluid > 0
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q) {
          const double w = double(wa[p]) * double(wb[q]);
          all += w;
          if (c.active[std::size_t(a[p] * c.ny + b[q])] != T(0)) fluid += w;
        }
      out[std::size_t(i * f.ny + j)] = f.active[std::size_t(i * f.ny + j)] == T(0) ? T(0) : T(all / fluid);
    }
  return out;
}

}  // namespace sim::solvers
