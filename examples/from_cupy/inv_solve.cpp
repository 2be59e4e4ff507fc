// np.linalg.solve and np.linalg.inv of a random, well-conditioned n x n matrix, as simkit:
//   auto x = sim::solve(A, b);   auto Ai = sim::inv(A);
// Checks the residual |A x - b| on the host and A @ inv(A) = I on 50 random rows.
//   from_cupy_inv_solve [--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]
#include <cmath>
#include <cstdio>
#include <random>

#include "core/array/expr.hpp"
#include "core/numerics/linalg.hpp"
#include "core/numerics/random.hpp"
#include "core/array/slicing.hpp"
#include "examples/from_cupy/common.hpp"

template <class T>
bool run(const sim::Context& ctx, long long n) {
  sim::Array<T, 2> A(ctx, sim::extents(n, n));
  sim::Array<T, 1> b(ctx, sim::extents(n));
  sim::fill_uniform(A, T(-1), T(1));
  sim::fill_uniform(b);
  auto d = sim::diagonal(A);
  sim::assign(ctx, d, d + T(n));  // A + n I: diagonally dominant, well conditioned
  sim::Array<T, 1> x = sim::solve(A, b);
  sim::Array<T, 2> Ai = sim::inv(A);
  // the best of 3 runs after one untimed run, as bench/newcomer.py times CuPy and NumPy
  const double ts = from_cupy::best_seconds(ctx, 3, [] {}, [&] { x = sim::solve(A, b); });
  const double ti = from_cupy::best_seconds(ctx, 3, [] {}, [&] { Ai = sim::inv(A); });
  auto ha = A.to_host(), hb = b.to_host(), hx = x.to_host(), hi = Ai.to_host();
  double res = 0, worst_inv = 0;
  for (long long i = 0; i < n; ++i) {
    double r = -double(hb[i]);
    for (long long j = 0; j < n; ++j) r += double(ha[i * n + j]) * hx[j];
    res = std::max(res, std::fabs(r));
  }
  std::mt19937_64 rng(3);
  for (int t = 0; t < 50 && n > 0; ++t) {
    const long long i = (long long)(rng() % n);
    for (long long j = 0; j < n; ++j) {
      double s = 0;
      for (long long p = 0; p < n; ++p) s += double(ha[i * n + p]) * hi[p * n + j];
      worst_inv = std::max(worst_inv, std::fabs(s - (i == j ? 1.0 : 0.0)));
    }
  }
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-11;
  std::printf("%s n=%lld: solve %.4f s, inv %.4f s; max |A x - b| = %.2e, max |A inv(A) - I| = %.2e (tolerance %.0e)\n",
              sizeof(T) == 4 ? "float32" : "float64", n, ts, ti, res, worst_inv, tol);
  std::printf("timed %s %.6f\n", sizeof(T) == 4 ? "float32" : "float64", ts + ti);  // solve + inv, for bench/newcomer.py
  return res <= tol && worst_inv <= tol;
}

int main(int argc, char** argv) {
  auto o = from_cupy::parse(argc, argv, "[--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]", 1000);
  auto ctx = from_cupy::context(o);
  bool ok = true;
  if (o.dtype != "float64") ok = run<float>(ctx, o.size) && ok;
  if (o.dtype != "float32") ok = run<double>(ctx, o.size) && ok;
  return from_cupy::verdict(ok, "inv_solve");
}
