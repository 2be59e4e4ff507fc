#pragma once
// 3D multigrid's transfers between a box and the box twice as coarse along the halved axes
// (the others kept: semi-coarsening): trilinear prolongation (the product of mg_transfer.hpp's
// 1D weights along each halved axis, the sides' rules included; the cell itself along a kept
// one) and full-weighting restriction, its transpose (R = P^T / 2^k for k halved axes, an
// average). Around obstacles a fine fluid cell interpolates from the fluid coarse cells only
// (its weights divided by their sum over the fluid ones: the fine level's scale, 0 on solid
// fine cells), as in 2D; R = P^T D / 2^k keeps the transpose.
#include <vector>

#include "solvers/mg_transfer.hpp"
#include "solvers/poisson3.hpp"

namespace sim::solvers {

/// One axis of the 3D transfers: halved (the 1D weights of Interp1D) or kept (semi-coarsening:
/// fine and coarse cells the same along it, weight 1).
template <class T>
struct Mg3Axis {
  Interp1D<T> line;
  bool halved = true;
  /// Interp1D::weights, or the cell itself when the axis is kept.
  SIM_INLINE void weights(index_t f, index_t& c0, T& w0, index_t& c1, T& w1) const {
    if (halved) return line.weights(f, c0, w0, c1, w1);
    c0 = c1 = f, w0 = T(1), w1 = T(0);
  }
};

/// fine += P coarse.
template <class T>
struct Mg3ProlongAdd {
  Mg3Axis<T> axis[3];
  View<const T, 3> coarse;
  View<T, 3> fine;
  View<const T, 3> scale{};  ///< the fine cells' weight scaling around obstacles (interpolation_scale3); null: none
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    index_t a[2], b[2], c[2];
    T wa[2], wb[2], wc[2];
    axis[0].weights(i, a[0], wa[0], a[1], wa[1]);
    axis[1].weights(j, b[0], wb[0], b[1], wb[1]);
    axis[2].weights(k, c[0], wc[0], c[1], wc[1]);
    T acc = 0;
    for (int p = 0; p < 2; ++p) {
      T plane = 0;
      for (int q = 0; q < 2; ++q) plane += wb[q] * (wc[0] * coarse(a[p], b[q], c[0]) + wc[1] * coarse(a[p], b[q], c[1]));
      acc += wa[p] * plane;
    }
    fine(i, j, k) += scale.ptr ? acc * scale(i, j, k) : acc;
  }
};

/// coarse = P^T fine / 2^k (k halved axes; 8 when all are): each coarse cell gathers the fine
/// cells whose interpolation uses it (4 along a halved axis, 1 along a kept one).
template <class T>
struct Mg3Restrict {
  Mg3Axis<T> axis[3];
  index_t nf[3];
  T inv_children;  ///< 1 / 2^k
  View<const T, 3> fine;
  View<T, 3> coarse;
  Poisson7Links<T> coarse_stencil;  ///< solid coarse cells (identity rows) take 0: no correction there
  View<const T, 3> scale{};         ///< Mg3ProlongAdd's scale; null: none
  SIM_INLINE void operator()(index_t I, index_t J, index_t K) const {
    if (coarse_stencil.solid(I, J, K)) {
      coarse(I, J, K) = T(0);
      return;
    }
    const index_t C[3] = {I, J, K};
    index_t f[3][4];  // the fine indices (wrapped) along each axis and their weights (0 outside)
    T w[3][4];
    for (int d = 0; d < 3; ++d) {
      const Interp1D<T>& line = axis[d].line;
      const bool inside = C[d] >= 1 && C[d] + 2 <= line.n_coarse;  // weight_of's values without its tests
      // two fine cells across a periodic axis: the window's four are those two twice; count each once
      const bool twice = line.periodic && nf[d] == 2;
      for (int b = 0; b < 4; ++b) {
        f[d][b] = 2 * C[d] + b - 1;
        if (!axis[d].halved) f[d][b] = C[d], w[d][b] = b == 1 ? T(1) : T(0);
        else if (inside) w[d][b] = b == 1 || b == 2 ? T(0.75) : T(0.25);
        else if (twice && (b == 0 || b == 3)) w[d][b] = T(0);
        else w[d][b] = line.wrap(f[d][b], nf[d]) ? line.weight_of(f[d][b], C[d]) : T(0);
      }
    }
    T acc = 0;
    for (int a = 0; a < 4; ++a) {
      if (w[0][a] == T(0)) continue;
      T plane = 0;
      for (int b = 0; b < 4; ++b) {
        if (w[1][b] == T(0)) continue;
        T line = 0;
        for (int c = 0; c < 4; ++c) {
          if (w[2][c] == T(0)) continue;
          const T v = fine(f[0][a], f[1][b], f[2][c]);
          line += w[2][c] * (scale.ptr ? v * scale(f[0][a], f[1][b], f[2][c]) : v);
        }
        plane += w[1][b] * line;
      }
      acc += w[0][a] * plane;
    }
    coarse(I, J, K) = inv_children * acc;
  }
};

/// The scale of every fine cell of f (row-major) for the transfers to c (twice as coarse),
/// interpolated along each axis as axis[] says: on a fluid fine cell, the sum of its trilinear
/// weights over the sum of those on fluid coarse cells (1 away from obstacles); 0 on a solid one.
/// Empty without obstacles.
template <class T>
std::vector<T> interpolation_scale3(const Poisson3Grid<T>& f, const Poisson3Grid<T>& c, const Mg3Axis<T> (&axis)[3]) {
  if (!f.has_links()) return {};
  std::vector<T> out(std::size_t(f.cells()), T(0));
  for (index_t i = 0; i < f.n[0]; ++i)
    for (index_t j = 0; j < f.n[1]; ++j)
      for (index_t k = 0; k < f.n[2]; ++k) {
        if (f.active[f.cell(i, j, k)] == T(0)) continue;
        index_t q[3][2];
        T w[3][2];
        const index_t at[3] = {i, j, k};
        for (int d = 0; d < 3; ++d) axis[d].weights(at[d], q[d][0], w[d][0], q[d][1], w[d][1]);
        double all = 0, fluid = 0;  // a fluid fine cell's own coarse cell is fluid: fluid > 0
        for (int m = 0; m < 8; ++m) {
          const int a = m >> 2, b = (m >> 1) & 1, e = m & 1;
          const double wt = double(w[0][a]) * double(w[1][b]) * double(w[2][e]);
          all += wt;
          if (c.active[c.cell(q[0][a], q[1][b], q[2][e])] != T(0)) fluid += wt;
        }
        out[f.cell(i, j, k)] = T(all / fluid);
      }
  return out;
}

}  // namespace sim::solvers
