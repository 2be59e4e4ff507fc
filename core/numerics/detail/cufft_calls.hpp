#pragma once
// cuFFT's real-to-complex and complex-to-real executions for both precisions, and the check
// of a cuFFT result, shared by the per-axis transforms, the spectral multipliers and the
// batched 2D real FFTs (CUDA translation units only).
#include <cufft.h>

#include <string>

#include "core/numerics/detail/fft_common.hpp"
#include "core/runtime/error.hpp"

namespace sim::fft::detail {

/// Throws CudaError naming the call when a cuFFT call failed.
inline void check_cufft(cufftResult r, const char* call) {
  if (r != CUFFT_SUCCESS) throw CudaError(std::string("cuFFT ") + call + " failed (cufftResult " + std::to_string(int(r)) + ")");
}

/// The forward real-to-complex transform of plan h (cuFFT reads r, writes c).
inline void exec_r2c(cufftHandle h, const float* r, Complex<float>* c) {
  check_cufft(cufftExecR2C(h, const_cast<float*>(r), reinterpret_cast<cufftComplex*>(c)), "ExecR2C");
}
inline void exec_r2c(cufftHandle h, const double* r, Complex<double>* c) {
  check_cufft(cufftExecD2Z(h, const_cast<double*>(r), reinterpret_cast<cufftDoubleComplex*>(c)), "ExecD2Z");
}
/// The inverse complex-to-real transform of plan h (c is overwritten: cuFFT's scratch).
inline void exec_c2r(cufftHandle h, Complex<float>* c, float* r) {
  check_cufft(cufftExecC2R(h, reinterpret_cast<cufftComplex*>(c), r), "ExecC2R");
}
inline void exec_c2r(cufftHandle h, Complex<double>* c, double* r) {
  check_cufft(cufftExecZ2D(h, reinterpret_cast<cufftDoubleComplex*>(c), r), "ExecZ2D");
}

}  // namespace sim::fft::detail
