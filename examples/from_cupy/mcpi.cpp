// Monte Carlo pi from random arrays (the usual CuPy version:
//   x = cp.random.random(n); y = cp.random.random(n); pi = 4 * cp.sum(x*x + y*y < 1) / n)
// as simkit:  fill_uniform(x); fill_uniform(y); 4.0 * sim::count(x * x + y * y < 1) / n
// The count is one fused pass (no temporary for x*x + y*y). Checked against the same random
// numbers counted on the host, and pi within 5 standard errors.
//   from_cupy_mcpi [--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]
#include <cmath>
#include <cstdio>

#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "examples/from_cupy/common.hpp"

template <class T>
bool run(const sim::Context& ctx, long long n) {
  sim::Array<T, 1> x(ctx, sim::extents(n)), y(ctx, sim::extents(n));
  sim::fill_uniform(x);
  sim::fill_uniform(y);
  long long inside = 0;
  // the best of 3 runs after one untimed run, as bench/newcomer.py times CuPy and NumPy
  const double s = from_cupy::best_seconds(ctx, 3, [] {}, [&] { inside = sim::count(x * x + y * y < T(1)); });
  const double pi = 4.0 * double(inside) / double(n);
  auto hx = x.to_host(), hy = y.to_host();
  long long ref = 0;
  for (long long i = 0; i < n; ++i) ref += (hx[i] * hx[i] + hy[i] * hy[i] < T(1)) ? 1 : 0;
  const double se = 4.0 * std::sqrt(M_PI / 4 * (1 - M_PI / 4) / double(n));
  std::printf("%s n=%lld: pi ~ %.8f (error %.2e, 5 standard errors %.2e), count %.4f s; host count %lld, device %lld\n",
              sizeof(T) == 4 ? "float32" : "float64", n, pi, pi - M_PI, 5 * se, s, ref, inside);
  std::printf("timed %s %.6f\n", sizeof(T) == 4 ? "float32" : "float64", s);  // the count, for bench/newcomer.py
  return ref == inside && std::fabs(pi - M_PI) < 5 * se;
}

int main(int argc, char** argv) {
  auto o = from_cupy::parse(argc, argv, "[--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]", 100000000);
  auto ctx = from_cupy::context(o);
  bool ok = true;
  if (o.dtype != "float64") ok = run<float>(ctx, o.size) && ok;
  if (o.dtype != "float32") ok = run<double>(ctx, o.size) && ok;
  return from_cupy::verdict(ok, "mcpi");
}
