#pragma once
// Reductions along one axis and the statistics NumPy users reach for:
//   sum(M, 0)            column sums of a matrix (M.sum(axis=0)); sum(M, 1) the row sums
//   amin / amax(M, axis) smallest / largest along an axis (np.amin, np.amax)
//   mean / var / stddev  whole array or along an axis; var and stddev in one pass (shifted
//                        sums in double), ddof as in NumPy
//   argmin / argmax      flat index of the first extreme (whole array) or index along an axis
// Each takes arrays, views or fused expressions (sum(x * x, 1) reads x once) and allocates
// its result. Whole-array results wait for the device; axis results are arrays on the same
// context, queued without waiting. An axis reduction of a vector does not compile: sum(v)
// is its total. (min(M, 0) and max(M, 0) stay elementwise, as np.minimum / np.maximum.)
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "core/cpu/reduce_axis.hpp"
#include "core/cpu/reduce_kernels.hpp"
#include "core/array/expr.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/reduce_axis.cuh"
#endif

namespace sim {

inline namespace SIM_TU_NS {
namespace expr {

/// The reduced array seen as outer x len x inner, the axis in the middle.
struct AxisSplit {
  index_t outer = 1, len = 1, inner = 1;
};
template <int Rank>
AxisSplit split_axis(const Extents<Rank>& s, int axis, const char* name) {
  if (axis < 0) axis += Rank;  // NumPy's negative axes
  if (axis < 0 || axis >= Rank)
    throw ShapeError(std::string(name) + ": axis out of range for an array of shape " + to_string(s));
  AxisSplit a;
  for (int d = 0; d < axis; ++d) a.outer *= s.n[d];
  a.len = s.n[axis];
  for (int d = axis + 1; d < Rank; ++d) a.inner *= s.n[d];
  return a;
}
/// The shape of the result: the input's with the axis removed.
template <int Rank>
Extents<Rank - 1> drop_axis(const Extents<Rank>& s, int axis) {
  if (axis < 0) axis += Rank;
  Extents<Rank - 1> r;
  for (int d = 0, k = 0; d < Rank; ++d)
    if (d != axis) r.n[k++] = s.n[d];
  return r;
}

/// Reads expression e at (outer o, position m along the axis, inner p).
template <class E>
struct AxisAt {
  E e;
  int axis;
  index_t n1, n2;  // extents of dimensions 1 and 2 (rank 3)
  SIM_INLINE auto operator()(index_t o, index_t m, index_t p) const {
    if constexpr (E::rank == 2) {
      return axis == 0 ? e(m, p) : e(o, m);
    } else {
      if (axis == 0) {
        const index_t j = p / n2;
        return e(m, j, p - j * n2);
      }
      if (axis == 1) return e(o, m, p);
      const index_t i = o / n1;
      return e(i, o - i * n1, m);
    }
  }
  /// V values consecutive in memory: at positions m..m+V-1 along the axis when it is the last
  /// (p is 0), else at inner positions p..p+V-1 (in one row: checked before the launch).
  template <int V>
  SIM_INLINE void vec(typename E::value_type (&out)[V], index_t o, index_t m, index_t p) const {
    if (axis == E::rank - 1) {
      if constexpr (E::rank == 2) {
        e.template vec<V>(out, o, m);
      } else {
        const index_t i = o / n1;
        e.template vec<V>(out, i, o - i * n1, m);
      }
      return;
    }
    if constexpr (E::rank == 2) {
      e.template vec<V>(out, m, p);
    } else {
      if (axis == 0) {
        const index_t j = p / n2;
        e.template vec<V>(out, m, j, p - j * n2);
      } else {
        e.template vec<V>(out, o, m, p);
      }
    }
  }
};

/// A matrix read along axis 0 (the column sums and their kind): at (o, m, p) the element
/// (m, p), with no per-element choice of axis, so the cpu loops over a row vectorise.
template <class E>
struct AxisRows {
  E e;
  SIM_INLINE auto operator()(index_t, index_t m, index_t p) const { return e(m, p); }
  template <int V>
  SIM_INLINE void vec(typename E::value_type (&out)[V], index_t, index_t m, index_t p) const {
    e.template vec<V>(out, m, p);
  }
};

/// Maps that can read V values at once (map.vec<V>) say so.
template <class M, class = void>
constexpr bool has_vec = false;
template <class M>
constexpr bool has_vec<M, std::void_t<decltype(M::vectorised)>> = M::vectorised;

template <class Acc, class At>
struct AxisValue {  // map: the value, converted
  static constexpr bool vectorised = true;
  At at;
  SIM_INLINE Acc operator()(index_t o, index_t m, index_t p) const { return static_cast<Acc>(at(o, m, p)); }
  template <int V>
  SIM_INLINE void vec(Acc (&out)[V], index_t o, index_t m, index_t p) const {
    decltype(at(o, m, p)) x[V];
    at.template vec<V>(x, o, m, p);
    for (int k = 0; k < V; ++k) out[k] = static_cast<Acc>(x[k]);
  }
};
template <class At>
struct AxisNonZero {  // map: 1 where the value is non-zero (count, any, all)
  At at;
  SIM_INLINE std::int64_t operator()(index_t o, index_t m, index_t p) const {
    return at(o, m, p) != decltype(at(o, m, p))(0) ? 1 : 0;
  }
};
template <class Out>
struct AxisCast {  // fin: the accumulator, converted
  template <class Acc>
  SIM_INLINE Out operator()(const Acc& a, index_t, index_t, index_t) const { return static_cast<Out>(a); }
};
template <class Out>
struct AxisMean {
  SIM_INLINE Out operator()(double s, index_t, index_t, index_t len) const { return static_cast<Out>(s / double(len)); }
};

/// Count, shifted sum and shifted sum of squares (shift k: one value of the set), so that
/// the variance is one pass and does not cancel catastrophically when mean >> spread.
struct Moments {
  double n, s, s2, k;
};
struct MomentsOp {
  SIM_INLINE Moments operator()(const Moments& a, const Moments& b) const {
    return Moments{a.n + b.n, a.s + b.s, a.s2 + b.s2, a.n > 0 ? a.k : b.k};
  }
};
SIM_INLINE double moments_mean(const Moments& m) { return m.k + m.s / m.n; }
SIM_INLINE double moments_var(const Moments& m, double ddof) {
  const double v = (m.s2 - m.s * m.s / m.n) / (m.n - ddof);
  return v < 0 ? 0.0 : v;
}
template <class At>
struct AxisMoments {
  At at;
  SIM_INLINE Moments operator()(index_t o, index_t m, index_t p) const {
    const double k = static_cast<double>(at(o, 0, p)), v = static_cast<double>(at(o, m, p)) - k;
    return Moments{1.0, v, v * v, k};
  }
};
template <class Out>
struct MomentsFin {
  int what;  // 0 mean, 1 variance, 2 standard deviation
  double ddof;
  SIM_INLINE Out operator()(const Moments& a, index_t, index_t, index_t) const {
    if (what == 0) return static_cast<Out>(moments_mean(a));
    const double v = moments_var(a, ddof);
    return static_cast<Out>(what == 1 ? v : ::sqrt(v));
  }
};

/// An index and its value; ArgOp keeps the first extreme (NaN counts as the extreme, as in NumPy).
template <class T>
struct ArgAcc {
  index_t idx;
  T val;
};
template <bool Max>
struct ArgOp {
  template <class T>
  SIM_INLINE ArgAcc<T> operator()(const ArgAcc<T>& a, const ArgAcc<T>& b) const {
    const bool an = a.val != a.val, bn = b.val != b.val;  // NaN
    if (an || bn) {
      if (an && bn) return a.idx < b.idx ? a : b;
      return an ? a : b;
    }
    if (Max ? (b.val < a.val) : (a.val < b.val)) return a;
    if (Max ? (a.val < b.val) : (b.val < a.val)) return b;
    return a.idx < b.idx ? a : b;
  }
  template <class T>
  static ArgAcc<T> identity() {
    return ArgAcc<T>{std::numeric_limits<index_t>::max(),
                     Max ? ops::Maximum::identity<T>() : ops::Minimum::identity<T>()};
  }
};
template <class T, class At>
struct AxisArg {
  At at;
  SIM_INLINE ArgAcc<T> operator()(index_t o, index_t m, index_t p) const { return ArgAcc<T>{m, static_cast<T>(at(o, m, p))}; }
};
struct ArgIndex {
  template <class T>
  SIM_INLINE std::int64_t operator()(const ArgAcc<T>& a, index_t, index_t, index_t) const { return a.idx; }
};

/// A float or double matrix (an array or a view), read by the cpu backend's compiled loops
/// (core/cpu/reduce_kernels.hpp) when its rows are contiguous.
template <class E>
constexpr bool is_host_loop_matrix = false;
template <class T>
constexpr bool is_host_loop_matrix<Leaf<T, 2>> = std::is_same<T, float>::value || std::is_same<T, double>::value;
/// A float or double array of any rank (argmin / argmax when contiguous).
template <class E>
constexpr bool is_host_loop_array = false;
template <class T, int R>
constexpr bool is_host_loop_array<Leaf<T, R>> = std::is_same<T, float>::value || std::is_same<T, double>::value;

/// Runs one reduction along an axis of e into a new array of rank Rank - 1.
template <class Out, class Acc, class E, class MakeMap, class Op, class Fin>
Array<Out, E::rank - 1> along(const Context* ctx, const char* name, const E& e, int axis, MakeMap make_map, const Op& op,
                              Acc init, const Fin& fin, bool empty_ok, Array<Out, E::rank - 1>* into = nullptr) {
  constexpr int Rank = E::rank;
  static_assert(Rank >= 2,
                "a reduction along an axis needs a matrix or a 3-D array; for a vector, reduce the whole "
                "array: sum(v), mean(v), argmax(v) (var and stddev take ddof as a double: var(v, 1.0))");
  Operands<Rank> o;
  o.ctx = ctx;
  e.collect(o);
  if (!o.ctx) throw BackendError(std::string(name) + ": the expression has no context; pass one explicitly");
  if (!o.has_shape) throw ShapeError(std::string(name) + ": the expression's shape is not fixed by any operand");
  const AxisSplit s = split_axis(o.shape, axis, name);
  if (s.len == 0 && !empty_ok && s.outer * s.inner > 0)
    throw ShapeError(std::string(name) + ": the axis has length 0, so there is no extreme (shape " + to_string(o.shape) + ")");
  // the result: a new array, or `into` (NumPy's out=), which must have the result's shape
  Array<Out, Rank - 1> fresh;
  if (into) {
    if (into->context() != *o.ctx) throw BackendError(std::string(name) + ": out lives on another context");
    if (into->shape() != drop_axis(o.shape, axis))
      throw ShapeError(std::string(name) + ": out has shape " + to_string(into->shape()) + ", the result has shape " +
                       to_string(drop_axis(o.shape, axis)));
  } else {
    fresh = Array<Out, Rank - 1>(*o.ctx, drop_axis(o.shape, axis));
  }
  Array<Out, Rank - 1>& out = into ? *into : fresh;
  if (out.size() == 0) return fresh;
  const auto at = AxisAt<E>{e, axis < 0 ? axis + Rank : axis, Rank > 1 ? o.shape.n[1] : 1, Rank > 2 ? o.shape.n[Rank - 1] : 1};
  const auto map = make_map(at);
  if (o.ctx->is_cuda()) {
#if SIM_TU_HAS_CUDA
    constexpr int V = gpu::vec_width<typename E::value_type>;
    if constexpr (has_vec<std::decay_t<decltype(map)>>) {  // vector loads along rows, in whole vectors
      // the last axis: whole vectors along it (an earlier axis whose later extents are 1 also
      // has inner == 1, but its elements are not consecutive: no vector path); another axis:
      // groups of V outputs within one row
      const bool rows_ok = s.inner == 1 ? at.axis == Rank - 1 && s.len % V == 0
                                        : s.inner % V == 0 && (Rank == 2 || at.axis != 0 || o.shape.n[Rank - 1] % V == 0);
      if (rows_ok && e.template vec_ok<V>(false)) {
        gpu::reduce_along<V>(*o.ctx, name, s.outer, s.len, s.inner, map, op, init, fin, out.data());
        return fresh;
      }
    }
    gpu::reduce_along(*o.ctx, name, s.outer, s.len, s.inner, map, op, init, fin, out.data());
#else
    throw detail::not_compiled_for_cuda(name);
#endif
  } else {
    if constexpr (is_host_loop_matrix<E> && std::is_same<Op, ops::Plus>::value && std::is_same<Out, typename E::value_type>::value &&
                  std::is_same<Fin, AxisCast<Out>>::value && std::is_same<decltype(map), const AxisValue<double, AxisAt<E>>>::value) {
      if (e.v.stride[1] == 1) {  // sum(M, 0) or sum(M, 1) of rows in memory: the compiled loops
        if (at.axis == 0) cpu::column_sums(e.v.ptr, s.len, s.inner, e.v.stride[0], out.data());
        else cpu::row_sums(e.v.ptr, s.outer, s.len, e.v.stride[0], out.data());
        return fresh;
      }
    }
    if constexpr (Rank == 2) {
      if (at.axis == 0) {  // a matrix's columns: rows streamed through a branch-free map
        const auto rows = make_map(AxisRows<E>{e});
        constexpr int V = 8;  // 8 consecutive outputs per load where the rows allow
        if constexpr (has_vec<std::decay_t<decltype(rows)>>) {
          if (s.inner % V == 0 && e.template vec_ok<V>(false)) {
            cpu::reduce_along_vec<V>(s.outer, s.len, s.inner, rows, op, init, fin, out.data());
            return fresh;
          }
        }
        cpu::reduce_along(s.outer, s.len, s.inner, rows, op, init, fin, out.data());
        return fresh;
      }
    }
    cpu::reduce_along(s.outer, s.len, s.inner, map, op, init, fin, out.data());
  }
  return fresh;
}

// ---- whole-array statistics: a map over the points of the expression's box
template <class E>
struct WholeMoments {
  E e;
  template <class... I>
  SIM_INLINE Moments operator()(I... i) const {
    const double k = static_cast<double>(e(index_t(i * 0)...)), v = static_cast<double>(e(i...)) - k;
    return Moments{1.0, v, v * v, k};
  }
};
template <class E>
struct WholeMomentsFlat {
  E e;
  SIM_INLINE Moments operator()(index_t t) const {
    const double k = static_cast<double>(e.flat(0)), v = static_cast<double>(e.flat(t)) - k;
    return Moments{1.0, v, v * v, k};
  }
  template <int V>
  SIM_INLINE void vec(Moments (&out)[V], index_t t) const {
    typename E::value_type x[V];
    e.template vec<V>(x, t);
    const double k = static_cast<double>(e.flat(0));
    for (int q = 0; q < V; ++q) {
      const double v = static_cast<double>(x[q]) - k;
      out[q] = Moments{1.0, v, v * v, k};
    }
  }
};
template <class T, class E, int Rank>
struct WholeArg {
  E e;
  Extents<Rank> shape;
  SIM_INLINE ArgAcc<T> operator()(index_t i) const { return ArgAcc<T>{i, static_cast<T>(e(i))}; }
  SIM_INLINE ArgAcc<T> operator()(index_t i, index_t j) const {
    return ArgAcc<T>{i * shape.n[1] + j, static_cast<T>(e(i, j))};
  }
  SIM_INLINE ArgAcc<T> operator()(index_t i, index_t j, index_t k) const {
    return ArgAcc<T>{(i * shape.n[1] + j) * shape.n[2] + k, static_cast<T>(e(i, j, k))};
  }
};
template <class T, class E>
struct WholeArgFlat {
  E e;
  SIM_INLINE ArgAcc<T> operator()(index_t t) const { return ArgAcc<T>{t, static_cast<T>(e.flat(t))}; }
  template <int V>
  SIM_INLINE void vec(ArgAcc<T> (&out)[V], index_t t) const {
    typename E::value_type x[V];
    e.template vec<V>(x, t);
    for (int k = 0; k < V; ++k) out[k] = ArgAcc<T>{t + k, static_cast<T>(x[k])};
  }
};

template <class E>
std::pair<const Context*, Extents<E::rank>> operands_of(const E& e, const Context* ctx, const char* name) {
  static_assert(E::rank > 0, "a reduction needs at least one array in its expression");
  Operands<E::rank> o;
  o.ctx = ctx;
  e.collect(o);
  if (!o.ctx) throw BackendError(std::string(name) + ": the expression has no context; pass one explicitly");
  if (!o.has_shape) throw ShapeError(std::string(name) + ": the expression's shape is not fixed by any operand");
  return {o.ctx, o.shape};
}

template <class E>
Moments whole_moments(const E& e, const Context* ctx, const char* name) {
  auto [c, shape] = operands_of(e, ctx, name);
  const Moments init{0, 0, 0, 0};
  if (!c->is_cuda() && e.contiguous()) {  // host memory: plain vectorisable loops
    const index_t n = shape.size();
    if (n == 0) return init;
    const double k = static_cast<double>(e.flat(0));
    Moments m{double(n), 0, 0, k};
    cpu::shifted_sums(n, [&](index_t t) { return e.flat(t); }, k, m.s, m.s2);
    return m;
  }
#if SIM_TU_HAS_CUDA
  if (c->is_cuda() && e.contiguous()) {
    if (shape.size() == 0) return init;
    constexpr int V = gpu::vec_width<typename E::value_type>;
    if (e.template vec_ok<V>(true))
      return gpu::reduce_flat<V>(*c, name, shape.size(), WholeMomentsFlat<E>{e}, MomentsOp{}, init);
    return gpu::reduce_flat(*c, name, shape.size(), WholeMomentsFlat<E>{e}, MomentsOp{}, init);
  }
#endif
  if (e.contiguous())
    return reduce(*c, name, Box<1>{{0}, {shape.size()}}, WholeMomentsFlat<E>{e}, MomentsOp{}, init);
  return reduce(*c, name, box_of(shape), WholeMoments<E>{e}, MomentsOp{}, init);
}

template <bool Max, class E>
std::int64_t whole_arg(const E& e, const Context* ctx, const char* name) {
  using T = typename E::value_type;
  auto [c, shape] = operands_of(e, ctx, name);
  if (shape.size() == 0) throw ShapeError(std::string(name) + ": the array is empty, so there is no extreme");
  if (!c->is_cuda() && e.contiguous()) {  // host memory: plain vectorisable loops
    if constexpr (is_host_loop_array<E>) return cpu::first_extreme(e.v.ptr, shape.size(), Max);  // compiled per ISA
    return cpu::arg_extreme<Max, T>(shape.size(), [&](index_t t) { return static_cast<T>(e.flat(t)); });
  }
  ArgAcc<T> r;
#if SIM_TU_HAS_CUDA
  if (c->is_cuda() && e.contiguous()) {
    constexpr int V = gpu::vec_width<typename E::value_type>;
    if (e.template vec_ok<V>(true))
      return gpu::reduce_flat<V>(*c, name, shape.size(), WholeArgFlat<T, E>{e}, ArgOp<Max>{}, ArgOp<Max>::template identity<T>()).idx;
    return gpu::reduce_flat(*c, name, shape.size(), WholeArgFlat<T, E>{e}, ArgOp<Max>{}, ArgOp<Max>::template identity<T>()).idx;
  }
#endif
  if (e.contiguous())
    r = reduce(*c, name, Box<1>{{0}, {shape.size()}}, WholeArgFlat<T, E>{e}, ArgOp<Max>{}, ArgOp<Max>::template identity<T>());
  else
    r = reduce(*c, name, box_of(shape), WholeArg<T, E, E::rank>{e, shape}, ArgOp<Max>{}, ArgOp<Max>::template identity<T>());
  return r.idx;
}

}  // namespace expr

// ---- along an axis (each returns a new array of rank - 1, queued without waiting)

/// Sum along an axis: sum(M, 0) the column sums, sum(M, 1) the row sums (M.sum(axis=...)).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto sum(const E& e, int axis, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  using Acc = acc_t<T>;
  return expr::along<sum_t<T>>(
      ctx, "sim::sum(axis)", expr::kernel_node<T>(e), axis, [](auto at) { return expr::AxisValue<Acc, decltype(at)>{at}; },
      ops::Plus{}, Acc(0), expr::AxisCast<sum_t<T>>{}, true);
}
/// Sum along an axis into an existing array (np.sum(M, axis, out=r)); queued, no allocation.
template <class E, class Out, int R, std::enable_if_t<expr::is_operand<E>, int> = 0>
void sum(const E& e, int axis, Array<Out, R>& out) {
  using T = expr_value_t<E>;
  using Acc = acc_t<T>;
  static_assert(std::is_same<Out, sum_t<T>>::value, "sum(e, axis, out): out holds the sum's type (float for float, "
                                                     "double for double, int64 for integers)");
  expr::along<sum_t<T>>(
      &out.context(), "sim::sum(axis, out)", expr::kernel_node<T>(e), axis,
      [](auto at) { return expr::AxisValue<Acc, decltype(at)>{at}; }, ops::Plus{}, Acc(0), expr::AxisCast<sum_t<T>>{}, true,
      &out);
}
/// Mean along an axis into an existing array (np.mean(M, axis, out=r)); queued.
template <class E, class Out, int R, std::enable_if_t<expr::is_operand<E>, int> = 0>
void mean(const E& e, int axis, Array<Out, R>& out) {
  using T = expr_value_t<E>;
  static_assert(std::is_same<Out, math::real_t<T>>::value, "mean(e, axis, out): out holds float for float, else double");
  expr::along<Out>(&out.context(), "sim::mean(axis, out)", expr::kernel_node<T>(e), axis,
                   [](auto at) { return expr::AxisValue<double, decltype(at)>{at}; }, ops::Plus{}, 0.0,
                   expr::AxisMean<Out>{}, true, &out);
}
/// Smallest / largest element along an axis into an existing array (np.amin(M, axis, out=r)).
template <class E, class Out, int R, std::enable_if_t<expr::is_operand<E>, int> = 0>
void amin(const E& e, int axis, Array<Out, R>& out) {
  using T = expr_value_t<E>;
  static_assert(std::is_same<Out, T>::value, "amin(e, axis, out): out holds the element type");
  expr::along<T>(&out.context(), "sim::amin(out)", expr::kernel_node<T>(e), axis,
                 [](auto at) { return expr::AxisValue<T, decltype(at)>{at}; }, ops::Minimum{}, ops::Minimum::identity<T>(),
                 expr::AxisCast<T>{}, false, &out);
}
template <class E, class Out, int R, std::enable_if_t<expr::is_operand<E>, int> = 0>
void amax(const E& e, int axis, Array<Out, R>& out) {
  using T = expr_value_t<E>;
  static_assert(std::is_same<Out, T>::value, "amax(e, axis, out): out holds the element type");
  expr::along<T>(&out.context(), "sim::amax(out)", expr::kernel_node<T>(e), axis,
                 [](auto at) { return expr::AxisValue<T, decltype(at)>{at}; }, ops::Maximum{}, ops::Maximum::identity<T>(),
                 expr::AxisCast<T>{}, false, &out);
}
/// Sum along an axis of a view (views carry no context).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto sum(const Context& ctx, const E& e, int axis) { return sum(e, axis, &ctx); }

/// Smallest element along an axis (np.amin(M, axis)); throws on an empty axis.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto amin(const E& e, int axis, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::along<T>(ctx, "sim::amin", expr::kernel_node<T>(e), axis,
                        [](auto at) { return expr::AxisValue<T, decltype(at)>{at}; }, ops::Minimum{},
                        ops::Minimum::identity<T>(), expr::AxisCast<T>{}, false);
}
/// Largest element along an axis (np.amax(M, axis)); throws on an empty axis.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto amax(const E& e, int axis, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::along<T>(ctx, "sim::amax", expr::kernel_node<T>(e), axis,
                        [](auto at) { return expr::AxisValue<T, decltype(at)>{at}; }, ops::Maximum{},
                        ops::Maximum::identity<T>(), expr::AxisCast<T>{}, false);
}
/// Mean along an axis (float stays float; integers give double); NaN on an empty axis.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto mean(const E& e, int axis, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  using Out = math::real_t<T>;
  return expr::along<Out>(ctx, "sim::mean(axis)", expr::kernel_node<T>(e), axis,
                          [](auto at) { return expr::AxisValue<double, decltype(at)>{at}; }, ops::Plus{}, 0.0,
                          expr::AxisMean<Out>{}, true);
}
namespace expr {
template <class E>
constexpr bool ambiguous_axis = false;  // false for every E, but only once instantiated
}  // namespace expr
#define SIM_AMBIGUOUS_AXIS(NAME)                                                                          \
  static_assert(expr::ambiguous_axis<E>, "sim::" NAME "(M, 1) is ambiguous (axis 1, or ddof 1 as NumPy users " \
                                         "write it?): write sim::" NAME "(M, sim::Axis{1}) for axis 1, sim::" NAME \
                                         "(M, 1.0) for ddof 1 over the whole array, sim::" NAME "(M, sim::Axis{1}, 1.0) for both")
