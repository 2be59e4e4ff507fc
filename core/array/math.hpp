#pragma once
// Elementwise math functions callable in kernels on both backends; float stays float.
#include <cmath>
#include <type_traits>

#include "core/runtime/macros.hpp"

namespace sim::math {

/// Integers are computed as double in transcendental functions.
template <class T>
using real_t = std::conditional_t<std::is_floating_point<T>::value, T, double>;

SIM_INLINE float sin(float x) { return ::sinf(x); }
SIM_INLINE double sin(double x) { return ::sin(x); }
SIM_INLINE float cos(float x) { return ::cosf(x); }
SIM_INLINE double cos(double x) { return ::cos(x); }
SIM_INLINE float exp(float x) { return ::expf(x); }
SIM_INLINE double exp(double x) { return ::exp(x); }
SIM_INLINE float log(float x) { return ::logf(x); }
SIM_INLINE double log(double x) { return ::log(x); }
SIM_INLINE float sqrt(float x) { return ::sqrtf(x); }
SIM_INLINE double sqrt(double x) { return ::sqrt(x); }
SIM_INLINE float pow(float x, float y) { return ::powf(x, y); }
SIM_INLINE double pow(double x, double y) { return ::pow(x, y); }
/// |x| for any arithmetic type.
template <class T>
SIM_INLINE T abs(T x) {
  return x < T(0) ? T(-x) : x;
}
/// |x| of a float or double: the sign bit cleared (one instruction, never a branch, which on
/// random signs mispredicts half the time; |-0| is +0 as in NumPy).
SIM_INLINE float abs(float x) { return ::fabsf(x); }
SIM_INLINE double abs(double x) { return ::fabs(x); }

}  // namespace sim::math
