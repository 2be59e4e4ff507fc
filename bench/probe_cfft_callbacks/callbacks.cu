// The LTO callbacks probe_cfft_callbacks.cu hands to cuFFT: the division as a load callback with 64- and
// 32-bit indexing, with a reciprocal, cheaper stand-ins (multiply, scale, nothing) and as store callbacks;
// cbstoref: the float32 store callback (probe_cfft_callbacks_float.cu).
#include <cufftXt.h>
struct Div { const double* l0; const double* l1; const double* l2; unsigned long long columns, m; double inv_norm; };
__device__ cufftDoubleComplex cb64(void* in, unsigned long long offset, void* info, void*) {
  const Div& d = *static_cast<const Div*>(info);
  const unsigned long long i = offset / d.columns, col = offset - i * d.columns, j = col / d.m, k = col - j * d.m;
  const double lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  if (!(lambda > 0.0)) return cufftDoubleComplex{0, 0};
  const double f = d.inv_norm / lambda;
  const cufftDoubleComplex z = static_cast<const cufftDoubleComplex*>(in)[offset];
  return cufftDoubleComplex{z.x * f, z.y * f};
}
__device__ cufftDoubleComplex cb32(void* in, unsigned long long offset, void* info, void*) {
  const Div& d = *static_cast<const Div*>(info);
  const unsigned o = unsigned(offset), c = unsigned(d.columns), mm = unsigned(d.m);
  const unsigned i = o / c, col = o - i * c, j = col / mm, k = col - j * mm;
  const double lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  if (!(lambda > 0.0)) return cufftDoubleComplex{0, 0};
  const double f = d.inv_norm / lambda;
  const cufftDoubleComplex z = static_cast<const cufftDoubleComplex*>(in)[offset];
  return cufftDoubleComplex{z.x * f, z.y * f};
}
__device__ cufftDoubleComplex cbrcp(void* in, unsigned long long offset, void* info, void*) {
  const Div& d = *static_cast<const Div*>(info);
  const unsigned o = unsigned(offset), c = unsigned(d.columns), mm = unsigned(d.m);
  const unsigned i = o / c, col = o - i * c, j = col / mm, k = col - j * mm;
  const double lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  const double f = lambda > 0.0 ? d.inv_norm * __drcp_rn(lambda) : 0.0;
  const cufftDoubleComplex z = static_cast<const cufftDoubleComplex*>(in)[offset];
  return cufftDoubleComplex{z.x * f, z.y * f};
}
__device__ cufftDoubleComplex cbmul(void* in, unsigned long long offset, void* info, void*) {
  const Div& d = *static_cast<const Div*>(info);
  const unsigned o = unsigned(offset), c = unsigned(d.columns), mm = unsigned(d.m);
  const unsigned i = o / c, col = o - i * c, j = col / mm, k = col - j * mm;
  const double f = d.inv_norm * (d.l0[i] + d.l1[j] + d.l2[2 * k]);
  const cufftDoubleComplex z = static_cast<const cufftDoubleComplex*>(in)[offset];
  return cufftDoubleComplex{z.x * f, z.y * f};
}
__device__ cufftDoubleComplex cbscale(void* in, unsigned long long offset, void* info, void*) {
  const Div& d = *static_cast<const Div*>(info);
  const double f = d.inv_norm;
  const cufftDoubleComplex z = static_cast<const cufftDoubleComplex*>(in)[offset];
  return cufftDoubleComplex{z.x * f, z.y * f};
}
__device__ cufftDoubleComplex cbnothing(void* in, unsigned long long offset, void*, void*) {
  return static_cast<const cufftDoubleComplex*>(in)[offset];
}
__device__ void cbstore(void* out, unsigned long long offset, cufftDoubleComplex z, void* info, void*) {
  const Div& d = *static_cast<const Div*>(info);
  const unsigned o = unsigned(offset), c = unsigned(d.columns), mm = unsigned(d.m);
  const unsigned i = o / c, col = o - i * c, j = col / mm, k = col - j * mm;
  const double lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  const double f = lambda > 0.0 ? d.inv_norm / lambda : 0.0;
  static_cast<cufftDoubleComplex*>(out)[offset] = cufftDoubleComplex{z.x * f, z.y * f};
}
__device__ void cbstorercp(void* out, unsigned long long offset, cufftDoubleComplex z, void* info, void*) {
  const Div& d = *static_cast<const Div*>(info);
  const unsigned o = unsigned(offset), c = unsigned(d.columns), mm = unsigned(d.m);
  const unsigned i = o / c, col = o - i * c, j = col / mm, k = col - j * mm;
  const double lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  const double f = lambda > 0.0 ? d.inv_norm * __drcp_rn(lambda) : 0.0;
  static_cast<cufftDoubleComplex*>(out)[offset] = cufftDoubleComplex{z.x * f, z.y * f};
}
__device__ void cbstore64(void* out, unsigned long long offset, cufftDoubleComplex z, void* info, void*) {
  const Div& d = *static_cast<const Div*>(info);
  const unsigned long long i = offset / d.columns, col = offset - i * d.columns, j = col / d.m, k = col - j * d.m;
  const double lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  const double f = lambda > 0.0 ? d.inv_norm / lambda : 0.0;
  static_cast<cufftDoubleComplex*>(out)[offset] = cufftDoubleComplex{z.x * f, z.y * f};
}
__device__ void cbstorenothing(void* out, unsigned long long offset, cufftDoubleComplex z, void*, void*) {
  static_cast<cufftDoubleComplex*>(out)[offset] = z;
}
struct DivF { const float* l0; const float* l1; const float* l2; unsigned long long columns, m; float inv_norm; };
__device__ void cbstoref(void* out, unsigned long long offset, cufftComplex z, void* info, void*) {
  const DivF& d = *static_cast<const DivF*>(info);
  const unsigned o = unsigned(offset), c = unsigned(d.columns), mm = unsigned(d.m);
  const unsigned i = o / c, col = o - i * c, j = col / mm, k = col - j * mm;
  const float lambda = d.l0[i] + d.l1[j] + d.l2[2 * k];
  const float f = lambda > 0.0f ? d.inv_norm / lambda : 0.0f;
  static_cast<cufftComplex*>(out)[offset] = cufftComplex{z.x * f, z.y * f};
}
