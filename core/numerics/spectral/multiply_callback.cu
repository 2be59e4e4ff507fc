// cuFFT load callbacks of the spectral solves, compiled to LTO-IR at build time
// (core/CMakeLists.txt) and handed to cuFFT by name, which inlines them into its own kernel
// when it plans (JIT LTO), so that the work costs no pass of its own:
//   simkit_multiply_spectrum_{c,z}: the 3D Fourier multiplier's multiplication, in its inverse
//     (c2r) transform (multiplier3.cpp); callerInfo is the scaled multiplier, laid out as the spectrum;
//   simkit_divide_spectrum_{c,z}: the distributed periodic solve's division by the eigenvalues,
//     in the inverse complex FFT along x (batched_cfft.cpp); callerInfo a SeparableDivision.
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

/// Mode `offset` of the spectrum times d's factor (SeparableDivision: the same arithmetic as the
/// division kernel it replaces).
template <class T, class C>
__device__ C divided(const void* in, unsigned long long offset, const void* info) {
  const auto& d = *static_cast<const sim::fft::detail::SeparableDivision<T>*>(info);
  const unsigned long long i = offset / d.columns, col = offset - i * d.columns, j = col / d.m, k = col - j * d.m;
  const T lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  if (!(lambda > T(0))) return C{T(0), T(0)};
  const T f = d.inv_norm / lambda;
  const C z = static_cast<const C*>(in)[offset];
  return C{z.x * f, z.y * f};
}

__device__ cufftComplex simkit_divide_spectrum_c(void* in, unsigned long long offset, void* info, void*) {
  return divided<float, cufftComplex>(in, offset, info);
}

__device__ cufftDoubleComplex simkit_divide_spectrum_z(void* in, unsigned long long offset, void* info, void*) {
  return divided<double, cufftDoubleComplex>(in, offset, info);
}
