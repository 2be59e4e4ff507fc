#pragma once
// Products that nvcc may not fuse into a following addition (it contracts a * b + c into one
// fused multiply-add by default, which the host build does not): arithmetic written with them
// gives the same bits on both backends and in every kernel that inlines it.
#include "core/runtime/macros.hpp"

namespace sim::math {

/// a * b rounded on its own, never fused into a following addition (nvcc fuses a * b + c by
/// default; the host build does not): the same bits on both backends and in every kernel.
SIM_INLINE float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SIM_INLINE double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

}  // namespace sim::math
