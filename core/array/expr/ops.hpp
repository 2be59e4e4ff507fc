#pragma once
// The operations an expression node applies elementwise (+, sin, %, casts, ...), as
// functors callable in kernels on both backends.
#include <type_traits>

#include "core/array/math.hpp"
#include "core/runtime/macros.hpp"

namespace sim {
inline namespace SIM_TU_NS {
namespace expr {

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
SIM_EXPR_BINARY_OP(And, bool(x) && bool(y))
SIM_EXPR_BINARY_OP(Or, bool(x) || bool(y))
#undef SIM_EXPR_BINARY_OP
/// x ** y. Small whole exponents (2, 3, 1, 0, -1; 0.5 is sqrt) multiply instead of calling
/// pow, as NumPy does for its fast scalar powers: pow(x, 2) costs what x * x costs. The
/// test is on the exponent's value, so a run-time 2.0 takes the fast path too.
struct Pow {
  template <class X, class Y>
  SIM_INLINE auto operator()(X x, Y y) const {
    using R = math::real_t<decltype(x + y)>;
    const R a = R(x), b = R(y);
    if (b == R(2)) return a * a;
    if (b == R(3)) return a * a * a;
    if (b == R(1)) return a;
    if (b == R(0)) return R(1);
    if (b == R(-1)) return R(1) / a;
    if (b == R(0.5)) return math::sqrt(a);
    return math::pow(a, b);
  }
};
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
}  // namespace expr
}  // namespace SIM_TU_NS
}  // namespace sim
