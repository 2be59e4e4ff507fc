// Misuse that must not compile, one case per SIM_CASE (compile_fail.cmake builds each and
// expects the plain-words message); SIM_CASE 0 is the correct use and must compile.
#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"

void misuse(const sim::Context& ctx) {
  sim::Array<std::int32_t, 1> k(ctx, sim::extents(10));
  sim::Array<double, 1> v(ctx, sim::extents(10));
  sim::Array<double, 2> m(ctx, sim::extents(3, 4));
#if SIM_CASE == 0
  sim::fill_uniform(v);
  double total = sim::sum(v);
  auto columns = sim::sum(m, 0);
  v *= 5;
  sim::Array<bool, 1> mask(ctx, sim::extents(10));
  mask = (v > 0.0) & ~(k < 0);  // bool masks: & | ^ ~ are logical
  mask |= v == 1.0;
  k = (k & 3) ^ ~k;             // integers: bitwise
  (void)total, (void)columns, (void)k;
#elif SIM_CASE == 1
  sim::fill_uniform(k);  // random integers: not what fill_uniform makes
#elif SIM_CASE == 2
  auto s = sim::sum(v, 0);  // an axis sum of a vector: the total is sum(v)
  (void)s;
#elif SIM_CASE == 3
  v = m * 2;  // a matrix expression into a vector
#elif SIM_CASE == 4
  v = ~v;  // bitwise not of floating-point values (NumPy: TypeError)
#elif SIM_CASE == 5
  v = v & v;  // bitwise and of floating-point values
#endif
}
