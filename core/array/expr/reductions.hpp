#pragma once
// Whole-array reductions over expressions (sum, min, max, count, any, all, dot, norm2,
// norm_max): each is one pass and waits for its result.
#include <cmath>
#include <cstdint>
#include <string>

#include "core/array/expr/operators.hpp"
#include "core/kernels/reduce.hpp"

namespace sim {
inline namespace SIM_TU_NS {
namespace expr {

/// f applied to the value of e at each point, as reduce()'s map.
template <class E, class F, class Acc>
struct MapFn {
  E e;
  F f;
  template <class... I>
  SIM_INLINE Acc operator()(I... i) const { return f(e(i...)); }
};
template <class E, class F, class Acc>
struct FlatMapFn {
  E e;
  F f;
  SIM_INLINE Acc operator()(index_t t) const { return f(e.flat(t)); }
};

/// Reduces f(e) over e's shape with op, on ctx (or e's own context when ctx is null).
template <class Acc, class E, class F, class Op>
Acc reduce_expr(const Context* ctx, const char* name, const E& e, F f, Op op) {
  static_assert(E::rank > 0, "a reduction needs at least one array in its expression");
  Operands<E::rank> o;
  o.ctx = ctx;
  e.collect(o);
  if (!o.ctx) throw BackendError(std::string(name) + ": the expression has no context; pass one explicitly");
  if (!o.has_shape) throw ShapeError(std::string(name) + ": the expression's shape is not fixed by any operand");
  if (e.contiguous())
    return reduce(*o.ctx, name, Box<1>{{0}, {o.shape.size()}}, FlatMapFn<E, F, Acc>{e, f}, op, Op::template identity<Acc>());
  return reduce(*o.ctx, name, box_of(o.shape), MapFn<E, F, Acc>{e, f}, op, Op::template identity<Acc>());
}

template <class Acc>
struct ToAcc {
  template <class X>
  SIM_INLINE Acc operator()(X x) const { return static_cast<Acc>(x); }
};
template <class Acc>
struct SquareAcc {
  template <class X>
  SIM_INLINE Acc operator()(X x) const { return static_cast<Acc>(x) * static_cast<Acc>(x); }
};
struct AbsVal {
  template <class X>
  SIM_INLINE X operator()(X x) const { return math::abs(x); }
};
struct Identity {
  template <class X>
  SIM_INLINE X operator()(X x) const { return x; }
};
struct NonZero {
  template <class X>
  SIM_INLINE std::int64_t operator()(X x) const { return x != X(0) ? 1 : 0; }
};
/// any / all of e (true where non-zero) with op AnyOf or AllOf.
template <class Op, class E>
bool any_all(const E& e, const Context* ctx, const char* name) {
  return reduce_expr<std::int64_t>(ctx, name, e, NonZero{}, Op{}) != 0;
}

}  // namespace expr

// ---- reductions (each waits for its result)
template <class E>
using expr_value_t = typename expr::value_of<E>::type;

/// Sum of the elements (accumulated in double for floating point, 64-bit for integers).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
acc_t<expr_value_t<E>> sum(const E& e, const Context* ctx = nullptr) {
  using Acc = acc_t<expr_value_t<E>>;
  return expr::reduce_expr<Acc>(ctx, "sim::sum", expr::kernel_node<expr_value_t<E>>(e), expr::ToAcc<Acc>{}, ops::Plus{});
}
/// Smallest element.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
expr_value_t<E> min(const E& e, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::reduce_expr<T>(ctx, "sim::min", expr::kernel_node<T>(e), expr::Identity{}, ops::Minimum{});
}
/// Largest element.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
expr_value_t<E> max(const E& e, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::reduce_expr<T>(ctx, "sim::max", expr::kernel_node<T>(e), expr::Identity{}, ops::Maximum{});
}
/// Number of non-zero (true) elements.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
std::int64_t count(const E& e, const Context* ctx = nullptr) {
  return expr::reduce_expr<std::int64_t>(ctx, "sim::count", expr::kernel_node<expr_value_t<E>>(e), expr::NonZero{},
                                         ops::Plus{});
}
/// True when any element is non-zero (a.any()); false for an empty array.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
bool any(const E& e, const Context* ctx = nullptr) {
  return expr::any_all<ops::AnyOf>(expr::kernel_node<expr_value_t<E>>(e), ctx, "sim::any");
}
/// True when every element is non-zero (a.all()); true for an empty array.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
bool all(const E& e, const Context* ctx = nullptr) {
  return expr::any_all<ops::AllOf>(expr::kernel_node<expr_value_t<E>>(e), ctx, "sim::all");
}
/// Reductions over views, which carry no context: sum(ctx, view) and friends.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto sum(const Context& ctx, const E& e) { return sum(e, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto min(const Context& ctx, const E& e) { return min(e, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
auto max(const Context& ctx, const E& e) { return max(e, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
std::int64_t count(const Context& ctx, const E& e) { return count(e, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
bool any(const Context& ctx, const E& e) { return any(e, &ctx); }
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
bool all(const Context& ctx, const E& e) { return all(e, &ctx); }

/// True when every element of a is close to b's (np.allclose; the rule of isclose); waits.
template <class A, class B, std::enable_if_t<expr::is_operand<A> || expr::is_operand<B>, int> = 0>
bool allclose(const A& a, const B& b, double rtol = 1e-5, double atol = 1e-8, const Context* ctx = nullptr) {
  return all(isclose(a, b, rtol, atol), ctx);
}

/// Dot product sum(a * b), products and sum in double for floating point.

template <class A, class B, std::enable_if_t<expr::is_operand<A> && expr::is_operand<B>, int> = 0>
acc_t<expr_value_t<A>> dot(const A& a, const B& b, const Context* ctx = nullptr) {
  using Acc = acc_t<expr_value_t<A>>;
  return sum(cast<Acc>(a) * cast<Acc>(b), ctx);
}
/// Euclidean norm sqrt(sum(e^2)), accumulated in double.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
double norm2(const E& e, const Context* ctx = nullptr) {
  using Acc = acc_t<expr_value_t<E>>;
  return std::sqrt(static_cast<double>(
      expr::reduce_expr<Acc>(ctx, "sim::norm2", expr::kernel_node<expr_value_t<E>>(e), expr::SquareAcc<Acc>{}, ops::Plus{})));
}
/// Max norm: the largest |element|.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
expr_value_t<E> norm_max(const E& e, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::reduce_expr<T>(ctx, "sim::norm_max", expr::kernel_node<T>(e), expr::AbsVal{}, ops::Maximum{});
}

}  // namespace SIM_TU_NS
}  // namespace sim
