#pragma once
// Views on part of an array, without copying: rows, columns, slices, the transpose, a
// reshape. Each returns a View sharing the array's memory (NumPy's basic slicing); write
// through it with sim::assign(ctx, view, expression_or_scalar), read it in expressions.
#include <limits>
#include <string>

#include "core/array/array.hpp"
#include "core/runtime/error.hpp"
#include "core/array/view.hpp"

namespace sim {

/// An omitted slice bound (Python's None): Range{1, none} is NumPy's 1:, Range{none, none, -1} is ::-1.
constexpr index_t none = std::numeric_limits<index_t>::min();

/// Index range [lo, hi) with a step, for slice(): NumPy's lo:hi:step. Negative bounds count
/// from the end (Range{1, -1} is 1:-1); none is an omitted bound; bounds outside the
/// dimension are an error rather than clamped.
struct Range {
  index_t lo = 0, hi = 0, step = 1;
};
/// The whole dimension (NumPy's :), as in slice(M, whole, Range{1, -1}).
constexpr Range whole{none, none, 1};

namespace detail {
/// The first index and the count of a Range over a dimension of extent n (NumPy's rules);
/// throws ShapeError for a zero step or a bound outside [-n, n].
inline void resolve_range(const Range& r, index_t n, int d, index_t& first, index_t& count) {
  auto bad = [&](const std::string& why) {
    return ShapeError("slice: dimension " + std::to_string(d) + " (extent " + std::to_string(n) + "): " + why);
  };
  if (r.step == 0) throw bad("the step is 0");
  auto bound = [&](index_t b, index_t omitted, const char* which) {
    if (b == none) return omitted;
    const index_t a = b < 0 ? b + n : b;
    if (a < 0 || a > n)
      throw bad(std::string(which) + " bound " + std::to_string(b) + " lies outside -" + std::to_string(n) + ".." +
                std::to_string(n));
    return a;
  };
  if (r.step > 0) {
    const index_t lo = bound(r.lo, 0, "lower"), hi = bound(r.hi, n, "upper");
    first = lo, count = hi > lo ? (hi - lo + r.step - 1) / r.step : 0;
  } else {
    index_t lo = bound(r.lo, n - 1, "lower"), hi = r.hi == none ? -1 : bound(r.hi, -1, "upper");
    if (lo == n) lo = n - 1;  // a[n::-1] starts at the last element, as in NumPy
    first = lo, count = lo > hi ? (lo - hi - r.step - 1) / -r.step : 0;
  }
  if (count == 0) first = 0;
}
}  // namespace detail

/// The part r0 x r1 ... of a view (NumPy's a[r0.lo:r0.hi:r0.step, ...]); checked. A negative
/// step gives a view with a negative stride (a[::-1]).
template <class T, int Rank, class... R>
View<T, Rank> slice(const View<T, Rank>& v, R... ranges) {
  static_assert(sizeof...(R) == Rank, "slice takes one Range per dimension");
  const Range r[Rank] = {ranges...};
  View<T, Rank> out = v;
  for (int d = 0; d < Rank; ++d) {
    index_t first = 0, count = 0;
    detail::resolve_range(r[d], v.shape.n[d], d, first, count);
    out.ptr += first * v.stride[d];
    out.shape.n[d] = count;
    out.stride[d] = v.stride[d] * r[d].step;
  }
  return out;
}
/// Row i of a matrix view (a[i, :]).
template <class T>
View<T, 1> row(const View<T, 2>& v, index_t i) {
  if (i < 0 || i >= v.shape.n[0]) throw ShapeError("row " + std::to_string(i) + " outside shape " + to_string(v.shape));
  View<T, 1> r;
  r.ptr = v.ptr + i * v.stride[0], r.shape.n[0] = v.shape.n[1], r.stride[0] = v.stride[1];
  return r;
}
/// Column j of a matrix view (a[:, j]), strided.
template <class T>
View<T, 1> column(const View<T, 2>& v, index_t j) {
  if (j < 0 || j >= v.shape.n[1]) throw ShapeError("column " + std::to_string(j) + " outside shape " + to_string(v.shape));
  View<T, 1> c;
  c.ptr = v.ptr + j * v.stride[1], c.shape.n[0] = v.shape.n[0], c.stride[0] = v.stride[0];
  return c;
}
/// The diagonal of a matrix view (np.diagonal), strided.
template <class T>
View<T, 1> diagonal(const View<T, 2>& v) {
  View<T, 1> d;
  d.ptr = v.ptr, d.shape.n[0] = v.shape.n[0] < v.shape.n[1] ? v.shape.n[0] : v.shape.n[1];
  d.stride[0] = v.stride[0] + v.stride[1];
  return d;
}
/// The transpose as a view (a.T): no copy; sim::transpose() makes a contiguous copy.
template <class T>
View<T, 2> transposed(const View<T, 2>& v) {
  View<T, 2> t;
  t.ptr = v.ptr, t.shape.n[0] = v.shape.n[1], t.shape.n[1] = v.shape.n[0];
  t.stride[0] = v.stride[1], t.stride[1] = v.stride[0];
  return t;
}
/// The same elements with another shape (a.reshape); the view must be contiguous.
template <class T, int Rank, int NewRank>
View<T, NewRank> reshape(const View<T, Rank>& v, const Extents<NewRank>& shape) {
  if (shape.size() != v.size())
    throw ShapeError("reshape: shape " + to_string(v.shape) + " has " + std::to_string(v.size()) + " elements, shape " +
                     to_string(shape) + " has " + std::to_string(shape.size()));
  if (!v.contiguous())
    throw ShapeError("reshape: the view of shape " + to_string(v.shape) +
                     " is not contiguous; copy it into an array first (a.copy_from, or assign)");
  return dense_view(v.ptr, shape);
}
/// The elements as a vector (a.ravel() of a contiguous array).
template <class T, int Rank>
View<T, 1> ravel(const View<T, Rank>& v) { return reshape(v, Extents<1>{{v.size()}}); }

/// The same, on arrays (the view shares the array's memory; keep the array alive).
template <class T, int Rank, class... R>
View<T, Rank> slice(Array<T, Rank>& a, R... r) { return slice(a.view(), r...); }
template <class T, int Rank, class... R>
View<const T, Rank> slice(const Array<T, Rank>& a, R... r) { return slice(a.view(), r...); }
template <class T>
View<T, 1> row(Array<T, 2>& a, index_t i) { return row(a.view(), i); }
template <class T>
View<const T, 1> row(const Array<T, 2>& a, index_t i) { return row(a.view(), i); }
template <class T>
View<T, 1> column(Array<T, 2>& a, index_t j) { return column(a.view(), j); }
template <class T>
View<const T, 1> column(const Array<T, 2>& a, index_t j) { return column(a.view(), j); }
template <class T>
View<T, 1> diagonal(Array<T, 2>& a) { return diagonal(a.view()); }
template <class T>
View<const T, 2> transposed(const Array<T, 2>& a) { return transposed(a.view()); }
template <class T>
View<T, 2> transposed(Array<T, 2>& a) { return transposed(a.view()); }
template <class T, int Rank, int NewRank>
View<T, NewRank> reshape(Array<T, Rank>& a, const Extents<NewRank>& shape) { return reshape(a.view(), shape); }
template <class T, int Rank, int NewRank>
View<const T, NewRank> reshape(const Array<T, Rank>& a, const Extents<NewRank>& shape) { return reshape(a.view(), shape); }
template <class T, int Rank>
View<T, 1> ravel(Array<T, Rank>& a) { return ravel(a.view()); }

namespace detail {
template <class T>
constexpr bool view_of_temporary = false;  // false for every T, but only once instantiated
}  // namespace detail
// A view of a temporary array would outlive its memory (the array dies at the end of the
// statement): these overloads turn that into a compile error that says what to do.
#define SIM_NO_VIEW_OF_TEMPORARY                                                                          \
  static_assert(detail::view_of_temporary<T>,                                                           \
                "a view of a temporary array would read freed memory: keep the array in a variable first "  \
                "(auto P = sim::matmul(A, B); ... transposed(P)), or use the array itself in the expression")
template <class T, int Rank, class... R>
View<T, Rank> slice(Array<T, Rank>&&, R...) { SIM_NO_VIEW_OF_TEMPORARY; return {}; }
template <class T>
View<T, 1> row(Array<T, 2>&&, index_t) { SIM_NO_VIEW_OF_TEMPORARY; return {}; }
template <class T>
View<T, 1> column(Array<T, 2>&&, index_t) { SIM_NO_VIEW_OF_TEMPORARY; return {}; }
template <class T>
View<T, 1> diagonal(Array<T, 2>&&) { SIM_NO_VIEW_OF_TEMPORARY; return {}; }
template <class T>
View<T, 2> transposed(Array<T, 2>&&) { SIM_NO_VIEW_OF_TEMPORARY; return {}; }
template <class T, int Rank, int NewRank>
View<T, NewRank> reshape(Array<T, Rank>&&, const Extents<NewRank>&) { SIM_NO_VIEW_OF_TEMPORARY; return {}; }
template <class T, int Rank>
View<T, 1> ravel(Array<T, Rank>&&) { SIM_NO_VIEW_OF_TEMPORARY; return {}; }
#undef SIM_NO_VIEW_OF_TEMPORARY

}  // namespace sim
