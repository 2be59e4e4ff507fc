#pragma once
// Prefix sums: cub::DeviceScan on the GPU, a two-pass parallel scan on the CPU threads.
#include "core/array.hpp"
#include "core/reduce_ops.hpp"

namespace sim {

/// Running sum of a vector, out[i] = x[0] + ... + x[i] (np.cumsum); float stays float,
/// integers accumulate in 64 bits. Queued without waiting.
template <class T>
Array<sum_t<T>, 1> cumsum(const Array<T, 1>& x);
/// Writes the running sum of x into out (same length; either may be strided). Queued.
template <class T>
void cumsum(const Context& ctx, View<const T, 1> x, View<sum_t<T>, 1> out);

}  // namespace sim
