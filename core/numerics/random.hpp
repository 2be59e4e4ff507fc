#pragma once
// Random fills from the context's Philox4x32-10 stream: cuRAND's generator on the GPU and
// the same stream on the CPU, so one seed gives the same numbers, bit for bit, on both.
// Each fill takes the next unused Philox blocks of the context (saved in checkpoints).
#include <cstdint>
#include <type_traits>

#include "core/array/array.hpp"

namespace sim {

namespace detail {
/// T in a position that does not take part in deduction: fill_uniform(x, -1, 1) converts the ints.
template <class T>
struct same {
  using type = T;
};
template <class T>
using same_t = typename same<T>::type;
template <class T, int Rank>
void fill_uniform(Array<T, Rank>& x, T lo, T hi);
template <class T, int Rank>
void fill_normal(Array<T, Rank>& x, T mean, T stddev);
}  // namespace detail

/// Fills x with uniform numbers lo + (hi - lo) u, u in the open interval (0, 1) (float or double).
template <class T, int Rank>
void fill_uniform(Array<T, Rank>& x, detail::same_t<T> lo = T(0), detail::same_t<T> hi = T(1)) {
  static_assert(std::is_floating_point<T>::value,
                "fill_uniform fills float or double arrays only; for random integers use fill_bits on a "
                "uint32_t array, or fill a float array and convert with cast<T>(floor(...))");
  detail::fill_uniform<T, Rank>(x, lo, hi);
}
/// Fills x with normal numbers of the given mean and standard deviation (float or double).
template <class T, int Rank>
void fill_normal(Array<T, Rank>& x, detail::same_t<T> mean = T(0), detail::same_t<T> stddev = T(1)) {
  static_assert(std::is_floating_point<T>::value, "fill_normal fills float or double arrays only");
  detail::fill_normal<T, Rank>(x, mean, stddev);
}
/// Fills x with the raw 32-bit words of the stream.
template <int Rank>
void fill_bits(Array<std::uint32_t, Rank>& x);

}  // namespace sim
