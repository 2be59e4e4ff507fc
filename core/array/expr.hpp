#pragma once
// Fused elementwise expressions. `c = a * 5 + sin(b)` builds a small tree of view-holding
// nodes and evaluates it in one kernel: one read of a and b, one write of c, no
// temporaries. Scalars take the element type of the array they meet (x * 5 stays float for
// a float array). Reductions (sum, min, max, count, dot, norm2, norm_max) take expressions
// too, so sqrt(sum(x * x)) is one pass.
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/array/array.hpp"
#include "core/mesh/grid.hpp"
#include "core/kernels/for_each.hpp"
#include "core/array/math.hpp"
#include "core/kernels/reduce.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/expr_assign.cuh"
#endif

namespace sim {
inline namespace SIM_TU_NS {
namespace expr {

/// Base of every expression node; marks the type for operator overloading.
struct Node {
  static constexpr bool is_sim_expression = true;
};

template <class E>
constexpr bool is_node = std::is_base_of<Node, E>::value;

/// What an expression needs checked before it runs: one shape, one context. A broadcast
/// operand fixes only some dimensions (known[d]); has_shape says all of them are fixed.
template <int Rank>
struct Operands {
  const Context* ctx = nullptr;
  Extents<Rank> shape{};
  bool has_shape = false;
  bool known[Rank] = {};
  /// Records that dimension d has extent n; throws ShapeError on a conflict.
  void need(int d, index_t n, const char* what = "expression") {
    if (has_shape || known[d]) {
      if (shape.n[d] != n)
        throw ShapeError(std::string(what) + " mixes extents " + std::to_string(shape.n[d]) + " and " + std::to_string(n) +
                         " in dimension " + std::to_string(d) + " (shape " + to_string(shape) + ")");
      return;
    }
    shape.n[d] = n, known[d] = true;
    bool all = true;
    for (int e = 0; e < Rank; ++e) all = all && known[e];
    has_shape = all;
  }
  /// Marks every dimension known (a destination's shape).
  void set(const Extents<Rank>& s) {
    shape = s, has_shape = true;
    for (int d = 0; d < Rank; ++d) known[d] = true;
  }
};

/// A leaf reading an array or view.
template <class T, int Rank>
struct Leaf : Node {
  using value_type = T;
  static constexpr int rank = Rank;
  View<const T, Rank> v;
  const Context* ctx;  // host-side check only; never read in a kernel

  template <class... I>
  SIM_INLINE T operator()(I... i) const { return v(i...); }
  SIM_INLINE T flat(index_t t) const { return v.ptr[t]; }
  bool contiguous() const { return v.contiguous(); }
  /// V consecutive values as one vector load: at flat position t (one index), or from
  /// (i[, j], k) along the last dimension. Only where vec_ok<V>() said yes.
  template <int V, class... I>
  SIM_INLINE void vec(T (&out)[V], I... i) const {
    const T* p;
    if constexpr (sizeof...(I) == 1) p = v.ptr + (index_t(i) + ...);
    else p = &v(i...);
    const Pack<T, V> pk = *reinterpret_cast<const Pack<T, V>*>(p);
    for (int k = 0; k < V; ++k) out[k] = pk.v[k];
  }
  /// True when vec<V> may read this operand: aligned, and contiguous (flat) or with a unit
  /// last stride and the other strides whole vectors (rows).
  template <int V>
  bool vec_ok(bool flat) const {
    if (reinterpret_cast<std::uintptr_t>(v.ptr) % alignof(Pack<T, V>) != 0) return false;
    if (flat) return v.contiguous();
    if (v.stride[Rank - 1] != 1) return false;
    for (int d = 0; d < Rank - 1; ++d)
      if (v.stride[d] % V != 0) return false;
    return true;
  }
  template <int R>
  void collect(Operands<R>& o) const {
    if (ctx) {
      if (o.ctx && *o.ctx != *ctx) throw BackendError("expression mixes arrays of different contexts (backends)");
      o.ctx = ctx;
    }
    static_assert(R == Rank, "an operand's rank differs from its expression's (internal)");
    bool any_known = false;
    for (int d = 0; d < Rank; ++d) any_known = any_known || o.known[d];
    if (any_known)
      for (int d = 0; d < Rank; ++d)
        if ((o.has_shape || o.known[d]) && o.shape.n[d] != v.shape.n[d])
          throw ShapeError("expression mixes shapes " + to_string(o.shape) + " and " + to_string(v.shape));
    o.set(v.shape);
  }
};

/// A lower-rank operand broadcast over the trailing dimensions of a rank-R expression, as
/// NumPy aligns shapes: a vector of n over an (m, n) matrix is the same row in every row.
template <class E, int R>
struct Broadcast : Node {
  static_assert(E::rank >= 1 && E::rank < R, "broadcast goes from a lower rank to a higher one");
  using value_type = typename E::value_type;
  static constexpr int rank = R;
  static constexpr int off = R - E::rank;
  E e;
  template <class... I>
  SIM_INLINE value_type operator()(I... i) const {
    const index_t idx[sizeof...(I)] = {index_t(i)...};
    if constexpr (E::rank == 1) return e(idx[R - 1]);
    else return e(idx[R - 2], idx[R - 1]);
  }
  SIM_INLINE value_type flat(index_t) const { return value_type{}; }  // never called: not contiguous
  bool contiguous() const { return false; }
  template <int V, class... I>
  SIM_INLINE void vec(value_type (&out)[V], I... i) const {
    if constexpr (sizeof...(I) == R) {
      const index_t idx[R] = {index_t(i)...};
      if constexpr (E::rank == 1) e.template vec<V>(out, idx[R - 1]);
      else e.template vec<V>(out, idx[R - 2], idx[R - 1]);
    } else {
      for (int k = 0; k < V; ++k) out[k] = value_type{};  // never called: not contiguous
    }
  }
  template <int V>
  bool vec_ok(bool flat) const { return !flat && e.template vec_ok<V>(false); }
  template <int Q>
  void collect(Operands<Q>& o) const {
    Operands<E::rank> sub;
    sub.ctx = o.ctx;
    for (int d = 0; d < E::rank; ++d)
      if (o.has_shape || o.known[off + d]) sub.need(d, o.shape.n[off + d]);
    e.collect(sub);
    o.ctx = sub.ctx;
    for (int d = 0; d < E::rank; ++d)
      if (sub.has_shape || sub.known[d]) o.need(off + d, sub.shape.n[d]);
  }
};

/// A vector standing as the column of a matrix: (i, j) reads v(i) (NumPy's v[:, None]).
template <class E>
struct Column : Node {
  static_assert(E::rank == 1, "as_column takes a vector");
  using value_type = typename E::value_type;
  static constexpr int rank = 2;
  E e;
  SIM_INLINE value_type operator()(index_t i, index_t) const { return e(i); }
  SIM_INLINE value_type flat(index_t) const { return value_type{}; }  // never called: not contiguous
  bool contiguous() const { return false; }
  template <int V, class... I>
  SIM_INLINE void vec(value_type (&out)[V], I... i) const {
    value_type x{};
    if constexpr (sizeof...(I) == 2) {
      const index_t idx[2] = {index_t(i)...};
      x = e(idx[0]);
    }
    for (int k = 0; k < V; ++k) out[k] = x;
  }
  template <int V>
  bool vec_ok(bool flat) const { return !flat; }
  template <int Q>
  void collect(Operands<Q>& o) const {
    Operands<1> sub;
    sub.ctx = o.ctx;
    if (o.has_shape || o.known[0]) sub.need(0, o.shape.n[0]);
    e.collect(sub);
    o.ctx = sub.ctx;
    if (sub.has_shape) o.need(0, sub.shape.n[0]);
  }
};

/// A scalar constant.
template <class T>
struct Scalar : Node {
  using value_type = T;
  static constexpr int rank = 0;
  T value;
  template <class... I>
  SIM_INLINE T operator()(I...) const { return value; }
  SIM_INLINE T flat(index_t) const { return value; }
  bool contiguous() const { return true; }
  template <int V, class... I>
  SIM_INLINE void vec(T (&out)[V], I...) const {
    for (int k = 0; k < V; ++k) out[k] = value;
  }
  template <int V>
  bool vec_ok(bool) const { return true; }
  template <int R>
  void collect(Operands<R>&) const {}
};

template <class Op, class A>
struct Unary : Node {
  static constexpr int rank = A::rank;
  A a;
  Op op;
  using value_type = decltype(Op{}(std::declval<typename A::value_type>()));
  template <class... I>
  SIM_INLINE value_type operator()(I... i) const { return op(a(i...)); }
  SIM_INLINE value_type flat(index_t t) const { return op(a.flat(t)); }
  bool contiguous() const { return a.contiguous(); }
  template <int V, class... I>
  SIM_INLINE void vec(value_type (&out)[V], I... i) const {
    typename A::value_type x[V];
    a.template vec<V>(x, i...);
    for (int k = 0; k < V; ++k) out[k] = op(x[k]);
  }
  template <int V>
  bool vec_ok(bool flat) const { return a.template vec_ok<V>(flat); }
  template <int R>
  void collect(Operands<R>& o) const { a.collect(o); }
};

template <class Op, class A, class B>
struct Binary : Node {
  static_assert(A::rank == 0 || B::rank == 0 || A::rank == B::rank,
                "an expression cannot mix arrays of different rank");
  static constexpr int rank = A::rank > B::rank ? A::rank : B::rank;
  A a;
  B b;
  Op op;
  using value_type = decltype(Op{}(std::declval<typename A::value_type>(), std::declval<typename B::value_type>()));
  template <class... I>
  SIM_INLINE value_type operator()(I... i) const { return op(a(i...), b(i...)); }
  SIM_INLINE value_type flat(index_t t) const { return op(a.flat(t), b.flat(t)); }
  bool contiguous() const { return a.contiguous() && b.contiguous(); }
  template <int V, class... I>
  SIM_INLINE void vec(value_type (&out)[V], I... i) const {
    typename A::value_type x[V];
    typename B::value_type y[V];
    a.template vec<V>(x, i...);
    b.template vec<V>(y, i...);
    for (int k = 0; k < V; ++k) out[k] = op(x[k], y[k]);
  }
  template <int V>
  bool vec_ok(bool flat) const { return a.template vec_ok<V>(flat) && b.template vec_ok<V>(flat); }
  template <int R>
  void collect(Operands<R>& o) const { a.collect(o), b.collect(o); }
};

template <class C, class A, class B>
struct Select : Node {
  static constexpr int rank = C::rank > A::rank ? (C::rank > B::rank ? C::rank : B::rank)
                                                : (A::rank > B::rank ? A::rank : B::rank);
  C c;
  A a;
  B b;
  using value_type = std::common_type_t<typename A::value_type, typename B::value_type>;
  template <class... I>
  SIM_INLINE value_type operator()(I... i) const { return c(i...) ? value_type(a(i...)) : value_type(b(i...)); }
  SIM_INLINE value_type flat(index_t t) const { return c.flat(t) ? value_type(a.flat(t)) : value_type(b.flat(t)); }
  bool contiguous() const { return c.contiguous() && a.contiguous() && b.contiguous(); }
  template <int V, class... I>
  SIM_INLINE void vec(value_type (&out)[V], I... i) const {
    typename C::value_type w[V];
    typename A::value_type x[V];
    typename B::value_type y[V];
    c.template vec<V>(w, i...);
    a.template vec<V>(x, i...);
    b.template vec<V>(y, i...);
    for (int k = 0; k < V; ++k) out[k] = w[k] ? value_type(x[k]) : value_type(y[k]);
  }
  template <int V>
  bool vec_ok(bool flat) const {
    return c.template vec_ok<V>(flat) && a.template vec_ok<V>(flat) && b.template vec_ok<V>(flat);
  }
  template <int R>
  void collect(Operands<R>& o) const { c.collect(o), a.collect(o), b.collect(o); }
};

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

// ---- the operations
namespace op {
#define SIM_EXPR_BINARY_OP(NAME, EXPR) \
  struct NAME {                        \
    template <class X, class Y>        \
    SIM_INLINE auto operator()(X x, Y y) const { return EXPR; } \
  };
SIM_EXPR_BINARY_OP(Add, x + y)
SIM_EXPR_BINARY_OP(Sub, x - y)
SIM_EXPR_BINARY_OP(Mul, x * y)
SIM_EXPR_BINARY_OP(Div, x / y)
SIM_EXPR_BINARY_OP(Less, x < y)
SIM_EXPR_BINARY_OP(LessEq, x <= y)
SIM_EXPR_BINARY_OP(Greater, x > y)
SIM_EXPR_BINARY_OP(GreaterEq, x >= y)
SIM_EXPR_BINARY_OP(Equal, x == y)
SIM_EXPR_BINARY_OP(NotEqual, x != y)
SIM_EXPR_BINARY_OP(Min, y < x ? y : x)
SIM_EXPR_BINARY_OP(Max, x < y ? y : x)
SIM_EXPR_BINARY_OP(Pow, math::pow(math::real_t<decltype(x + y)>(x), math::real_t<decltype(x + y)>(y)))
SIM_EXPR_BINARY_OP(And, bool(x) && bool(y))
SIM_EXPR_BINARY_OP(Or, bool(x) || bool(y))
#undef SIM_EXPR_BINARY_OP
/// &, |, ^ and ~ as NumPy has them: logical on bool operands (a bool result), bitwise on
/// integers; floating-point operands do not compile (NumPy raises TypeError).
template <class X, class Y>
constexpr bool bitwise_ok = std::is_integral<X>::value && std::is_integral<Y>::value;
#define SIM_EXPR_BITWISE_OP(NAME, OP)                                                                 \
  struct NAME {                                                                                       \
    template <class X, class Y>                                                                       \
    SIM_INLINE auto operator()(X x, Y y) const {                                                      \
      static_assert(bitwise_ok<X, Y>, "&, | and ^ take bool or integer operands (as NumPy); for "     \
                                      "conditions on floating-point values use &&, || or comparisons"); \
      if constexpr (std::is_same<X, bool>::value && std::is_same<Y, bool>::value) return bool(x OP y); \
      else return x OP y;                                                                             \
    }                                                                                                 \
  };
SIM_EXPR_BITWISE_OP(BitAnd, &)
SIM_EXPR_BITWISE_OP(BitOr, |)
SIM_EXPR_BITWISE_OP(BitXor, ^)
#undef SIM_EXPR_BITWISE_OP
struct BitNot {
  template <class X>
  SIM_INLINE auto operator()(X x) const {
    static_assert(std::is_integral<X>::value, "~ takes a bool or integer operand (as NumPy); on a "
                                              "condition use ! or sim::logical_not");
    if constexpr (std::is_same<X, bool>::value) return !x;
    else return X(~x);
  }
};
#define SIM_EXPR_UNARY_OP(NAME, EXPR) \
  struct NAME {                       \
    template <class X>                \
    SIM_INLINE auto operator()(X x) const { return EXPR; } \
  };
SIM_EXPR_UNARY_OP(Negate, -x)
SIM_EXPR_UNARY_OP(Sin, math::sin(math::real_t<X>(x)))
SIM_EXPR_UNARY_OP(Cos, math::cos(math::real_t<X>(x)))
SIM_EXPR_UNARY_OP(Exp, math::exp(math::real_t<X>(x)))
SIM_EXPR_UNARY_OP(Log, math::log(math::real_t<X>(x)))
SIM_EXPR_UNARY_OP(Sqrt, math::sqrt(math::real_t<X>(x)))
SIM_EXPR_UNARY_OP(Abs, math::abs(x))
SIM_EXPR_UNARY_OP(Not, !bool(x))
#undef SIM_EXPR_UNARY_OP
SIM_INLINE float tanh_(float x) { return ::tanhf(x); }
SIM_INLINE double tanh_(double x) { return ::tanh(x); }
SIM_INLINE float floor_(float x) { return ::floorf(x); }
SIM_INLINE double floor_(double x) { return ::floor(x); }
SIM_INLINE float fmod_(float x, float y) { return ::fmodf(x, y); }
SIM_INLINE double fmod_(double x, double y) { return ::fmod(x, y); }
struct Tanh {
  template <class X>
  SIM_INLINE auto operator()(X x) const { return tanh_(math::real_t<X>(x)); }
};
struct Floor {  // integers are their own floor
  template <class X>
  SIM_INLINE auto operator()(X x) const {
    if constexpr (std::is_floating_point<X>::value) return floor_(x);
    else return x;
  }
};
/// x % y with NumPy's (Python's) meaning: the result has the sign of y; integer % 0 gives 0.
struct Mod {
  template <class X, class Y>
  SIM_INLINE auto operator()(X x, Y y) const {
    using C = decltype(x + y);
    C r;
    if constexpr (std::is_floating_point<C>::value) {
      r = fmod_(C(x), C(y));
    } else {
      if (C(y) == C(0)) return C(0);
      r = C(x) % C(y);
    }
    if constexpr (std::is_signed<C>::value)
      if (r != C(0) && ((r < C(0)) != (C(y) < C(0)))) r += C(y);
    return r;
  }
};
template <class T>
struct Cast {
  template <class X>
  SIM_INLINE T operator()(X x) const { return static_cast<T>(x); }
};
}  // namespace op

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

/// Evaluates e into dst on ctx in one pass (a lower-rank e is broadcast over dst).
template <class T, int Rank, class E>
void evaluate_into(const Context& ctx, View<T, Rank> dst, const E& e0) {
  static_assert(E::rank <= Rank, "expression rank is larger than the destination's rank");
  const auto e = lift<Rank>(e0);
  using L = std::decay_t<decltype(e)>;
  check<Rank>(e, &ctx, &dst.shape);
#if SIM_TU_HAS_CUDA
  if (ctx.is_cuda() && gpu::assign_vectorised(ctx, "sim::expr::assign", dst, e)) return;
#endif
  if (dst.contiguous() && e.contiguous())
    for_each(ctx, "sim::expr::assign", Box<1>{{0}, {dst.size()}}, FlatAssignFn<T, L>{dst.ptr, e});
  else
    for_each(ctx, "sim::expr::assign", dst.box(), AssignFn<T, Rank, L>{dst, e});
}

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

/// Evaluates an expression into a view on ctx in one pass.
template <class T, int Rank, class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
void assign(const Context& ctx, View<T, Rank> dst, const E& e) {
  expr::evaluate_into(ctx, dst, expr::node<T>(e));
}
/// Sets every element of a view (a slice, a row, a column) to a scalar: NumPy's a[...] = 5.
template <class T, int Rank, class X, std::enable_if_t<std::is_arithmetic<X>::value, int> = 0>
void assign(const Context& ctx, View<T, Rank> dst, X value) {
  detail::fill<T, Rank>(ctx, dst, static_cast<T>(value));
}

// ---- reductions (each waits for its result)
template <class E>
using expr_value_t = typename expr::value_of<E>::type;

/// Sum of the elements (accumulated in double for floating point, 64-bit for integers).
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
acc_t<expr_value_t<E>> sum(const E& e, const Context* ctx = nullptr) {
  using Acc = acc_t<expr_value_t<E>>;
  return expr::reduce_expr<Acc>(ctx, "sim::sum", expr::node<expr_value_t<E>>(e), expr::ToAcc<Acc>{}, ops::Plus{});
}
/// Smallest element.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
expr_value_t<E> min(const E& e, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::reduce_expr<T>(ctx, "sim::min", expr::node<T>(e), expr::Identity{}, ops::Minimum{});
}
/// Largest element.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
expr_value_t<E> max(const E& e, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::reduce_expr<T>(ctx, "sim::max", expr::node<T>(e), expr::Identity{}, ops::Maximum{});
}
/// Number of non-zero (true) elements.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
std::int64_t count(const E& e, const Context* ctx = nullptr) {
  return expr::reduce_expr<std::int64_t>(ctx, "sim::count", expr::node<expr_value_t<E>>(e), expr::NonZero{},
                                         ops::Plus{});
}
/// True when any element is non-zero (a.any()); false for an empty array.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
bool any(const E& e, const Context* ctx = nullptr) {
  return expr::any_all<ops::AnyOf>(expr::node<expr_value_t<E>>(e), ctx, "sim::any");
}
/// True when every element is non-zero (a.all()); true for an empty array.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
bool all(const E& e, const Context* ctx = nullptr) {
  return expr::any_all<ops::AllOf>(expr::node<expr_value_t<E>>(e), ctx, "sim::all");
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
      expr::reduce_expr<Acc>(ctx, "sim::norm2", expr::node<expr_value_t<E>>(e), expr::SquareAcc<Acc>{}, ops::Plus{})));
}
/// Max norm: the largest |element|.
template <class E, std::enable_if_t<expr::is_operand<E>, int> = 0>
expr_value_t<E> norm_max(const E& e, const Context* ctx = nullptr) {
  using T = expr_value_t<E>;
  return expr::reduce_expr<T>(ctx, "sim::norm_max", expr::node<T>(e), expr::AbsVal{}, ops::Maximum{});
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

template <class T, int Rank>
template <class E, class>
Array<T, Rank>& Array<T, Rank>::operator=(const E& expression) {
  sim::assign(ctx_, view_, expression);
  return *this;
}

template <class T, int Rank>
template <class E, class>
Field<T, Rank>& Field<T, Rank>::operator=(const E& expression) {
  sim::assign(data_.context(), view_, expression);
  return *this;
}


}  // namespace sim

// Reductions along an axis (sum(M, 0) is the column sums), mean/var/std, argmin/argmax.
#include "core/kernels/reduce_axis.hpp"
