#pragma once
// Arrays joined into a new one (np.concatenate, np.stack) and the *_like constructors as free
// functions (np.empty_like, np.zeros_like, np.full_like). Each join allocates its result on
// the first array's context and copies every part in (queued, no wait).
#include <string>
#include <type_traits>

#include "core/array/array.hpp"
#include "core/runtime/error.hpp"

namespace sim {

/// A new uninitialised array of a's shape and context (np.empty_like).
template <class T, int R>
Array<T, R> empty_like(const Array<T, R>& a) { return a.empty_like(); }
/// A new array of zeros of a's shape and context (np.zeros_like).
template <class T, int R>
Array<T, R> zeros_like(const Array<T, R>& a) { return a.zeros_like(); }
/// A new array of a's shape and context with every element value (np.full_like).
template <class T, int R>
Array<T, R> full_like(const Array<T, R>& a, T value) { return a.full_like(value); }

namespace detail {
template <class T, int R, class... More>
void check_join(const char* op, int axis, bool new_axis, const Array<T, R>& first, const More&... more) {
  static_assert((std::is_same<More, Array<T, R>>::value && ...),
                "concatenate and stack join arrays of one element type and rank (convert with sim::cast first)");
  const Array<T, R>* parts[] = {&first, &more...};
  for (const Array<T, R>* p : parts) {
    if (p->context() != first.context()) throw BackendError(std::string(op) + ": the arrays live on different contexts");
    for (int d = 0; d < R; ++d)
      if ((new_axis || d != axis) && p->extent(d) != first.extent(d))
        throw ShapeError(std::string(op) + ": shapes " + to_string(first.shape()) + " and " + to_string(p->shape()) +
                         (new_axis ? " differ (stack needs equal shapes)" : " differ outside axis " + std::to_string(axis)));
  }
}
inline int normal_axis(const char* op, int axis, int rank) {
  const int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw ShapeError(std::string(op) + ": axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank));
  return a;
}
}  // namespace detail

/// The arrays joined along an existing axis (np.concatenate((a, b, ...), axis)); the other
/// extents must agree.
template <class T, int R, class... More>
Array<T, R> concatenate(Axis axis, const Array<T, R>& first, const More&... more) {
  const int ax = detail::normal_axis("sim::concatenate", axis.index, R);
  detail::check_join("sim::concatenate", ax, false, first, more...);
  Extents<R> shape = first.shape();
  shape.n[ax] = 0;
  for (const Array<T, R>* p : {&first, &more...}) shape.n[ax] += p->extent(ax);
  Array<T, R> out(first.context(), shape);
  index_t at = 0;
  for (const Array<T, R>* p : {&first, &more...}) {
    Box<R> b = out.box();
    b.lo[ax] = at, b.hi[ax] = at + p->extent(ax);
    detail::copy<T, R>(out.context(), p->view(), out.view().sub(b));
    at += p->extent(ax);
  }
  return out;
}
/// The arrays joined along axis 0 (np.concatenate((a, b, ...))).
template <class T, int R, class... More>
Array<T, R> concatenate(const Array<T, R>& first, const More&... more) {
  return concatenate(Axis{0}, first, more...);
}

/// The arrays (of one shape) stacked along a new axis (np.stack((a, b, ...), axis)): the
/// result has rank R + 1, and index i along the new axis is the i-th array.
template <class T, int R, class... More>
Array<T, R + 1> stack(Axis axis, const Array<T, R>& first, const More&... more) {
  static_assert(R + 1 <= 3, "stack makes an array of rank R + 1, and simkit arrays have rank 3 at most");
  const int ax = detail::normal_axis("sim::stack", axis.index, R + 1);
  detail::check_join("sim::stack", ax, true, first, more...);
  Extents<R + 1> shape;
  for (int d = 0, s = 0; d < R + 1; ++d) shape.n[d] = d == ax ? index_t(1 + sizeof...(More)) : first.extent(s++);
  Array<T, R + 1> out(first.context(), shape);
  index_t i = 0;
  for (const Array<T, R>* p : {&first, &more...}) {
    View<T, R> dst;  // out with index i fixed along the new axis
    dst.ptr = out.data() + i * out.strides()[ax];
    for (int d = 0, s = 0; d < R + 1; ++d)
      if (d != ax) dst.shape.n[s] = shape.n[d], dst.stride[s] = out.strides()[d], ++s;
    detail::copy<T, R>(out.context(), p->view(), dst);
    ++i;
  }
  return out;
}
/// The arrays stacked along a new first axis (np.stack((a, b, ...))).
template <class T, int R, class... More>
Array<T, R + 1> stack(const Array<T, R>& first, const More&... more) {
  return stack(Axis{0}, first, more...);
}

}  // namespace sim
