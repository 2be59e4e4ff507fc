#pragma once
// Lines<Rank>: a 1-3D view seen as outer x len x inner lines along one axis (NumPy's axis=),
// for the scans and sorts that work line by line. Line (o, p) holds the elements m = 0..len-1;
// offset(o, m, p) is the element's offset from the view's origin, for any strides.
#include <string>

#include "core/runtime/error.hpp"
#include "core/runtime/types.hpp"
#include "core/array/view.hpp"

namespace sim::detail {

struct Lines {
  index_t outer = 1, len = 0, inner = 1;
  index_t s_m = 0;                    // stride along the axis
  index_t so0 = 0, so1 = 0, n_o1 = 1;  // outer index o = o0 * n_o1 + o1
  index_t si0 = 0, si1 = 0, n_i1 = 1;  // inner index p = p0 * n_i1 + p1
  SIM_HOST_DEVICE index_t offset(index_t o, index_t m, index_t p) const {
    const index_t o0 = n_o1 == 1 ? o : o / n_o1, p0 = n_i1 == 1 ? p : p / n_i1;
    return o0 * so0 + (o - o0 * n_o1) * so1 + m * s_m + p0 * si0 + (p - p0 * n_i1) * si1;
  }
  /// Number of lines.
  SIM_HOST_DEVICE index_t count() const { return outer * inner; }
};

/// The axis as a non-negative number (NumPy's negative axes count from the end).
inline int normal_axis(int axis, int rank, const char* name, const std::string& shape) {
  const int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw ShapeError(std::string(name) + ": axis " + std::to_string(axis) + " out of range for an array of shape " + shape);
  return a;
}

/// The lines of v along axis (already normalised).
template <class T, int Rank>
Lines lines_of(const View<T, Rank>& v, int axis) {
  Lines l;
  l.len = v.shape.n[axis], l.s_m = v.stride[axis];
  const int no = axis, ni = Rank - 1 - axis;  // outer and inner dimension counts (0, 1 or 2)
  for (int d = 0; d < axis; ++d) l.outer *= v.shape.n[d];
  for (int d = axis + 1; d < Rank; ++d) l.inner *= v.shape.n[d];
  if (no >= 1) l.so0 = v.stride[0];
  if (no == 2) l.so1 = v.stride[1], l.n_o1 = v.shape.n[1];
  if (ni >= 1) l.si0 = v.stride[axis + 1];
  if (ni == 2) l.si1 = v.stride[axis + 2], l.n_i1 = v.shape.n[axis + 2];
  return l;
}

/// True when the lines of v along axis lie one after another, each dense (axis last, contiguous).
template <class T, int Rank>
bool lines_dense(const View<T, Rank>& v, int axis) {
  return axis == Rank - 1 && v.contiguous();
}

}  // namespace sim::detail
