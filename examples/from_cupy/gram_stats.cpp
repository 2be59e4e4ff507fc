// Statistics of the Gram matrix G = A @ A.T, as a NumPy user writes them: the product (which
// simkit computes as a symmetric product, SYRK, when it sees A and its transpose), the mean
// and standard deviation of G, its trace and its largest row sum. Checked against the host.
//   G = A @ A.T
//   print(G.mean(), G.std(), np.trace(G), G.sum(axis=1).max())
//   from_cupy_gram_stats [--backend cpu|cuda|auto] [--size M] [--dtype float32|float64|both]
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/array/expr.hpp"
#include "core/array/slicing.hpp"
#include "core/numerics/linalg.hpp"
#include "core/numerics/random.hpp"
#include "examples/from_cupy/common.hpp"

template <class T>
bool run(const sim::Context& ctx, long long m) {
  const long long k = m / 2 > 0 ? m / 2 : 1;
  sim::Array<T, 2> A(ctx, sim::extents(m, k));
  sim::fill_normal(A);
  double mean = 0, sd = 0, trace = 0, rmax = 0;
  sim::Array<T, 2> G;
  // the best of 3 runs after one untimed run, as bench/newcomer.py times CuPy and NumPy
  const double t = from_cupy::best_seconds(ctx, 3, [] {}, [&] {
    G = sim::matmul(A, sim::transposed(A));  // G = A @ A.T
    auto [mu, s] = sim::mean_std(G);
    mean = mu, sd = s;
    trace = sim::sum(ctx, sim::diagonal(G));   // np.trace(G)
    rmax = double(sim::max(sim::sum(G, 1)));  // G.sum(axis=1).max()
  });
  // the host reference on a sample of rows (the full product is m^2 k work on one core)
  const auto ha = A.to_host(), hg = G.to_host();
  double worst = 0;
  for (long long i = 0; i < m; i += (m > 64 ? m / 64 : 1))
    for (long long j = 0; j < m; ++j) {
      double g = 0;
      for (long long t2 = 0; t2 < k; ++t2) g += double(ha[i * k + t2]) * double(ha[j * k + t2]);
      worst = std::max(worst, std::fabs(double(hg[i * m + j]) - g) / (std::sqrt(double(k)) + std::fabs(g)));
    }
  double hmean = 0, htrace = 0;
  for (long long i = 0; i < m; ++i) {
    htrace += double(hg[i * m + i]);
    for (long long j = 0; j < m; ++j) hmean += double(hg[i * m + j]);
  }
  hmean /= double(m) * double(m);
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-12;
  const bool ok = worst <= tol && std::fabs(hmean - mean) <= tol * (1 + std::fabs(hmean)) * 10 &&
                  std::fabs(htrace - trace) <= tol * std::fabs(htrace);
  std::printf("%s G = A @ A.T, A %lld x %lld: %.4f s, mean %.6g, std %.6g, trace %.6g, max row sum %.6g, worst error %.1e\n",
              sizeof(T) == 4 ? "float32" : "float64", m, k, t, mean, sd, trace, rmax, worst);
  std::printf("timed %s %.6f\n", sizeof(T) == 4 ? "float32" : "float64", t);
  return ok;
}

int main(int argc, char** argv) {
  auto o = from_cupy::parse(argc, argv, "[--backend cpu|cuda|auto] [--size M] [--dtype float32|float64|both]", 4000);
  auto ctx = from_cupy::context(o);
  bool ok = true;
  if (o.dtype != "float64") ok = run<float>(ctx, o.size) && ok;
  if (o.dtype != "float32") ok = run<double>(ctx, o.size) && ok;
  return from_cupy::verdict(ok, "gram_stats");
}
