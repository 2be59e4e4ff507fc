#pragma once
// Evaluation of an expression into a destination in one pass (assign, Array = expression,
// the compound assignments +=, -=, ...).
#include <string>
#include <utility>
#include <type_traits>

#include "core/array/expr/operators.hpp"
#include "core/kernels/for_each.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/expr_assign.cuh"
#endif

namespace sim {
inline namespace SIM_TU_NS {
namespace expr {

// ---- evaluation
template <class T, int Rank, class E>
struct AssignFn;
template <class T, class E>
struct AssignFn<T, 1, E> {
  View<T, 1> dst;
  E e;
  SIM_INLINE void operator()(index_t i) const { dst(i) = static_cast<T>(e(i)); }
};
template <class T, class E>
struct AssignFn<T, 2, E> {
  View<T, 2> dst;
  E e;
  SIM_INLINE void operator()(index_t i, index_t j) const { dst(i, j) = static_cast<T>(e(i, j)); }
};
template <class T, class E>
struct AssignFn<T, 3, E> {
  View<T, 3> dst;
  E e;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { dst(i, j, k) = static_cast<T>(e(i, j, k)); }
};
/// Contiguous operands: one flat loop, no index arithmetic per dimension.
template <class T, class E>
struct FlatAssignFn {
  T* dst;
  E e;
  SIM_INLINE void operator()(index_t t) const { dst[t] = static_cast<T>(e.flat(t)); }
};

/// Expressions that read V values at once along a row (vec / vec_ok) say so.
template <class E, class = void>
constexpr bool reads_rows = false;
template <class E>
constexpr bool reads_rows<E, std::void_t<decltype(std::declval<const E&>().template vec_ok<8>(false))>> = true;

/// A matrix destination filled row by row (the cpu backend's for_each hands it whole rows), 8
/// values at a time through the expression's vec: what is uniform along a row (a broadcast
/// column such as sqrt(e)[:, None]) is computed once per 8 values instead of once per value, and
/// the row's arithmetic vectorises. The same operations per element, so the same values.
template <class T, class E>
struct AssignRowsFn {
  static constexpr int V = 8;
  View<T, 2> dst;
  E e;
  SIM_INLINE void operator()(index_t i, index_t j) const { dst(i, j) = static_cast<T>(e(i, j)); }
  void row(index_t i, index_t j0, index_t j1) const {
    index_t j = j0;
    for (; j + V <= j1; j += V) {
      typename E::value_type x[V];
      e.template vec<V>(x, i, j);
      T* d = &dst(i, j);
      for (int k = 0; k < V; ++k) d[k] = static_cast<T>(x[k]);
    }
    for (; j < j1; ++j) dst(i, j) = static_cast<T>(e(i, j));
  }
};

/// Checks an expression against a destination shape and context; returns the context.
template <int Rank, class E>
const Context& check(const E& e, const Context* dst_ctx, const Extents<Rank>* dst_shape) {
  static_assert(E::rank == 0 || E::rank == Rank, "expression rank differs from the destination's rank");
  Operands<Rank> o;
  o.ctx = dst_ctx;
  if (dst_shape) o.set(*dst_shape);
  e.collect(o);
  if (!o.ctx)
    throw BackendError("expression has no array that says which context it runs on; pass the context explicitly");
  return *o.ctx;
}

/// Evaluates e into dst on ctx in one fused pass; e must not read memory dst writes
/// (evaluate_into checks that).
template <class T, int Rank, class L>
void evaluate_fused(const Context& ctx, View<T, Rank> dst, const L& e) {
#if SIM_TU_HAS_CUDA
  if (ctx.is_cuda() && gpu::assign_vectorised(ctx, "sim::expr::assign", dst, e)) return;
#endif
  if (dst.contiguous() && e.contiguous()) {
    for_each(ctx, "sim::expr::assign", Box<1>{{0}, {dst.size()}}, FlatAssignFn<T, L>{dst.ptr, e});
    return;
  }
  if constexpr (Rank == 2 && reads_rows<L>) {  // rows from column 0, whole vectors aligned (vec_ok)
    if (!ctx.is_cuda() && dst.stride[1] == 1 && e.template vec_ok<AssignRowsFn<T, L>::V>(false)) {
      cpu::for_each(dst.box(), AssignRowsFn<T, L>{dst, e});
      return;
    }
  }
    for_each(ctx, "sim::expr::assign", dst.box(), AssignFn<T, Rank, L>{dst, e});
}

/// Evaluates e into dst on ctx (a lower-rank e is broadcast over dst) with NumPy's answer:
/// the right-hand side as it was before any element is written. When an operand's bounds
/// meet dst's (a[1:] = a[:-1], M = M.T, a row of M broadcast into M), e goes into a
/// temporary first; otherwise (the common case, x = x * 2 + y included) in one pass.
template <class T, int Rank, class E>
void evaluate_into(const Context& ctx, View<T, Rank> dst, const E& e0) {
  static_assert(E::rank <= Rank, "expression rank is larger than the destination's rank");
  const auto e = lift<Rank>(e0);
  using L = std::decay_t<decltype(e)>;
  check<Rank>(e, &ctx, &dst.shape);
  if (e.may_overlap(dest_of(dst))) {
    Array<T, Rank> tmp(ctx, dst.shape);
    evaluate_fused<T, Rank, L>(ctx, tmp.view(), e);
    detail::copy<T, Rank>(ctx, tmp.view(), dst);
    return;
  }
  evaluate_fused<T, Rank, L>(ctx, dst, e);
}

}  // namespace expr

template <class T, int Rank, class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
void assign(const Context& ctx, View<T, Rank> dst, const E& e) {
  expr::evaluate_into(ctx, dst, expr::kernel_node<T>(e));
}
namespace expr {
/// The context and shape an expression evaluates on and to (ctx when it is given); throws
/// when no operand says which context, or when no operand fixes the shape.
template <int Rank, class E>
std::pair<const Context*, Extents<Rank>> context_and_shape(const E& e, const Context* ctx, const char* what) {
  static_assert(E::rank == Rank, "sim::eval: the expression's rank differs from the array's rank");
  Operands<Rank> o;
  o.ctx = ctx;
  e.collect(o);
  if (!o.ctx) throw BackendError(std::string(what) + ": the expression reads only views, which carry no context; pass one: sim::eval(ctx, e)");
  if (!o.has_shape) throw ShapeError(std::string(what) + ": no operand of the expression fixes its shape");
  return {o.ctx, o.shape};
}
}  // namespace expr

/// Evaluates an expression now into a new array (NumPy's y = x * 2 makes an array; a stored
/// `auto y = x * 2` is the recipe, read when it is used). An array argument is copied.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto eval(const E& e) {
  using T = expr::value_t<E>;
  const auto k = expr::kernel_node<T>(e);
  constexpr int R = std::decay_t<decltype(k)>::rank;
  const auto [ctx, shape] = expr::context_and_shape<R>(k, nullptr, "sim::eval");
  Array<T, R> out(*ctx, shape);
  expr::evaluate_into(*ctx, out.view(), k);
  return out;
}
/// The same for expressions of views only (views carry no context).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto eval(const Context& ctx, const E& e) {
  using T = expr::value_t<E>;
  const auto k = expr::kernel_node<T>(e);
  constexpr int R = std::decay_t<decltype(k)>::rank;
  Array<T, R> out(ctx, expr::context_and_shape<R>(k, &ctx, "sim::eval").second);
  expr::evaluate_into(ctx, out.view(), k);
  return out;
}

