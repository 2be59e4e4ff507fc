// The classic CuPy in-place chain  x *= 5; x *= x; x += x  on a random array, as simkit,
// written two ways: the same three statements (three passes, as in CuPy), and one fused
// expression x = ((x * 5) * (x * 5)) * 2 (one pass). Both checked against the host.
//   from_cupy_chain [--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]
#include <cmath>
#include <cstdio>

#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "examples/from_cupy/common.hpp"

template <class T>
bool run(const sim::Context& ctx, long long n) {
  sim::Array<T, 1> x(ctx, sim::extents(n));
  sim::fill_uniform(x);
  auto h0 = x.to_host();
  const auto x0 = x.clone();
  auto y = x.clone();
  // each the best of 3 runs from the same start (x0), after one untimed run
  const double t3 = from_cupy::best_seconds(ctx, 3, [&] { x.copy_from(x0); }, [&] {
    x *= 5;
    x *= x;
    x += x;
  });
  const double t1 = from_cupy::best_seconds(ctx, 3, [&] { y.copy_from(x0); }, [&] { y = ((y * 5) * (y * 5)) * 2; });
  auto hx = x.to_host(), hy = y.to_host();
  double worst = 0;
  for (long long i = 0; i < n; ++i) {
    T r = h0[i] * T(5);
    r = r * r;
    r = r + r;
    worst = std::max({worst, std::fabs(double(hx[i]) - r) / (1 + std::fabs(double(r))),
                      std::fabs(double(hy[i]) - r) / (1 + std::fabs(double(r)))});
  }
  const double tol = sizeof(T) == 4 ? 1e-6 : 1e-15;
  std::printf("%s n=%lld: three statements %.4f s, one fused pass %.4f s, sum %.6g, worst relative error %.1e\n",
              sizeof(T) == 4 ? "float32" : "float64", n, t3, t1, double(sim::sum(x)), worst);
  std::printf("timed %s %.6f\n", sizeof(T) == 4 ? "float32" : "float64", t3);  // as written in NumPy, for bench/newcomer.py
  return worst <= tol;
}

int main(int argc, char** argv) {
  auto o = from_cupy::parse(argc, argv, "[--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]", 100000000);
  auto ctx = from_cupy::context(o);
  bool ok = true;
  if (o.dtype != "float64") ok = run<float>(ctx, o.size) && ok;
  if (o.dtype != "float32") ok = run<double>(ctx, o.size) && ok;
  return from_cupy::verdict(ok, "chain");
}
