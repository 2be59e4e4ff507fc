#pragma once
// Prefix sums: cub::DeviceScan on the GPU, a two-pass parallel scan on the CPU threads; along
// an axis of a 2-D or 3-D array (NumPy's cumsum(a, axis)): a scan by key over the lines, or
// one thread per line when the axis is not the last, on the GPU; blocked line loops on the
// CPU threads.
#include <cstdint>

#include "core/array/array.hpp"
#include "core/kernels/reduce_ops.hpp"

namespace sim {

/// Running sum of a vector, out[i] = x[0] + ... + x[i] (np.cumsum); float stays float,
/// integers (and bool) accumulate in 64 bits. Queued without waiting.
template <class T>
Array<sum_t<T>, 1> cumsum(const Array<T, 1>& x);
/// Writes the running sum of x into out (same length; either may be strided). Queued.
template <class T>
void cumsum(const Context& ctx, View<const T, 1> x, View<sum_t<T>, 1> out);

/// Running sums along an axis, np.cumsum(x, axis) (negative axes count from the end); the
/// result has x's shape. Queued without waiting.
template <class T, int Rank>
Array<sum_t<T>, Rank> cumsum(const Array<T, Rank>& x, int axis);
/// Writes the running sums of x along axis into out (same shape; either may be strided).
template <class T, int Rank>
void cumsum(const Context& ctx, View<const T, Rank> x, int axis, View<sum_t<T>, Rank> out);

/// np.cumsum(x) of a matrix or 3-D array without an axis: the running sum of the flattened
/// (row-major) elements, a vector.
template <class T, int Rank, std::enable_if_t<(Rank > 1), int> = 0>
Array<sum_t<T>, 1> cumsum(const Array<T, Rank>& x) {
  Array<sum_t<T>, 1> out(x.context(), extents(x.size()));
  cumsum<T>(x.context(), dense_view<const T, 1>(x.data(), extents(x.size())), out.view());
  return out;
}

/// The elements of a where mask is true, in row-major order (NumPy's a[mask] and
/// np.extract(mask, a)); mask and a have one shape and may be strided views. Waits for the
/// device (the result's length is the number of true elements). CUB's DeviceSelect on the
/// GPU, one ordered pass on the CPU.
template <class T, int Rank>
Array<T, 1> extract(const Array<bool, Rank>& mask, const Array<T, Rank>& a);
template <class T, int Rank>
Array<T, 1> extract(const Context& ctx, View<const bool, Rank> mask, View<const T, Rank> a);
/// The flat (row-major) indices of the true elements of mask (np.flatnonzero), int64. Waits.
template <int Rank>
Array<std::int64_t, 1> flatnonzero(const Array<bool, Rank>& mask);
template <int Rank>
Array<std::int64_t, 1> flatnonzero(const Context& ctx, View<const bool, Rank> mask);

}  // namespace sim
