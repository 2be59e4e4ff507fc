#pragma once
// What the spectral cuFFT load callbacks (multiply_callback.cu) read through their callerInfo,
// shared by them and the code that plans them (no CUDA headers: plain data).

namespace sim::fft::detail {

/// The division of every mode (i, j, k) of a row-major complex array of shape (n0, n1, m) by
/// l0[i] + l1[j] + l2[2 k], times inv_norm, and 0 where that sum is not positive: the periodic
/// transform solve's division (l2 holds each z eigenvalue twice, for the real and imaginary part).
template <class T>
struct SeparableDivision {
  const T* l0;
  const T* l1;
  const T* l2;
  unsigned long long columns;  ///< complex numbers from one i to the next (n1 m where dense; rows j past n1 are never loaded)
  unsigned long long m;
  T inv_norm;
};

}  // namespace sim::fft::detail