/// var(M, 1) and stddev(M, 1) do not compile (an int second argument reads both ways); the
/// message names the explicit forms. (The "var(M, 1) is ambiguous" text is what tests look for.)
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double var(const E&, int) {
  SIM_AMBIGUOUS_AXIS("var");  // var(M, 1) is ambiguous
  return 0;
}
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double stddev(const E&, int) {
  SIM_AMBIGUOUS_AXIS("stddev");
  return 0;
}
#undef SIM_AMBIGUOUS_AXIS
/// Variance along an axis, sum((x - mean)^2) / (n - ddof), in one pass (axis and ddof both given).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto var(const E& e, int axis, double ddof, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  using Out = math::real_t<T>;
  return expr::along<Out>(ctx, "sim::var(axis)", expr::kernel_node<T>(e), axis,
                          [](auto at) { return expr::AxisMoments<decltype(at)>{at}; }, expr::MomentsOp{},
                          expr::Moments{0, 0, 0, 0}, expr::MomentsFin<Out>{1, ddof}, true);
}
/// Standard deviation along an axis (NumPy's std(axis=..., ddof=...)), in one pass.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto stddev(const E& e, int axis, double ddof, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  using Out = math::real_t<T>;
  return expr::along<Out>(ctx, "sim::stddev(axis)", expr::kernel_node<T>(e), axis,
                          [](auto at) { return expr::AxisMoments<decltype(at)>{at}; }, expr::MomentsOp{},
                          expr::Moments{0, 0, 0, 0}, expr::MomentsFin<Out>{2, ddof}, true);
}
/// Variance along a named axis: var(M, Axis{1}) is np.var(M, axis=1); ddof as NumPy's.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto var(const E& e, Axis axis, double ddof = 0, const Context* ctx = nullptr) {
  return var(e, axis.index, ddof, ctx);
}
/// Standard deviation along a named axis: stddev(M, Axis{0}, 1.0) is np.std(M, axis=0, ddof=1).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto stddev(const E& e, Axis axis, double ddof = 0, const Context* ctx = nullptr) {
  return stddev(e, axis.index, ddof, ctx);
}
/// Number of non-zero (true) elements along an axis (np.count_nonzero(M, axis)), as int64.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto count(const E& e, int axis, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::along<std::int64_t>(ctx, "sim::count(axis)", expr::kernel_node<T>(e), axis,
                                   [](auto at) { return expr::AxisNonZero<decltype(at)>{at}; }, ops::Plus{},
                                   std::int64_t(0), expr::AxisCast<std::int64_t>{}, true);
}
namespace expr {
/// any / all along an axis: op AnyOf or AllOf over the non-zero flags, a bool array.
template <class Op, class E>
auto any_all_along(const E& e, int axis, const Context* ctx, const char* name) {
  return along<bool>(ctx, name, kernel_node<expr_value_t<E>>(e), axis, [](auto at) { return AxisNonZero<decltype(at)>{at}; },
                     Op{}, Op::template identity<std::int64_t>(), AxisCast<bool>{}, true);
}
}  // namespace expr
/// True where any element along the axis is non-zero (M.any(axis)); a bool array.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto any(const E& e, int axis, const Context* ctx = nullptr) {
  return expr::any_all_along<ops::AnyOf>(e, axis, ctx, "sim::any(axis)");
}
/// True where every element along the axis is non-zero (M.all(axis)); a bool array.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto all(const E& e, int axis, const Context* ctx = nullptr) {
  return expr::any_all_along<ops::AllOf>(e, axis, ctx, "sim::all(axis)");
}
/// The axis forms over views (views carry no context).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto count(const Context& ctx, const E& e, int axis) { return count(e, axis, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto any(const Context& ctx, const E& e, int axis) { return any(e, axis, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto all(const Context& ctx, const E& e, int axis) { return all(e, axis, &ctx); }
/// Index along the axis of the first smallest element (np.argmin(M, axis)), as int64.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto argmin(const E& e, int axis, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::along<std::int64_t>(ctx, "sim::argmin(axis)", expr::kernel_node<T>(e), axis,
                                   [](auto at) { return expr::AxisArg<T, decltype(at)>{at}; }, expr::ArgOp<false>{},
                                   expr::ArgOp<false>::identity<T>(), expr::ArgIndex{}, false);
}
/// Index along the axis of the first largest element (np.argmax(M, axis)), as int64.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto argmax(const E& e, int axis, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::along<std::int64_t>(ctx, "sim::argmax(axis)", expr::kernel_node<T>(e), axis,
                                   [](auto at) { return expr::AxisArg<T, decltype(at)>{at}; }, expr::ArgOp<true>{},
                                   expr::ArgOp<true>::identity<T>(), expr::ArgIndex{}, false);
}

