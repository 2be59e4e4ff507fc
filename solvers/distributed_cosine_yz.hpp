#pragma once
// The kernels of the distributed transform solve's 3D path for walls on y and z (cosine x
// cosine over (y, z), solvers/distributed_transform.hpp): Makhoul's reduction of the 2D cosine
// transform to a 2D real FFT (core/numerics/spectral/multiplier2.cpp, distributed_cosine2.hpp)
// per x-plane of slabs A, which hold every y and z. With v a plane reordered along y and z
// (x_0, x_2, x_4, ..., x_5, x_3, x_1) and V = rfft2(v),
//   dctn(b)(a, c) = 2 Re[ W1(a) (W2(c) V(a, c) + conj(W2(c)) V(a, -c)) ],  W(k) = e^{-i pi k / 2n},
// the coefficients of the per-axis DCT-II pair (REDFT10 along y and z), which the transpose
// moves to slabs B as a real array (the per-axis path's layout); and the inverse pair (REDFT01
// along y and z) of P is the reordered inverse 2D real FFT of
//   Z(k1, k2) = conj(W1(k1) W2(k2)) [P(k1, k2) - i P(k1, n2 - k2) - i P(n1 - k1, k2) - P(n1 - k1, n2 - k2)]
// (P at index n taken as 0): three passes each way (reorder, FFT, twiddle) for the per-axis
// path's two gathers, transforms and scatters.
#include "core/array/view.hpp"
#include "core/runtime/macros.hpp"
#include "solvers/distributed_cosine2.hpp"

namespace sim::solvers {

/// real(i, makhoul(j), makhoul(k)) = in(i, j, k): every x-plane reordered along y and z.
template <class T>
struct CosineYzGather {
  View<const T, 3> in;
  View<T, 3> real;
  index_t ny, nz;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    real(i, makhoul_position(j, ny), makhoul_position(k, nz)) = in(i, j, k);
  }
};

/// out(i, j, k) = real(i, makhoul(j), makhoul(k)): the gather undone.
template <class T>
struct CosineYzScatter {
  View<const T, 3> real;
  View<T, 3> out;
  index_t ny, nz;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    out(i, j, k) = real(i, makhoul_position(j, ny), makhoul_position(k, nz));
  }
};

/// coef(i, a, c) = dctn(b)(a, c) of plane i from v, the rfft2 of the reordered planes (real
/// and imaginary parts side by side, nz / 2 + 1 modes along z). ty, tz: (cos, sin)(pi k / 2n)
/// side by side for y and z.
template <class T>
struct CosineYzCoefficients {
  View<const T, 3> v;
  View<T, 3> coef;
  View<const double, 1> ty, tz;
  index_t ny, nz, hz;
  /// V(i, a, c) for any a < ny, c < nz, from the half spectrum.
  SIM_INLINE void spectrum(index_t i, index_t a, index_t c, double& re, double& im) const {
    if (c < hz) {
      re = double(v(i, a, 2 * c)), im = double(v(i, a, 2 * c + 1));
      return;
    }
    const index_t r = a == 0 ? 0 : ny - a;
    re = double(v(i, r, 2 * (nz - c))), im = -double(v(i, r, 2 * (nz - c) + 1));
  }
  SIM_INLINE void operator()(index_t i, index_t a, index_t c) const {
    double r1, i1, r2, i2;
    spectrum(i, a, c, r1, i1);
    spectrum(i, a, c == 0 ? 0 : nz - c, r2, i2);
    const double c1 = ty(2 * a), s1 = ty(2 * a + 1), c2 = tz(2 * c), s2 = tz(2 * c + 1);
    // W2 V(a, c) + conj(W2) V(a, -c), W2 = c2 - i s2
    const double sr = c2 * r1 + s2 * i1 + c2 * r2 - s2 * i2;
    const double si = c2 * i1 - s2 * r1 + c2 * i2 + s2 * r2;
    coef(i, a, c) = T(2.0 * (c1 * sr + s1 * si));  // 2 Re[W1 (sr + i si)], W1 = c1 - i s1
  }
};

/// z = Z of the top of this file from the coefficients p, per plane i: one thread per
/// k1 <= ny / 2 and k2 < nz / 2 + 1, writing rows k1 and ny - k1 of its column.
template <class T>
struct CosineYzSpectrum {
  View<const T, 3> p;
  View<T, 3> z;
  View<const double, 1> ty, tz;
  index_t ny, nz;
  /// P(i, a, c); 0 at a == ny or c == nz.
  SIM_INLINE double at(index_t i, index_t a, index_t c) const { return a == ny || c == nz ? 0.0 : double(p(i, a, c)); }
  /// conj(W1(k1) W2(k2)) (qr + i qi), stored at z(i, k1, k2).
  SIM_INLINE void store(index_t i, index_t k1, index_t k2, double qr, double qi) const {
    const double c1 = ty(2 * k1), s1 = ty(2 * k1 + 1), c2 = tz(2 * k2), s2 = tz(2 * k2 + 1);
    const double wr = c1 * c2 - s1 * s2, wi = c1 * s2 + s1 * c2;  // e^{+i pi (k1/2n1 + k2/2n2)}
    z(i, k1, 2 * k2) = T(wr * qr - wi * qi), z(i, k1, 2 * k2 + 1) = T(wr * qi + wi * qr);
  }
  SIM_INLINE void operator()(index_t i, index_t k1, index_t k2) const {
    const index_t a = k1 == 0 ? ny : ny - k1, b = k2 == 0 ? nz : nz - k2;
    const double p00 = at(i, k1, k2), p01 = at(i, k1, b), p10 = at(i, a, k2), p11 = at(i, a, b);
    store(i, k1, k2, p00 - p11, -p01 - p10);
    if (a < ny && a != k1) store(i, a, k2, p10 - p01, -p11 - p00);
  }
};

}  // namespace sim::solvers
