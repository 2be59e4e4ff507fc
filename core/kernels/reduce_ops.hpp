#pragma once
// Combining operators for reductions, and the accumulator type of each element type.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/runtime/macros.hpp"

namespace sim {

/// Type reductions accumulate in: double for floating point, 64-bit for integers.
template <class T>
using acc_t = std::conditional_t<std::is_floating_point<T>::value, double,
                                 std::conditional_t<std::is_signed<T>::value || std::is_same<T, bool>::value,
                                                    std::int64_t, std::uint64_t>>;

/// Element type of sums that keep an array's type: the float type itself, 64-bit for
/// integers (as NumPy's sum along an axis and cumsum).
template <class T>
using sum_t = std::conditional_t<std::is_floating_point<T>::value, T, acc_t<T>>;

namespace ops {
struct Plus {
  template <class T>
  SIM_INLINE T operator()(const T& a, const T& b) const { return a + b; }
  template <class T>
  static constexpr T identity() { return T(0); }
};
struct Minimum {
  template <class T>
  SIM_INLINE T operator()(const T& a, const T& b) const { return b < a ? b : a; }
  template <class T>
  static constexpr T identity() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
};
struct Maximum {
  template <class T>
  SIM_INLINE T operator()(const T& a, const T& b) const { return a < b ? b : a; }
  template <class T>
  static constexpr T identity() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  }
};
/// Logical or / and of 0-1 values (any / all): identities false and true, so an empty
/// any() is false and an empty all() is true, as in NumPy.
struct AnyOf {
  template <class T>
  SIM_INLINE T operator()(const T& a, const T& b) const { return a | b; }
  template <class T>
  static constexpr T identity() { return T(0); }
};
struct AllOf {
  template <class T>
  SIM_INLINE T operator()(const T& a, const T& b) const { return a & b; }
  template <class T>
  static constexpr T identity() { return T(1); }
};
}  // namespace ops

}  // namespace sim
