// np.dot / cp.dot of two random n x n matrices (as CuPy introductions time it: 1024^2 and 5000^2, float32
// and float64), as simkit:  auto C = sim::matmul(A, B);
// Checks 200 entries of C (random rows and columns) against a host dot product in double.
//   from_cupy_matmul [--backend cpu|cuda|auto] [--size 1024 --size 5000] [--dtype float32|float64|both]
#include <cmath>
#include <cstdio>
#include <random>

#include "core/numerics/linalg.hpp"
#include "core/numerics/random.hpp"
#include "examples/from_cupy/common.hpp"

template <class T>
bool run(const sim::Context& ctx, long long n) {
  sim::Array<T, 2> A(ctx, sim::extents(n, n)), B(ctx, sim::extents(n, n));
  sim::fill_uniform(A);  // cp.random.random((n, n))
  sim::fill_uniform(B);
  sim::Array<T, 2> C = sim::matmul(A, B);  // warm-up (library load, kernel selection)
  // the best of 3 runs after one untimed run, as bench/newcomer.py times CuPy and NumPy
  const double s = from_cupy::best_seconds(ctx, 3, [] {}, [&] { C = sim::matmul(A, B); });
  auto ha = A.to_host(), hb = B.to_host(), hc = C.to_host();
  std::mt19937_64 rng(7);
  double worst = 0;
  for (int t = 0; t < 200 && n > 0; ++t) {
    const long long i = (long long)(rng() % n), j = (long long)(rng() % n);
    double ref = 0;
    for (long long p = 0; p < n; ++p) ref += double(ha[i * n + p]) * double(hb[p * n + j]);
    worst = std::max(worst, std::fabs(hc[i * n + j] - ref) / (1.0 + std::fabs(ref)));
  }
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-12;
  std::printf("matmul %lld^2 %s: %.4f s, %.1f GFLOP/s, worst relative error %.2e (tolerance %.0e)\n", n,
              sizeof(T) == 4 ? "float32" : "float64", s, 2.0 * n * n * n / s / 1e9, worst, tol);
  std::printf("timed %s %.6f\n", sizeof(T) == 4 ? "float32" : "float64", s);  // C = A @ B, for bench/newcomer.py
  return worst <= tol;
}

int main(int argc, char** argv) {
  auto o = from_cupy::parse(argc, argv, "[--backend cpu|cuda|auto] [--size N]... [--dtype float32|float64|both]", 1024);
  auto ctx = from_cupy::context(o);
  bool ok = true;
  for (long long n : o.sizes) {
    if (o.dtype != "float64") ok = run<float>(ctx, n) && ok;
    if (o.dtype != "float32") ok = run<double>(ctx, n) && ok;
  }
  return from_cupy::verdict(ok, "matmul");
}
