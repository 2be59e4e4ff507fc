// cuFFT load callbacks of the spectral solves, compiled to LTO-IR at build time
// (core/CMakeLists.txt) and handed to cuFFT by name, which inlines them into its own kernel
// when it plans (JIT LTO), so that the work costs no pass of its own:
//   simkit_multiply_spectrum_{c,z}: the 3D Fourier multiplier's multiplication, in its inverse
//     (c2r) transform (multiplier3.cpp); callerInfo is the scaled multiplier, laid out as the spectrum;
//   simkit_divide_spectrum_{c,z}[_narrow]: the distributed periodic solve's division by the
//     eigenvalues, a store callback of the forward complex FFT along x (batched_cfft.cpp; the
//     _narrow ones index in 32 bits, for spectra of fewer than 2^32 complex numbers); callerInfo
//     a SeparableDivision.
// The names and signatures are what cufftXtSetJITCallback looks up (not extern "C").
#include <cufftXt.h>

#include "core/numerics/spectral/spectrum_callbacks.hpp"

__device__ cufftComplex simkit_multiply_spectrum_c(void* in, unsigned long long offset, void* info, void*) {
  const float f = static_cast<const float*>(info)[offset];
  const cufftComplex z = static_cast<const cufftComplex*>(in)[offset];
  return cufftComplex{z.x * f, z.y * f};
}

__device__ cufftDoubleComplex simkit_multiply_spectrum_z(void* in, unsigned long long offset, void* info, void*) {
  const double f = static_cast<const double*>(info)[offset];
  const cufftDoubleComplex z = static_cast<const cufftDoubleComplex*>(in)[offset];
  return cufftDoubleComplex{z.x * f, z.y * f};
}

/// Mode `offset` of the spectrum, z, times d's factor, stored (SeparableDivision: the same
/// arithmetic as the division kernel it replaces). A store callback of the forward: as a load
/// callback of the inverse the same division measured slower, most at length 1024
/// (bench/results/2026-11-29-h200-fft-callbacks).
template <class T, class C, class Index>
__device__ void store_divided(void* out, unsigned long long offset, C z, const void* info) {
  const auto& d = *static_cast<const sim::fft::detail::SeparableDivision<T>*>(info);
  const Index o = Index(offset), columns = Index(d.columns), m = Index(d.m);
  const Index i = o / columns, col = o - i * columns, j = col / m, k = col - j * m;
  const T lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  const T f = lambda > T(0) ? d.inv_norm / lambda : T(0);
  static_cast<C*>(out)[offset] = C{z.x * f, z.y * f};
}

__device__ void simkit_divide_spectrum_c(void* out, unsigned long long offset, cufftComplex z, void* info, void*) {
  store_divided<float, cufftComplex, unsigned long long>(out, offset, z, info);
}

__device__ void simkit_divide_spectrum_z(void* out, unsigned long long offset, cufftDoubleComplex z, void* info, void*) {
  store_divided<double, cufftDoubleComplex, unsigned long long>(out, offset, z, info);
}

__device__ void simkit_divide_spectrum_c_narrow(void* out, unsigned long long offset, cufftComplex z, void* info, void*) {
  store_divided<float, cufftComplex, unsigned>(out, offset, z, info);
}

__device__ void simkit_divide_spectrum_z_narrow(void* out, unsigned long long offset, cufftDoubleComplex z, void* info, void*) {
  store_divided<double, cufftDoubleComplex, unsigned>(out, offset, z, info);
}
