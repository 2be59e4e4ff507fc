#pragma once
// View<T, Rank>: a non-owning, trivially copyable window on array memory; the only thing a
// kernel captures. Indexing is 64-bit; the origin may sit inside a larger allocation, so a
// field's view reaches its ghost cells at negative indices.
#include <type_traits>

#include "core/runtime/types.hpp"

namespace sim {

template <class T, int Rank>
struct View {
  static_assert(Rank >= 1 && Rank <= 3, "simkit views have rank 1, 2 or 3");
  using value_type = T;
  static constexpr int rank = Rank;

  T* ptr = nullptr;         ///< address of element (0, ..., 0)
  Extents<Rank> shape{};    ///< extents of the index box [0, shape)
  index_t stride[Rank] = {};  ///< element strides

  /// Element at (i[, j[, k]]).
  template <class... I>
  SIM_INLINE T& operator()(I... i) const {
    static_assert(sizeof...(I) == Rank, "a view of rank N takes N indices");
    return ptr[offset(i...)];
  }
  /// Offset in elements of (i, j, k) from the origin.
  SIM_INLINE index_t offset(index_t i) const { return i * stride[0]; }
  SIM_INLINE index_t offset(index_t i, index_t j) const { return i * stride[0] + j * stride[1]; }
  SIM_INLINE index_t offset(index_t i, index_t j, index_t k) const {
    return i * stride[0] + j * stride[1] + k * stride[2];
  }
  /// Extent of dimension d.
  SIM_HOST_DEVICE index_t extent(int d) const { return shape.n[d]; }
  /// Number of elements in [0, shape).
  SIM_HOST_DEVICE index_t size() const { return shape.size(); }
  /// The index box [0, shape).
  Box<Rank> box() const { return box_of(shape); }
  /// True when the elements of [0, shape) are dense and row-major.
  SIM_HOST_DEVICE bool contiguous() const {
    index_t expect = 1;
    for (int d = Rank - 1; d >= 0; --d) {
      if (shape.n[d] != 1 && stride[d] != expect) return false;
      expect *= shape.n[d];
    }
    return true;
  }
  /// The part of this view over box b (indices relative to this view); origin moves to b.lo.
  View sub(const Box<Rank>& b) const {
    View v = *this;
    index_t off = 0;
    for (int d = 0; d < Rank; ++d) off += b.lo[d] * stride[d], v.shape.n[d] = b.extent(d);
    v.ptr = ptr + off;
    return v;
  }
  /// The same view, read-only.
  template <class U = T, std::enable_if_t<!std::is_const<U>::value, int> = 0>
  SIM_HOST_DEVICE operator View<const U, Rank>() const {
    View<const U, Rank> v;
    v.ptr = ptr;
    v.shape = shape;
    for (int d = 0; d < Rank; ++d) v.stride[d] = stride[d];
    return v;
  }
};

/// Row-major strides of a dense array of the given shape.
template <int Rank>
SIM_HOST_DEVICE inline void row_major_strides(const Extents<Rank>& e, index_t* stride) {
  index_t s = 1;
  for (int d = Rank - 1; d >= 0; --d) stride[d] = s, s *= e.n[d];
}

/// A row-major dense view of the given shape over p.
template <class T, int Rank>
SIM_HOST_DEVICE inline View<T, Rank> dense_view(T* p, const Extents<Rank>& shape) {
  View<T, Rank> v;
  v.ptr = p;
  v.shape = shape;
  row_major_strides(shape, v.stride);
  return v;
}

static_assert(std::is_trivially_copyable<View<double, 3>>::value,
              "View must be trivially copyable: kernels capture it by value");

}  // namespace sim
