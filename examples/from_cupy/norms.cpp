// np.linalg.norm in its common forms, as simkit:
//   np.linalg.norm(x)              sim::norm2(x)                 (one pass, in double)
//   np.linalg.norm(x, 1)           sim::sum(sim::abs(x))
//   np.linalg.norm(x, np.inf)      sim::norm_max(x)
//   np.linalg.norm(M)  (Frobenius) sim::norm2(M)
//   np.linalg.norm(M, axis=1)      sim::sqrt(sim::sum(M * M, 1)) into an array
// Checked against host loops over the same numbers.
//   from_cupy_norms [--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]
#include <cmath>
#include <cstdio>

#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "examples/from_cupy/common.hpp"

template <class T>
bool run(const sim::Context& ctx, long long n) {
  sim::Array<T, 1> x(ctx, sim::extents(n * n));
  sim::Array<T, 2> M(ctx, sim::extents(n, n));
  sim::fill_normal(x);
  sim::fill_normal(M);
  double l2 = 0, l1 = 0, linf = 0, fro = 0;
  sim::Array<T, 1> rows(ctx, sim::extents(n));
  const double s = from_cupy::best_seconds(ctx, 3, [] {}, [&] {  // the best of 3 after one untimed run
    l2 = sim::norm2(x), l1 = double(sim::sum(sim::abs(x))), linf = double(sim::norm_max(x));
    fro = sim::norm2(M);
    rows = sim::sqrt(sim::sum(M * M, 1));  // row norms: the squared sums in one pass
  });
  auto hx = x.to_host(), hm = M.to_host(), hr = rows.to_host();
  double r2 = 0, r1 = 0, rinf = 0, rf = 0, worst_row = 0;
  for (T v : hx) r2 += double(v) * v, r1 += std::fabs(double(v)), rinf = std::max(rinf, std::fabs(double(v)));
  for (long long i = 0; i < n; ++i) {
    double s = 0;
    for (long long j = 0; j < n; ++j) s += double(hm[i * n + j]) * hm[i * n + j];
    rf += s;
    worst_row = std::max(worst_row, std::fabs(hr[i] - std::sqrt(s)) / (1 + std::sqrt(s)));
  }
  r2 = std::sqrt(r2), rf = std::sqrt(rf);
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  auto rel = [](double a, double b) { return std::fabs(a - b) / (1 + std::fabs(b)); };
  std::printf("%s n=%lld: |x|_2 = %.10g  |x|_1 = %.10g  |x|_inf = %.10g  |M|_F = %.10g  (host %.10g %.10g %.10g %.10g)\n",
              sizeof(T) == 4 ? "float32" : "float64", n * n, l2, l1, linf, fro, r2, r1, rinf, rf);
  std::printf("timed %s %.6f\n", sizeof(T) == 4 ? "float32" : "float64", s);  // the five norms, for bench/newcomer.py
  return rel(l2, r2) < tol && rel(l1, r1) < tol && linf == rinf && rel(fro, rf) < tol && worst_row < 10 * tol;
}

int main(int argc, char** argv) {
  auto o = from_cupy::parse(argc, argv, "[--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]", 2048);
  auto ctx = from_cupy::context(o);
  bool ok = true;
  if (o.dtype != "float64") ok = run<float>(ctx, o.size) && ok;
  if (o.dtype != "float32") ok = run<double>(ctx, o.size) && ok;
  return from_cupy::verdict(ok, "norms");
}
