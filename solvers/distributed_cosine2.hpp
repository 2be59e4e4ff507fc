#pragma once
// The kernels of the distributed transform solve's 2D path for walls all round (cosine x
// cosine, solvers/distributed_transform.hpp), Makhoul's reduction of the 2D cosine transform
// to a 2D real FFT (core/numerics/spectral/multiplier2.cpp) cut at the transpose: with v the
// right-hand side reordered along both axes (x_0, x_2, x_4, ..., x_5, x_3, x_1) and V its 2D
// real FFT (a real FFT of every row along y, then a complex FFT of every column along x),
//   dctn(b)(a, c) = 2 Re[ W1(a) (W2(c) V(a, c) + conj(W2(c)) V(a, -c)) ],  W(k) = e^{-i pi k / 2n},
// and the inverse of P = dctn(b) / lambda is the reordered inverse 2D real FFT of
//   Z(k1, k2) = conj(W1(k1) W2(k2)) [P(k1, k2) - i P(k1, n2 - k2) - i P(n1 - k1, k2) - P(n1 - k1, n2 - k2)]
// scaled by 1 / (4 n1 n2). Z(k1, k2) and Z(n1 - k1, k2) need V at (k1, k2) and (n1 - k1, k2)
// only: each column k2 of the half spectrum is complete on the rank that holds it after the
// transpose, so the multiplication runs there, in place.
#include <vector>

#include "core/array/view.hpp"
#include "core/distributed/peer_slabs.hpp"
#include "core/runtime/macros.hpp"

