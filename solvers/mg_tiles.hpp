#pragma once
// Multigrid's smoothing on tiles (core/kernels/for_each_tile.hpp). Each tile of mg_tile_rows x mg_tile_cols cells
// loads its cells and a halo of neighbours into fast memory once, runs every colour pass of the
// smoothing there (recomputing the halo's cells too, one ring fewer each pass, so it needs no
// other tile's results) and writes back only its own cells: the values of the pass-by-pass
// sweeps, bit for bit, for a fraction of their memory traffic. Pre-smoothing ends with the
// residual and its restriction to the coarser grid (two more rings of halo); post-smoothing
// starts with the prolongation of the coarse correction. The result goes to another field than
// the guess (a tile's halo must read values no other tile has smoothed yet).
// For one rank only (the halo is deeper than a ghost layer) and even cell counts (an odd
// periodic line has no red-black colouring).
#include <cstddef>

#include "core/kernels/for_each_tile.hpp"
#include "solvers/mg_transfer.hpp"
#include "solvers/poisson.hpp"

namespace sim::solvers {

/// Cells of a tile: rows (the outer dimension) and columns (the contiguous one). With its
/// halo of 6 (pre-smoothing) a tile's region is 64 columns wide: a warp's 32 lanes take the
/// cells of one colour of a row, so no lane idles in the smoothing passes.
constexpr index_t mg_tile_rows = 20, mg_tile_cols = 52;

/// Reads the tile's residual at the unwrapped fine index (MgRestrict::restricted's reader).
template <class T>
struct TileReader {
  const T* r;
  index_t i0, j0, w;  ///< the index of r[0] and the row width
  SIM_INLINE T operator()(index_t i, index_t j, index_t, index_t) const { return r[(i - i0) * w + (j - j0)]; }
};

/// The smoothing passes of one level on tiles: passes colour passes of red-black Gauss-Seidel
/// on A x = b from the guess in, alternating from first_colour, into x; optionally adding
/// P xc to the guess first, and bc = R (b - A x) after (see the file comment).
template <class T>
struct MgTileSmooth {
  PoissonStencil<T> s;
  View<const T, 2> in;  ///< the guess (not read when from_zero); not x's memory
  View<T, 2> x;
  View<const T, 2> b;
  int passes = 4;
  int first_colour = 0;
  bool from_zero = false;      ///< x is 0 on entry (not read)
  bool prolong = false;        ///< x += pro.correction first (pro.fine unused)
  MgProlongAdd<T> pro{};
  bool restrict_to = false;    ///< end with res.coarse = R (b - A x) (res.fine unused)
  MgRestrict<T> res{};

  /// Halo rings a tile loads.
  SIM_INLINE int halo() const { return passes + (restrict_to ? 2 : 0); }
  /// Scratch bytes a tile needs: x and b over the region, the residual around the tile, and
  /// the links of the region's rows and columns.
  std::size_t scratch_bytes() const {
    const std::size_t h = std::size_t(2 * halo()), rows = std::size_t(mg_tile_rows) + h, cols = std::size_t(mg_tile_cols) + h;
    const std::size_t residual = (std::size_t(mg_tile_rows) + 2) * (std::size_t(mg_tile_cols) + 2);
    return (2 * rows * cols + (restrict_to ? residual : 0) + 2 * (rows + cols)) * sizeof(T);
  }

  /// The index of unwrapped i in a periodic line of n cells.
  SIM_INLINE static index_t wrapped(index_t i, index_t n) {
    if (i < 0) i += n;
    else if (i >= n) i -= n;
    return i >= 0 && i < n ? i : ((i % n) + n) % n;  // (lines shorter than the halo wrap more than once)
  }
  /// True when unwrapped index i lies on a line of n cells (periodic or not); wi: its wrapped index.
  SIM_INLINE static bool line(index_t i, index_t n, bool periodic, index_t& wi) {
    wi = i;
    if (i >= 0 && i < n) return true;
    if (!periodic) return false;
    wi = wrapped(i, n);
    return true;
  }
  /// True for a cell of the grid at unwrapped (i, j), whose wrapped index is (wi, wj).
  SIM_INLINE bool cell(index_t i, index_t j, index_t& wi, index_t& wj) const {
    return line(i, s.nx, s.periodic_x, wi) && line(j, s.ny, s.periodic_y, wj);
  }