// ---- whole array (each waits for its result)

/// Mean of all elements, accumulated in double (NaN for an empty array).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double mean(const E& e, const Context* ctx = nullptr) {
  return expr::moments_mean(expr::whole_moments(expr::kernel_node<expr_value_t<E>>(e), ctx, "sim::mean"));
}
/// Variance of all elements, sum((x - mean)^2) / (n - ddof), one pass in double.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double var(const E& e, double ddof = 0, const Context* ctx = nullptr) {
  return expr::moments_var(expr::whole_moments(expr::kernel_node<expr_value_t<E>>(e), ctx, "sim::var"), ddof);
}
/// Standard deviation of all elements (NumPy's x.std(ddof=...)), one pass in double.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double stddev(const E& e, double ddof = 0, const Context* ctx = nullptr) {
  return std::sqrt(expr::moments_var(expr::whole_moments(expr::kernel_node<expr_value_t<E>>(e), ctx, "sim::stddev"), ddof));
}
/// Mean and standard deviation together from one pass: {mean, std}.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
std::pair<double, double> mean_std(const E& e, double ddof = 0, const Context* ctx = nullptr) {
  const auto m = expr::whole_moments(expr::kernel_node<expr_value_t<E>>(e), ctx, "sim::mean_std");
  return {expr::moments_mean(m), std::sqrt(expr::moments_var(m, ddof))};
}
/// Flat (row-major) index of the first smallest element (np.argmin); throws when empty.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
std::int64_t argmin(const E& e, const Context* ctx = nullptr) {
  return expr::whole_arg<false>(expr::kernel_node<expr_value_t<E>>(e), ctx, "sim::argmin");
}
/// Flat (row-major) index of the first largest element (np.argmax); throws when empty.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
std::int64_t argmax(const E& e, const Context* ctx = nullptr) {
  return expr::whole_arg<true>(expr::kernel_node<expr_value_t<E>>(e), ctx, "sim::argmax");
}

/// The whole-array statistics of a view (views carry no context).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double mean(const Context& ctx, const E& e) { return mean(e, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double var(const Context& ctx, const E& e, double ddof = 0) { return var(e, ddof, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double stddev(const Context& ctx, const E& e, double ddof = 0) { return stddev(e, ddof, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
std::int64_t argmin(const Context& ctx, const E& e) { return argmin(e, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
std::int64_t argmax(const Context& ctx, const E& e) { return argmax(e, &ctx); }

}  // namespace SIM_TU_NS
}  // namespace sim
