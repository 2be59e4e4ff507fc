// The spectrum's multiplication as cuFFT load callbacks of the inverse (c2r) transform of the 3D
// Fourier multiplier (multiplier3.cpp): compiled to LTO-IR at build time (core/CMakeLists.txt),
// handed to cuFFT by name, which inlines it into its own kernel when it plans (JIT LTO), so the
// multiplication costs no pass of its own. callerInfo is the scaled multiplier, laid out as the
// spectrum. The names and signatures are what cufftXtSetJITCallback looks up (not extern "C").
#include <cufftXt.h>

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
