// Boolean masks as a CuPy user writes them, in simkit:
//   m = (x > 0) & ~(y < 0)         Array<bool, 1> m = ...; m = (x > 0) & ~(y < 0)
//   m.sum(), m.any(), m.all()      sim::count(m), sim::any(m), sim::all(m)
//   x[m]                           sim::extract(m, x)
//   y[m] = 0                       y = sim::where(m, 0, y)
//   M.sum(axis=1) of (M > 0.5)     sim::count(M > 0.5, 1)  (one pass, nothing stored)
// Checked against host loops over the same numbers.
//   from_cupy_masks [--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "core/kernels/scan.hpp"
#include "examples/from_cupy/common.hpp"

template <class T>
bool run(const sim::Context& ctx, long long n) {
  sim::Array<T, 1> x(ctx, sim::extents(n)), y(ctx, sim::extents(n));
  sim::fill_normal(x);
  sim::fill_normal(y);
  const auto hx = x.to_host(), hy = y.to_host();
  const long long side = (long long)std::sqrt(double(n));
  sim::Array<T, 2> M(ctx, sim::extents(side, side));
  sim::fill_uniform(M);
  sim::Array<bool, 1> m(ctx, x.shape());
  long long count = 0;
  bool any = false, all = false;
  std::optional<sim::Array<T, 1>> picked_x;
  std::optional<sim::Array<std::int64_t, 1>> row_counts;
  const auto y0 = y.clone();  // each run starts from the same y (the section writes it)
  // the best of 3 runs after one untimed run, as bench/newcomer.py times CuPy and NumPy
  const double s = from_cupy::best_seconds(ctx, 3, [&] { y.copy_from(y0); }, [&] {
    m = (x > T(0)) & ~(y < T(0));
    count = sim::count(m);
    any = sim::any(m), all = sim::all(m);
    picked_x.emplace(sim::extract(m, x));
    y = sim::where(m, T(0), y);
    row_counts.emplace(sim::count(M > T(0.5), 1));
  });
  const auto picked = picked_x->to_host();
  const auto per_row = row_counts->to_host();
  auto hy2 = y.to_host();
  auto hm = M.to_host();
  long long rc = 0;
  std::vector<T> rp;
  bool ok = true;
  for (long long i = 0; i < n; ++i) {
    const bool b = hx[i] > 0 && !(hy[i] < 0);
    if (b) ++rc, rp.push_back(hx[i]);
    ok = ok && hy2[i] == (b ? T(0) : hy[i]);
  }
  for (long long i = 0; i < side; ++i) {
    long long k = 0;
    for (long long j = 0; j < side; ++j) k += hm[i * side + j] > T(0.5);
    ok = ok && per_row[i] == k;
  }
  ok = ok && count == rc && picked == rp && any == (rc > 0) && all == (rc == n);
  std::printf("%s n=%lld: %lld selected (host %lld), any %d, all %d, %zu extracted, row counts of a %lldx%lld matrix\n",
              sizeof(T) == 4 ? "float32" : "float64", n, count, rc, int(any), int(all), picked.size(), side, side);
  std::printf("timed %s %.6f\n", sizeof(T) == 4 ? "float32" : "float64", s);  // the masks section, for bench/newcomer.py
  return ok;
}

int main(int argc, char** argv) {
  auto o = from_cupy::parse(argc, argv, "[--backend cpu|cuda|auto] [--size N] [--dtype float32|float64|both]", 1 << 24);
  auto ctx = from_cupy::context(o);
  bool ok = true;
  if (o.dtype != "float64") ok = run<float>(ctx, o.size) && ok;
  if (o.dtype != "float32") ok = run<double>(ctx, o.size) && ok;
  return from_cupy::verdict(ok, "masks");
}
