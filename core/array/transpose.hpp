#pragma once
// The transpose as a contiguous copy (np.ascontiguousarray(a.T)): a tiled kernel through
// shared memory on the GPU, cache blocks on the CPU. transposed(view) in slicing.hpp is the
// zero-copy view.
#include "core/array/array.hpp"

namespace sim {

/// A new array holding the transpose of a (one read and one write of every element).
template <class T>
Array<T, 2> transpose(const Array<T, 2>& a);
/// Writes the transpose of src into dst (shape (n1, n0)); either may be strided. Queued.
template <class T>
void transpose(const Context& ctx, View<const T, 2> src, View<T, 2> dst);

}  // namespace sim