/// Sets every element of a view (a slice, a row, a column) to a scalar: NumPy's a[...] = 5.
template <class T, int Rank, class X, std::enable_if_t<std::is_arithmetic<X>::value, int> = 0>
void assign(const Context& ctx, View<T, Rank> dst, X value) {
  detail::fill<T, Rank>(ctx, dst, static_cast<T>(value));
}


// ---- compound assignment: x += e is x = x + e, one fused pass (NumPy's in-place operators)
#define SIM_EXPR_COMPOUND(OPEQ, OP)                                                                        \
  template <class T, int Rank, class X,                                                                    \
            std::enable_if_t<expr::is_operand<X> || std::is_arithmetic<X>::value, int> = 0>                \
  Array<T, Rank>& OPEQ(Array<T, Rank>& a, const X& x) {                                                    \
    return a = a OP x;                                                                                     \
  }                                                                                                        \
  template <class T, int Rank, class X,                                                                    \
            std::enable_if_t<expr::is_operand<X> || std::is_arithmetic<X>::value, int> = 0>                \
  Field<T, Rank>& OPEQ(Field<T, Rank>& a, const X& x) {                                                    \
    return a = a OP x;                                                                                     \
  }
/// x += e, x -= e, x *= e, x /= e, x %= e: evaluate in place in one pass.
SIM_EXPR_COMPOUND(operator+=, +)
SIM_EXPR_COMPOUND(operator-=, -)
SIM_EXPR_COMPOUND(operator*=, *)
SIM_EXPR_COMPOUND(operator/=, /)
SIM_EXPR_COMPOUND(operator%=, %)
/// m &= e, m |= e, m ^= e: on bool arrays the mask algebra, on integers bitwise.
SIM_EXPR_COMPOUND(operator&=, &)
SIM_EXPR_COMPOUND(operator|=, |)
SIM_EXPR_COMPOUND(operator^=, ^)
#undef SIM_EXPR_COMPOUND

namespace expr {
template <class T>
constexpr bool view_compound = false;  // false for every T, but only once instantiated
}  // namespace expr
#define SIM_EXPR_VIEW_COMPOUND(OPEQ)                                                                      \
  template <class T, int Rank, class X>                                                                   \
  const View<T, Rank>& OPEQ(const View<T, Rank>& v, const X&) {                                         \
    static_assert(expr::view_compound<T>,                                                                 \
                  "a view carries no context, so `view += x` cannot run: write "                          \
                  "sim::assign(ctx, view, view + x) (or apply the operator to the array itself)");        \
    return v;                                                                                             \
  }
/// view += x and friends do not compile: a view has no context (use sim::assign(ctx, view, view + x)).
SIM_EXPR_VIEW_COMPOUND(operator+=)
SIM_EXPR_VIEW_COMPOUND(operator-=)
SIM_EXPR_VIEW_COMPOUND(operator*=)
SIM_EXPR_VIEW_COMPOUND(operator/=)
#undef SIM_EXPR_VIEW_COMPOUND

}  // namespace SIM_TU_NS

template <class T, int Rank>
template <class E, class>
Array<T, Rank>& Array<T, Rank>::operator=(const E& expression) {
  sim::assign(ctx_, view_, expression);
  return *this;
}

template <class T, int Rank>
template <class E, class>
Array<T, Rank>::Array(const E& expression) {
  static_assert(E::rank == Rank,
                "an array is made from an expression of its own rank (a lower-rank expression fixes no full shape)");
  const auto k = expr::kernel_node<T>(expression);
  const auto cs = expr::context_and_shape<Rank>(k, nullptr, "Array from an expression");
  *this = Array(*cs.first, cs.second);
  expr::evaluate_into(ctx_, view_, k);
}

template <class T, int Rank>
template <class E, class>
Field<T, Rank>& Field<T, Rank>::operator=(const E& expression) {
  sim::assign(data_.context(), view_, expression);
  return *this;
}

}  // namespace sim
