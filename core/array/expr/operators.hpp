#pragma once
// Operands lifted into nodes (arrays, views, scalars, lower ranks broadcast) and the public
// operators and functions that build expressions: a * 5 + sin(b), where(c, a, b), cast<T>(a).
#include <memory>
#include <type_traits>
#include <utility>

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

/// Expressions, arrays and views (any reference to one): the things operators apply to.
template <class X>
constexpr bool is_operand = is_node<std::decay_t<X>> || is_array_like<std::decay_t<X>>;
/// True for arithmetic scalars (any reference to one).
template <class X>
constexpr bool is_scalar = std::is_arithmetic<std::decay_t<X>>::value;
/// The element type of an operand or scalar (any reference to one).
template <class X>
using value_t = typename value_of<std::decay_t<X>>::type;

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
/// A temporary array: the node owns it (a stored expression keeps it alive).
template <class S, class T, int R>
Owned<T, R> node(Array<T, R>&& a) {
  Owned<T, R> o;
  o.keep = std::make_shared<const Array<T, R>>(std::move(a));
  o.v = o.keep->view();
  o.ctx = &o.keep->context();
  return o;
}
template <class S, class E, std::enable_if_t<is_node<E>, int> = 0>
const E& node(const E& e) {
  return e;
}
template <class S, class X, std::enable_if_t<std::is_arithmetic<X>::value, int> = 0>
Scalar<S> node(X x) {
  return Scalar<S>{{}, static_cast<S>(x)};
}
/// The node type of operand X, as a forwarding reference deduces it (X an array type:
/// a temporary, which the node owns).
template <class S, class X>
using node_t = std::decay_t<decltype(node<S>(std::declval<X>()))>;
/// The node of x as kernels take it: owned temporaries read through plain leaves (x keeps
/// them alive meanwhile).
template <class S, class X>
auto kernel_node(const X& x) {
  return node<S>(x).kernel_form();
}

/// The element type a scalar adopts next to the other operand.
template <class A, class B>
using scalar_type_t = std::conditional_t<is_scalar<A>, value_t<B>, value_t<A>>;

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
auto binary(A&& a, B&& b) {
  using S = scalar_type_t<A, B>;
  using NA = node_t<S, A>;
  using NB = node_t<S, B>;
  constexpr int R = max_rank<NA, NB>();
  return Binary<Op, lift_t<R, NA>, lift_t<R, NB>>{
      {}, lift<R>(node<S>(std::forward<A>(a))), lift<R>(node<S>(std::forward<B>(b))), Op{}};
}
template <class Op, class A>
Unary<Op, node_t<value_t<A>, A>> unary(A&& a) {
  return {{}, node<value_t<A>>(std::forward<A>(a)), Op{}};
}

}  // namespace expr

// ---- the public operators and functions (found by ADL on sim:: types)
#define SIM_EXPR_BINARY_FN(NAME, OP)                                                                      \
  template <class A, class B,                                                                             \
            std::enable_if_t<(expr::is_operand<A> || expr::is_operand<B>) &&                              \
                                 (expr::is_operand<A> || expr::is_scalar<A>) &&                           \
                                 (expr::is_operand<B> || expr::is_scalar<B>), int> = 0>                   \
  auto NAME(A&& a, B&& b) {                                                                               \
    return expr::binary<expr::op::OP>(std::forward<A>(a), std::forward<B>(b));                            \
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
  auto NAME(A&& a) {                                               \
    return expr::unary<expr::op::OP>(std::forward<A>(a));          \
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
auto as_row(A&& a) {
  using N = expr::node_t<expr::value_t<A>, A>;
  return expr::Broadcast<N, 2>{{}, expr::node<expr::value_t<A>>(std::forward<A>(a))};
}
/// A vector as a column of a matrix expression (NumPy's v[:, None]).
template <class A, std::enable_if_t<expr::is_operand<A>, int> = 0>
auto as_column(A&& a) {
  using N = expr::node_t<expr::value_t<A>, A>;
  return expr::Column<N>{{}, expr::node<expr::value_t<A>>(std::forward<A>(a))};
}

/// Elementwise conversion to element type T.
template <class T, class A, std::enable_if_t<expr::is_operand<A>, int> = 0>
auto cast(A&& a) {
  return expr::Unary<expr::op::Cast<T>, expr::node_t<expr::value_t<A>, A>>{
      {}, expr::node<expr::value_t<A>>(std::forward<A>(a)), {}};
}

/// where(c, a, b): a where c is true, else b (elementwise select).
template <class C, class A, class B, std::enable_if_t<expr::is_operand<C>, int> = 0>
auto where(C&& c, A&& a, B&& b) {
  using S = expr::scalar_type_t<A, B>;
  using Cn = expr::node_t<expr::value_t<C>, C>;
  using An = expr::node_t<S, A>;
  using Bn = expr::node_t<S, B>;
  constexpr int R = expr::max_rank<Cn, An, Bn>();
  return expr::Select<expr::lift_t<R, Cn>, expr::lift_t<R, An>, expr::lift_t<R, Bn>>{
      {}, expr::lift<R>(expr::node<expr::value_t<C>>(std::forward<C>(c))),
      expr::lift<R>(expr::node<S>(std::forward<A>(a))), expr::lift<R>(expr::node<S>(std::forward<B>(b)))};
}


/// True where a and b are equal within tolerance (np.isclose): |a - b| <= atol + rtol * |b|,
/// or equal (infinities of one sign); NaN is close to nothing. A bool expression.
template <class A, class B, std::enable_if_t<expr::is_operand<A> || expr::is_operand<B>, int> = 0>
auto isclose(A&& a, B&& b, double rtol = 1e-5, double atol = 1e-8) {
  using S = expr::scalar_type_t<A, B>;
  using R = math::real_t<S>;
  const auto na = cast<R>(expr::node<S>(std::forward<A>(a)));  // the node (owning a temporary) copied below
  const auto nb = cast<R>(expr::node<S>(std::forward<B>(b)));
  return (abs(na - nb) <= R(atol) + R(rtol) * abs(nb)) || (na == nb);
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