  SIM_INLINE void operator()(const TileTeam& team, index_t ti, index_t tj) const {
    const int h = halo(), tr = int(mg_tile_rows), tc = int(mg_tile_cols);
    const int hr = tr + 2 * h, w = tc + 2 * h;  // the region's rows and columns (w: its row length)
    const index_t i0 = ti * mg_tile_rows - h, j0 = tj * mg_tile_cols - h;  // the region's first (unwrapped) cell
    const int wr = tc + 2;                     // the residual's row length (the tile and one ring)
    T* X = team.scratch_as<T>(0);
    T* B = X + hr * w;
    T* R = B + hr * w;
    T* rl = R + (restrict_to ? (tr + 2) * wr : 0);  // rl, rh: the x-links of the region's rows; cl, ch: the y-links of
    T *rh = rl + hr, *cl = rh + hr, *ch = cl + w;     // its columns (without obstacles, the row's or column's alone; -1: no cell)
    const bool plain = !s.has_links;
    if (plain)
      team.for_rows(0, 1, 0, hr > w ? hr : w, [&](int, int q) {
        index_t wi, wj;
        if (q < hr) {
          const bool row = line(i0 + q, s.nx, s.periodic_x, wi);
          rl[q] = row ? s.link_x(wi, 0) : T(-1), rh[q] = row ? s.link_x(wi + 1, 0) : T(-1);
        }
        if (q < w) {
          const bool col = line(j0 + q, s.ny, s.periodic_y, wj);
          cl[q] = col ? s.link_y(0, wj) : T(-1), ch[q] = col ? s.link_y(0, wj + 1) : T(-1);
        }
      });
    team.for_rows(0, hr, 0, w, [&](int a, int c) {
      index_t wi, wj;
      const bool inside = cell(i0 + a, j0 + c, wi, wj);
      T v = inside && !from_zero ? in(wi, wj) : T(0);
      if (inside && prolong) v += pro.correction(wi, wj);
      X[a * w + c] = v;
      B[a * w + c] = inside ? b(wi, wj) : T(0);
    });
    team.sync();
    for (int p = 0; p < passes; ++p) {
      const int colour = first_colour ^ (p & 1), lo = 1 + p, hi = w - 1 - p;
      // (even sizes: the colour of an unwrapped index is that of its wrapped one)
      team.for_rows(lo, hr - 1 - p, 0, (hi - lo + 1) / 2, [&](int a, int k) {
        const int c = lo + 2 * k + int((colour ^ int((i0 + a + j0 + lo) & 1)) & 1);
        if (c >= hi) return;
        const int at = a * w + c;
        if (plain) {
          if (rl[a] < T(0) || cl[c] < T(0)) return;
          const T nb = s.combine_of(rl[a], rh[a], cl[c], ch[c], X[at - w], X[at + w], X[at - 1], X[at + 1]);
          X[at] = s.relaxed_by(B[at], nb, s.inverse(s.diagonal_of(rl[a], rh[a], cl[c], ch[c])));
          return;
        }
        index_t wi, wj;
        if (!cell(i0 + a, j0 + c, wi, wj)) return;
        const T nb = s.combine(wi, wj, X[at - w], X[at + w], X[at - 1], X[at + 1]);
        X[at] = s.relaxed(B[at], nb, wi, wj);
      });
      team.sync();
    }
    team.for_rows(h, h + tr, h, h + tc, [&](int a, int c) {
      const index_t i = i0 + a, j = j0 + c;
      if (i < s.nx && j < s.ny) x(i, j) = X[a * w + c];
    });
    if (!restrict_to) return;
    team.for_rows(h - 1, h + tr + 1, h - 1, h + tc + 1, [&](int a, int c) {
      const int at = a * w + c;
      T& r = R[(a - h + 1) * wr + (c - h + 1)];
      if (plain) {
        if (rl[a] < T(0) || cl[c] < T(0)) return;
        const T nb = s.combine_of(rl[a], rh[a], cl[c], ch[c], X[at - w], X[at + w], X[at - 1], X[at + 1]);
        r = B[at] - s.applied_of(X[at], nb, s.diagonal_of(rl[a], rh[a], cl[c], ch[c]));
        return;
      }
      index_t wi, wj;
      if (!cell(i0 + a, j0 + c, wi, wj)) return;
      const T nb = s.combine(wi, wj, X[at - w], X[at + w], X[at - 1], X[at + 1]);
      r = B[at] - s.applied(X[at], nb, wi, wj);
    });
    team.sync();
    const index_t nI = res.coarse_stencil.nx, nJ = res.coarse_stencil.ny;
    const TileReader<T> reader{R, ti * mg_tile_rows - 1, tj * mg_tile_cols - 1, wr};
    team.for_rows(0, tr / 2, 0, tc / 2, [&](int a, int c) {
      const index_t I = ti * (mg_tile_rows / 2) + a, J = tj * (mg_tile_cols / 2) + c;
      if (I >= nI || J >= nJ) return;
      res.coarse(I, J) = res.coarse_stencil.solid(I, J) ? T(0) : res.restricted(I, J, reader);
    });
  }
};

}  // namespace sim::solvers
