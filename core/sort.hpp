#pragma once
// Sorting vectors: cub::DeviceRadixSort on the GPU, a parallel LSD radix sort on the CPU
// threads (both order floats by their bits made monotone: NaN sorts last as in NumPy, -0.0
// just before +0.0). argsort is stable (ties keep their order, NumPy's kind="stable").
// Each allocates its result and is queued without waiting.
#include <cstdint>

#include "core/array.hpp"

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

}  // namespace sim
