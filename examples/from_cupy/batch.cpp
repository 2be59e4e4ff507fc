// Batch processing as a NumPy user writes it: a batch of signals X (rows), the energy of each
// row sum(X ** 2, axis=1), the rows scaled to unit energy, and the batch's mean and spread of
// the scaled values. Checked against the host.
//   X = rng.random((b, n)) * 2 - 1
//   e = (X ** 2).sum(axis=1)
//   Z = X / np.sqrt(e)[:, None]
//   print(e.mean(), Z.std())
//   from_cupy_batch [--backend cpu|cuda|auto] [--size ROWS] [--dtype float32|float64|both]
#include <cmath>
#include <cstdio>

#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "examples/from_cupy/common.hpp"

template <class T>
bool run(const sim::Context& ctx, long long rows) {
  const long long n = 1000;
  sim::Array<T, 2> X(ctx, sim::extents(rows, n));
  sim::fill_uniform(X, -1, 1);
  sim::Array<T, 1> e(ctx, sim::extents(rows));
  sim::Array<T, 2> Z(ctx, X.shape());
  double mean_e = 0, std_z = 0;
  // the best of 3 runs after one untimed run, as bench/newcomer.py times CuPy and NumPy
  const double t = from_cupy::best_seconds(ctx, 3, [] {}, [&] {
    sim::sum(sim::pow(X, 2), 1, e);      // e = (X ** 2).sum(axis=1): pow(x, 2) costs x * x
    Z = X / sim::as_column(sim::sqrt(e));  // Z = X / np.sqrt(e)[:, None]
    mean_e = sim::mean(e);
    std_z = sim::stddev(Z);
  });
  const auto hx = X.to_host(), he = e.to_host(), hz = Z.to_host();
  double worst = 0, me = 0, sz = 0;
  for (long long i = 0; i < rows; ++i) {
    double ei = 0;
    for (long long j = 0; j < n; ++j) ei += double(hx[i * n + j]) * double(hx[i * n + j]);
    me += ei;
    worst = std::max(worst, std::fabs(double(he[i]) - ei) / ei);
    for (long long j = 0; j < n; ++j) {
      const double z = double(hx[i * n + j]) / std::sqrt(ei);
      sz += z * z;
      worst = std::max(worst, std::fabs(double(hz[i * n + j]) - z) / (1e-3 + std::fabs(z)));
    }
  }
  me /= double(rows);
  // every row has unit energy, so the mean of Z^2 is 1 / n; Z's mean is near 0
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-12;
  const bool ok = worst <= tol && std::fabs(mean_e - me) <= tol * me && std::fabs(std_z * std_z * double(n) - 1.0) < 0.01;
  std::printf("%s %lld x %lld: %.4f s (energy, scale, mean, std), mean energy %.6g, std of Z %.6g, worst relative error %.1e\n",
              sizeof(T) == 4 ? "float32" : "float64", rows, n, t, mean_e, std_z, worst);
  std::printf("timed %s %.6f\n", sizeof(T) == 4 ? "float32" : "float64", t);
  (void)sz;
  return ok;
}

int main(int argc, char** argv) {
  auto o = from_cupy::parse(argc, argv, "[--backend cpu|cuda|auto] [--size ROWS] [--dtype float32|float64|both]", 20000);
  auto ctx = from_cupy::context(o);
  bool ok = true;
  if (o.dtype != "float64") ok = run<float>(ctx, o.size) && ok;
  if (o.dtype != "float32") ok = run<double>(ctx, o.size) && ok;
  return from_cupy::verdict(ok, "batch");
}
