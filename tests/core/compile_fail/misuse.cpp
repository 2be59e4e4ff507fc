// Misuse that must not compile, one case per SIM_CASE (compile_fail.cmake builds each and
// expects the plain-words message); SIM_CASE 0 is the correct use and must compile.
#include "core/array/expr.hpp"
#include "core/array/slicing.hpp"
#include "core/numerics/linalg.hpp"
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
  sim::Array<double, 2> b = m + 1.0;  // an array made from an expression, now
  sim::fill_uniform(v, -1, 1);         // int bounds for a double array
  auto e = sim::matmul(m, b) + 1.0;    // the expression owns the product
  auto now = sim::eval(v * 2);
  auto row_var = sim::var(m, sim::Axis{1}, 1.0);
  double whole_var = sim::var(m, 1.0);
  (void)row_var, (void)whole_var;
  sim::assign(ctx, sim::slice(v, sim::Range{1, -1}), sim::slice(v, sim::Range{0, -2}));
  (void)e, (void)now;
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
#elif SIM_CASE == 6
  sim::Array<double, 1> copy = v;  // arrays are not copied implicitly
#elif SIM_CASE == 7
  auto t = sim::transposed(sim::matmul(m, m));  // a view of a temporary
  (void)t;
#elif SIM_CASE == 8
  auto w = v.view();
  w += 1.0;  // a view has no context
#elif SIM_CASE == 9
  auto y = sim::var(m, 1);  // axis 1 or ddof 1? NumPy users mean ddof
  (void)y;
#endif
}
