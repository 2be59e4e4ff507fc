#pragma once
// Sorting: cub::DeviceRadixSort (vectors) and cub::DeviceSegmentedRadixSort (along an axis)
// on the GPU, a parallel LSD radix sort (vectors) and per-line sorts on the CPU threads (both
// order floats by their bits made monotone: NaN sorts last as in NumPy, -0.0 just before
// +0.0). argsort is stable (ties keep their order, NumPy's kind="stable"). Each allocates its
// result and is queued without waiting. bool arrays do not sort.
#include <cstdint>
#include <type_traits>

#include "core/array/array.hpp"

namespace sim {

/// A sorted copy of x, ascending (np.sort).
template <class T>
Array<T, 1> sort(const Array<T, 1>& x);
/// Writes x sorted ascending into out (same length; x may be strided). Queued.
template <class T>
void sort(const Context& ctx, View<const T, 1> x, View<T, 1> out);
/// The indices that sort x, stable, as int64 (np.argsort(x, kind="stable")).
template <class T>
Array<std::int64_t, 1> argsort(const Array<T, 1>& x);
/// Writes the stable sorting permutation of x into out (same length). Queued.
template <class T>
void argsort(const Context& ctx, View<const T, 1> x, View<std::int64_t, 1> out);

/// x with every line along axis sorted ascending (np.sort(x, axis); negative axes count
/// from the end).
template <class T, int Rank>
Array<T, Rank> sort(const Array<T, Rank>& x, int axis);
/// Writes x sorted along axis into out (same shape; either may be strided). Queued.
template <class T, int Rank>
void sort(const Context& ctx, View<const T, Rank> x, int axis, View<T, Rank> out);
/// For every line along axis, the stable sorting permutation of its elements (positions
/// along the axis, int64): np.argsort(x, axis, kind="stable").
template <class T, int Rank>
Array<std::int64_t, Rank> argsort(const Array<T, Rank>& x, int axis);
/// Writes the stable sorting permutations along axis into out (same shape). Queued.
template <class T, int Rank>
void argsort(const Context& ctx, View<const T, Rank> x, int axis, View<std::int64_t, Rank> out);

/// np.sort(M) and np.argsort(M) of a matrix or 3-D array: along the last axis.
template <class T, int Rank, std::enable_if_t<(Rank > 1), int> = 0>
Array<T, Rank> sort(const Array<T, Rank>& x) {
  return sort<T, Rank>(x, -1);
}
template <class T, int Rank, std::enable_if_t<(Rank > 1), int> = 0>
Array<std::int64_t, Rank> argsort(const Array<T, Rank>& x) {
  return argsort<T, Rank>(x, -1);
}

}  // namespace sim
