#pragma once
// Operands lifted into nodes (arrays, views, scalars, lower ranks broadcast) and the public
// operators and functions that build expressions: a * 5 + sin(b), where(c, a, b), cast<T>(a).
#include <type_traits>

#include "core/array/expr/nodes.hpp"
#include "core/array/expr/ops.hpp"
#include "core/mesh/grid.hpp"

namespace sim {
inline namespace SIM_TU_NS {
namespace expr {

// ---- turning operands into nodes
template <class X, class = void>
struct value_of {
  using type = X;  // arithmetic scalars
};
template <class X>
struct value_of<X, std::enable_if_t<is_node<X>>> {
  using type = typename X::value_type;
};
template <class T, int R>
struct value_of<Array<T, R>> {
  using type = T;
};
template <class T, int R>
struct value_of<Field<T, R>> {
  using type = T;
};
template <class T, int R>
struct value_of<View<T, R>> {
  using type = std::remove_const_t<T>;
};

template <class X>
constexpr bool is_array_like = false;
template <class T, int R>
constexpr bool is_array_like<Array<T, R>> = true;
template <class T, int R>
constexpr bool is_array_like<View<T, R>> = true;
template <class T, int R>
constexpr bool is_array_like<Field<T, R>> = true;

/// Expressions, arrays and views: the things operators apply to.
template <class X>
constexpr bool is_operand = is_node<X> || is_array_like<X>;

/// Wraps x as a node; a scalar takes element type S.
template <class S, class T, int R>
Leaf<T, R> node(const Array<T, R>& a) {
  return Leaf<T, R>{{}, a.view(), &a.context()};
}
template <class S, class T, int R>
Leaf<T, R> node(const Field<T, R>& f) {  // the interior cells
  return Leaf<T, R>{{}, f.view(), &f.context()};
}
template <class S, class T, int R>
Leaf<std::remove_const_t<T>, R> node(const View<T, R>& v) {
  return Leaf<std::remove_const_t<T>, R>{{}, v, nullptr};
}
template <class S, class E, std::enable_if_t<is_node<E>, int> = 0>
const E& node(const E& e) {
  return e;
}
template <class S, class X, std::enable_if_t<std::is_arithmetic<X>::value, int> = 0>
Scalar<S> node(X x) {
  return Scalar<S>{{}, static_cast<S>(x)};
}
template <class S, class X>
using node_t = std::decay_t<decltype(node<S>(std::declval<const X&>()))>;

/// The element type a scalar adopts next to the other operand.
template <class A, class B>
using scalar_type_t = std::conditional_t<std::is_arithmetic<A>::value, typename value_of<B>::type,
                                         typename value_of<A>::type>;

/// A node lifted to rank R: scalars and rank-R nodes as they are, lower ranks broadcast.
template <int R, class N>
auto lift(const N& n) {
  if constexpr (N::rank == 0 || N::rank == R) return n;
  else return Broadcast<N, R>{{}, n};
}
template <int R, class N>
using lift_t = decltype(lift<R>(std::declval<const N&>()));
template <class... N>
constexpr int max_rank() {
  int r = 0;
  ((r = N::rank > r ? N::rank : r), ...);
  return r;
}

template <class Op, class A, class B>
auto binary(const A& a, const B& b) {
  using S = scalar_type_t<A, B>;
  using NA = node_t<S, A>;
  using NB = node_t<S, B>;
  constexpr int R = max_rank<NA, NB>();
  return Binary<Op, lift_t<R, NA>, lift_t<R, NB>>{{}, lift<R>(node<S>(a)), lift<R>(node<S>(b)), Op{}};
}
template <class Op, class A>
Unary<Op, node_t<typename value_of<A>::type, A>> unary(const A& a) {
  return {{}, node<typename value_of<A>::type>(a), Op{}};
}

}  // namespace expr

// ---- the public operators and functions (found by ADL on sim:: types)
#define SIM_EXPR_BINARY_FN(NAME, OP)                                                                      \
  template <class A, class B,                                                                             \
            std::enable_if_t<(expr::is_operand<A> || expr::is_operand<B>) &&                              \
                                 (expr::is_operand<A> || std::is_arithmetic<A>::value) &&                 \
                                 (expr::is_operand<B> || std::is_arithmetic<B>::value), int> = 0>         \
  auto NAME(const A& a, const B& b) {                                                                     \
    return expr::binary<expr::op::OP>(a, b);                                                              \
  }
SIM_EXPR_BINARY_FN(operator+, Add)
SIM_EXPR_BINARY_FN(operator-, Sub)
SIM_EXPR_BINARY_FN(operator*, Mul)
SIM_EXPR_BINARY_FN(operator/, Div)
SIM_EXPR_BINARY_FN(operator<, Less)
SIM_EXPR_BINARY_FN(operator<=, LessEq)
SIM_EXPR_BINARY_FN(operator>, Greater)
SIM_EXPR_BINARY_FN(operator>=, GreaterEq)
SIM_EXPR_BINARY_FN(operator==, Equal)
SIM_EXPR_BINARY_FN(operator!=, NotEqual)
/// Elementwise minimum of two operands.
SIM_EXPR_BINARY_FN(min, Min)
/// Elementwise maximum of two operands.
SIM_EXPR_BINARY_FN(max, Max)
/// Elementwise power.
SIM_EXPR_BINARY_FN(pow, Pow)
/// Elementwise remainder with the sign of the divisor (NumPy's %, np.mod).
SIM_EXPR_BINARY_FN(operator%, Mod)
/// Elementwise logical and / or (true where non-zero); NumPy's logical_and / logical_or.
SIM_EXPR_BINARY_FN(operator&&, And)
SIM_EXPR_BINARY_FN(operator||, Or)
/// Elementwise logical and (np.logical_and).
SIM_EXPR_BINARY_FN(logical_and, And)
/// Elementwise logical or (np.logical_or).
SIM_EXPR_BINARY_FN(logical_or, Or)
/// Elementwise &, |, ^: logical on bool operands ((a > 0) & (b < 1), NumPy's mask algebra),
/// bitwise on integers (np.bitwise_and / or / xor).
SIM_EXPR_BINARY_FN(operator&, BitAnd)
SIM_EXPR_BINARY_FN(operator|, BitOr)
SIM_EXPR_BINARY_FN(operator^, BitXor)
#undef SIM_EXPR_BINARY_FN

#define SIM_EXPR_UNARY_FN(NAME, OP)                                \
  template <class A, std::enable_if_t<expr::is_operand<A>, int> = 0> \
  auto NAME(const A& a) {                                          \
    return expr::unary<expr::op::OP>(a);                           \
  }
SIM_EXPR_UNARY_FN(operator-, Negate)
SIM_EXPR_UNARY_FN(sin, Sin)
SIM_EXPR_UNARY_FN(cos, Cos)
SIM_EXPR_UNARY_FN(exp, Exp)
SIM_EXPR_UNARY_FN(log, Log)
SIM_EXPR_UNARY_FN(sqrt, Sqrt)
SIM_EXPR_UNARY_FN(abs, Abs)
/// Elementwise hyperbolic tangent.
SIM_EXPR_UNARY_FN(tanh, Tanh)
/// Elementwise floor (integers unchanged).
SIM_EXPR_UNARY_FN(floor, Floor)
/// Elementwise logical not (np.logical_not); also spelled !x.
SIM_EXPR_UNARY_FN(logical_not, Not)
SIM_EXPR_UNARY_FN(operator!, Not)
/// ~x: logical not of a bool operand, bitwise not of an integer one (NumPy's invert).
SIM_EXPR_UNARY_FN(operator~, BitNot)
#undef SIM_EXPR_UNARY_FN

/// A vector as a row of a matrix expression (NumPy's v[None, :]); a plain vector next to a
/// matrix broadcasts the same way.
template <class A, std::enable_if_t<expr::is_operand<A>, int> = 0>
auto as_row(const A& a) {
  using N = expr::node_t<typename expr::value_of<A>::type, A>;
  return expr::Broadcast<N, 2>{{}, expr::node<typename expr::value_of<A>::type>(a)};
}
/// A vector as a column of a matrix expression (NumPy's v[:, None]).
template <class A, std::enable_if_t<expr::is_operand<A>, int> = 0>
auto as_column(const A& a) {
  using N = expr::node_t<typename expr::value_of<A>::type, A>;
  return expr::Column<N>{{}, expr::node<typename expr::value_of<A>::type>(a)};
}

/// Elementwise conversion to element type T.
template <class T, class A, std::enable_if_t<expr::is_operand<A>, int> = 0>
auto cast(const A& a) {
  return expr::Unary<expr::op::Cast<T>, expr::node_t<typename expr::value_of<A>::type, A>>{
      {}, expr::node<typename expr::value_of<A>::type>(a), {}};
}

/// where(c, a, b): a where c is true, else b (elementwise select).
template <class C, class A, class B, std::enable_if_t<expr::is_operand<C>, int> = 0>
auto where(const C& c, const A& a, const B& b) {
  using S = expr::scalar_type_t<A, B>;
  using Cn = expr::node_t<typename expr::value_of<C>::type, C>;
  using An = expr::node_t<S, A>;
  using Bn = expr::node_t<S, B>;
  constexpr int R = expr::max_rank<Cn, An, Bn>();
  return expr::Select<expr::lift_t<R, Cn>, expr::lift_t<R, An>, expr::lift_t<R, Bn>>{
      {}, expr::lift<R>(expr::node<typename expr::value_of<C>::type>(c)), expr::lift<R>(expr::node<S>(a)),
      expr::lift<R>(expr::node<S>(b))};
}


// Expression nodes live in sim::expr: these make the operators and functions on them
// findable by argument-dependent lookup from any namespace (x * x + y * y outside sim).
namespace expr {
using SIM_TU_NS::operator+;
using SIM_TU_NS::operator-;
using SIM_TU_NS::operator*;
using SIM_TU_NS::operator/;
using SIM_TU_NS::operator%;
using SIM_TU_NS::operator<;
using SIM_TU_NS::operator<=;
using SIM_TU_NS::operator>;
using SIM_TU_NS::operator>=;
using SIM_TU_NS::operator==;
using SIM_TU_NS::operator!=;
using SIM_TU_NS::operator&&;
using SIM_TU_NS::operator||;
using SIM_TU_NS::operator!;
using SIM_TU_NS::operator&;
using SIM_TU_NS::operator|;
using SIM_TU_NS::operator^;
using SIM_TU_NS::operator~;
}  // namespace expr

}  // namespace SIM_TU_NS
}  // namespace sim
