#pragma once
// The nodes of a fused elementwise expression: leaves reading arrays or views, scalars,
// broadcasts, and unary / binary / select nodes. Each node evaluates at an index (or a flat
// position, or V consecutive positions) inside a kernel and checks its operands' shapes and
// context on the host (collect).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "core/array/array.hpp"
#include "core/kernels/for_each.hpp"

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

/// The memory a destination view writes: its byte bounds (NumPy's array bounds, as
/// may_share_memory compares them) and its layout, for the overlap test of assignment.
struct Dest {
  std::uintptr_t lo = 0, hi = 0;  // [lo, hi): the bytes between its first and last element
  const void* ptr = nullptr;
  int rank = 0;
  std::size_t elem = 0;
  index_t n[3] = {}, stride[3] = {};
};
/// The byte bounds [lo, hi) of a view's elements; empty (lo == hi) for an empty view.
template <class T, int Rank>
Dest dest_of(const View<T, Rank>& v) {
  Dest d;
  d.ptr = v.ptr, d.rank = Rank, d.elem = sizeof(T);
  if (v.size() == 0) return d;
  index_t lo = 0, hi = 0;
  for (int k = 0; k < Rank; ++k) {
    const index_t reach = (v.shape.n[k] - 1) * v.stride[k];
    (reach < 0 ? lo : hi) += reach;
    d.n[k] = v.shape.n[k], d.stride[k] = v.stride[k];
  }
  const auto base = reinterpret_cast<std::uintptr_t>(v.ptr);
  d.lo = base + lo * index_t(sizeof(T));
  d.hi = base + (hi + 1) * index_t(sizeof(T));
  return d;
}

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
  /// The node as kernels take it (see Owned).
  Leaf kernel_form() const { return *this; }
  /// True when writing d may change what this leaf reads before it is read: the bounds
  /// intersect and the leaf is not d itself element for element (x = x * 2 + y is safe).
  bool may_overlap(const Dest& d) const {
    const Dest me = dest_of(v);
    if (me.lo == me.hi || d.lo == d.hi || me.hi <= d.lo || d.hi <= me.lo) return false;
    if (me.ptr != d.ptr || me.rank != d.rank || me.elem != d.elem) return true;
    for (int k = 0; k < Rank; ++k)
      if (me.n[k] != d.n[k] || (me.n[k] > 1 && me.stride[k] != d.stride[k])) return true;
    return false;
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

/// A leaf that owns the array it reads: what a temporary array (matmul(A, B), a function's
/// result) becomes in an expression, so a stored expression never reads freed memory.
/// Kernels take its kernel_form(), the plain leaf; the expression keeps the array alive.
template <class T, int Rank>
struct Owned : Leaf<T, Rank> {
  std::shared_ptr<const Array<T, Rank>> keep;
  Leaf<T, Rank> kernel_form() const { return Leaf<T, Rank>{{}, this->v, this->ctx}; }
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
  bool may_overlap(const Dest& d) const { return e.may_overlap(d); }
  auto kernel_form() const { return Broadcast<decltype(e.kernel_form()), R>{{}, e.kernel_form()}; }
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
  bool may_overlap(const Dest& d) const { return e.may_overlap(d); }
  auto kernel_form() const { return Column<decltype(e.kernel_form())>{{}, e.kernel_form()}; }
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
  bool may_overlap(const Dest&) const { return false; }
  Scalar kernel_form() const { return *this; }
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
  bool may_overlap(const Dest& d) const { return a.may_overlap(d); }
  auto kernel_form() const { return Unary<Op, decltype(a.kernel_form())>{{}, a.kernel_form(), op}; }
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
  bool may_overlap(const Dest& d) const { return a.may_overlap(d) || b.may_overlap(d); }
  auto kernel_form() const {
    return Binary<Op, decltype(a.kernel_form()), decltype(b.kernel_form())>{{}, a.kernel_form(), b.kernel_form(), op};
  }
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
  bool may_overlap(const Dest& d) const { return c.may_overlap(d) || a.may_overlap(d) || b.may_overlap(d); }
  auto kernel_form() const {
    return Select<decltype(c.kernel_form()), decltype(a.kernel_form()), decltype(b.kernel_form())>{
        {}, c.kernel_form(), a.kernel_form(), b.kernel_form()};
  }
};

}  // namespace expr
}  // namespace SIM_TU_NS
}  // namespace sim