namespace sim::solvers {

/// Where index j of n goes in Makhoul's order (evens ascending, then odds descending).
SIM_INLINE index_t makhoul_position(index_t j, index_t n) { return (j & 1) ? n - 1 - j / 2 : j / 2; }

/// Rows [i0, i1) of n in Makhoul's order as segments of it (PeerSlabs' RowSegment): the even
/// rows, ascending, then the odd rows, descending; each segment's place in Makhoul's order of
/// all n. A slab's spectrum held so is moved into Makhoul's order by the transpose itself.
inline std::vector<RowSegment> makhoul_segments(index_t i0, index_t i1, index_t n) {
  const index_t e0 = (i0 + 1) / 2, e1 = (i1 + 1) / 2, o0 = n - i1 / 2, o1 = n - i0 / 2;
  return {RowSegment{0, e0, e1 - e0}, RowSegment{e1 - e0, o0, o1 - o0}};
}

/// The row of this rank's slab (rows [i0, i1) of n along x) where local row i goes: i itself,
/// or, when reordered, its place in makhoul_segments(i0, i1, n) (on one rank, whole: Makhoul's
/// order).
struct SlabRowPlace {
  index_t n = 0, i0 = 0, e0 = 0, evens = 0, o0 = 0;
  bool reorder = false;
  /// The places of rows [i0, i1) of n, reordered or not.
  static SlabRowPlace of(index_t i0, index_t i1, index_t n, bool reorder) {
    const std::vector<RowSegment> s = makhoul_segments(i0, i1, n);
    return SlabRowPlace{n, i0, s[0].global, s[0].count, s[1].global, reorder};
  }
  SIM_INLINE index_t operator()(index_t i) const {
    if (!reorder) return i;
    const index_t g = i0 + i;
    return (g & 1) ? evens + makhoul_position(g, n) - o0 : g / 2 - e0;
  }
};

/// A slab's rows as the 2D cosine path holds them before its row FFTs (and after their
/// inverses): local row i at place(i), each row in Makhoul's order along y. Where a caller's
/// kernel writes the right-hand side, and reads the solution, for a solve without its own
/// gather and scatter (DistributedTransformPoisson::staged()). data null: no such rows.
template <class T>
struct CosineSlabRows {
  T* data = nullptr;
  index_t columns = 0;
  SlabRowPlace place;
  /// Local cell (i, j)'s value.
  SIM_INLINE T& operator()(index_t i, index_t j) const { return data[place(i) * columns + makhoul_position(j, columns)]; }
};

/// rows(i, j) = in(i, j): the rows reordered along y, and placed along x.
template <class T>
struct CosineRowsGather {
  View<const T, 2> in;
  CosineSlabRows<T> rows;
  SIM_INLINE void operator()(index_t i, index_t j) const { rows(i, j) = in(i, j); }
};

/// out(i, j) = rows(i, j): the gather undone.
template <class T>
struct CosineRowsScatter {
  CosineSlabRows<T> rows;
  View<T, 2> out;
  SIM_INLINE void operator()(index_t i, index_t j) const { out(i, j) = rows(i, j); }
};

/// to(makhoul(i), q, c) = from(i, q, c) (forward), or to(i, q, c) = from(makhoul(i), q, c):
/// the spectrum's columns reordered along x (n rows) and back.
template <class T>
struct CosineColumnsReorder {
  View<const T, 3> from;
  View<T, 3> to;
  index_t n;
  bool back;
  SIM_INLINE void operator()(index_t i, index_t q, index_t c) const {
    if (back) to(i, q, c) = from(makhoul_position(i, n), q, c);
    else to(makhoul_position(i, n), q, c) = from(i, q, c);
  }
};

/// V (the 2D real FFT of the reordered right-hand side, columns q0 .. q0 + hl - 1 of the
/// half spectrum, rows k1 0 .. n1 - 1, real and imaginary part side by side) becomes Z of
/// the top of this file, in place: one thread per k1 <= n1 / 2 and column, each reading and
/// writing rows k1 and n1 - k1 of its column alone. lx, ly: the axes' eigenvalues over h^2
/// (n1 and n2 of them); tw1, tw2: (cos, sin)(pi k / 2n) side by side; scale 1 / (4 n1 n2).
template <class T>
struct CosineColumnsDivide {
  View<T, 3> v;
  View<const double, 1> lx, ly, tw1, tw2;
  index_t n1, n2, h2, q0;
  double scale;
  SIM_INLINE static index_t wrap(index_t k, index_t n) { return k == n ? 0 : k; }
  /// V(a, b) for b the thread's column or its mirror n2 - b (then conj V(-a, n2 - b)).
  SIM_INLINE void spectrum(index_t a, index_t b, index_t col, double& re, double& im) const {
    if (b < h2) {
      re = double(v(a, col, 0)), im = double(v(a, col, 1));
      return;
    }
    const index_t r = wrap(n1 - a, n1);
    re = double(v(r, col, 0)), im = -double(v(r, col, 1));
  }
  /// P(a, b) = dctn(b)(a, b) / lambda(a, b) * scale; 0 at a == n1, b == n2 and the null mode.
  SIM_INLINE double multiplied(index_t a, index_t b, index_t col) const {
    if (a == n1 || b == n2) return 0.0;
    double r1, i1, r2, i2;
    spectrum(a, b, col, r1, i1);
    spectrum(a, wrap(n2 - b, n2), col, r2, i2);
    const double c1 = tw1(2 * a), s1 = tw1(2 * a + 1), c2 = tw2(2 * b), s2 = tw2(2 * b + 1);
    const double sr = c2 * r1 + s2 * i1 + c2 * r2 - s2 * i2;
    const double si = c2 * i1 - s2 * r1 + c2 * i2 + s2 * r2;
    const double lambda = lx(a) + ly(b);
    const double m = lambda > 0 ? double(T(1.0 / lambda)) : 0.0;  // the fused solve's multiplier, rounded as it is
    return 2.0 * (c1 * sr + s1 * si) * m * scale;
  }
  /// conj(W1(k1) W2(k2)) (qr + i qi), stored at row k1 of the column.
  SIM_INLINE void store(index_t k1, index_t k2, index_t col, double qr, double qi) const {
    const double c1 = tw1(2 * k1), s1 = tw1(2 * k1 + 1), c2 = tw2(2 * k2), s2 = tw2(2 * k2 + 1);
    const double wr = c1 * c2 - s1 * s2, wi = c1 * s2 + s1 * c2;
    v(k1, col, 0) = T(wr * qr - wi * qi), v(k1, col, 1) = T(wr * qi + wi * qr);
  }
  SIM_INLINE void operator()(index_t k1, index_t col) const {
    const index_t k2 = q0 + col, a = k1 == 0 ? n1 : n1 - k1, b = k2 == 0 ? n2 : n2 - k2;
    const double p00 = multiplied(k1, k2, col), p01 = multiplied(k1, b, col), p10 = multiplied(a, k2, col),
                 p11 = multiplied(a, b, col);
    store(k1, k2, col, p00 - p11, -p01 - p10);
    if (a < n1 && a != k1) store(a, k2, col, p10 - p01, -p11 - p00);
  }
};

}  // namespace sim::solvers
