// A tour of the simkit array API, mirroring the CuPy article's snippets, on whichever
// backend is available (the GPU when present, else CPU threads). Prints what it computes
// and how long each step took.
//   array_tour [auto|cuda|cpu] [n]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/numerics/blas.hpp"
#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"

using namespace sim;

namespace {
template <class F>
double timed_ms(const Context& ctx, F&& f) {
  ctx.synchronize();
  auto t0 = std::chrono::steady_clock::now();
  f();
  ctx.synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string backend = argc > 1 ? argv[1] : "auto";
    const index_t n = argc > 2 ? std::stoll(argv[2]) : 10000000;
    auto ctx = Context::create(backend, ContextOptions{0, 2026, 0, 0, true});
    std::printf("simkit array tour on %s, n = %lld\n\n", ctx.device_name().c_str(), (long long)n);

    // x = cp.ones(n); x *= 5; x *= x; x += x  -- here one fused pass
    auto x = Array<double, 1>::full(ctx, extents(n), 1.0);
    double ms = timed_ms(ctx, [&] { x = ((x * 5) * (x * 5)) * 2; });
    std::printf("x = ((x*5)*(x*5))*2          %8.3f ms   x[0] = %g (expect 50)\n", ms, x.to_host()[0]);

    // x = cp.random.random((1000, 100, 1000)); cp.sqrt(cp.sum(x**2))
    Array<float, 3> r(ctx, extents(100, 100, n / 10000 > 0 ? n / 10000 : 1));
    ms = timed_ms(ctx, [&] { fill_uniform(r); });
    std::printf("fill_uniform %-16s %8.3f ms\n", to_string(r.shape()).c_str(), ms);
    double norm = 0;
    ms = timed_ms(ctx, [&] { norm = std::sqrt(sum(r * r)); });
    std::printf("sqrt(sum(r*r))               %8.3f ms   = %.6g (expect ~%.6g)\n", ms, norm,
                std::sqrt(double(r.size()) / 3));

    // reductions and a where()
    std::printf("min %.3g  max %.3g  mean %.4f  count(r > 0.9) = %lld of %lld\n", min(r), max(r),
                sum(r) / double(r.size()), (long long)count(r > 0.9f), (long long)r.size());

    // normal numbers, BLAS
    Array<double, 1> a(ctx, extents(n)), b(ctx, extents(n));
    fill_normal(a);
    fill_normal(b, 1.0, 2.0);
    blas::axpy(0.5, a, b);
    std::printf("normal: mean(a) %.4f  std(a) %.4f   blas::nrm2(b) %.6g\n", sum(a) / double(n),
                std::sqrt(sum(a * a) / double(n)), blas::nrm2(b));
    std::printf("peak memory %s\n", format_bytes(double(ctx.memory_stats().peak)).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "array_tour: %s\n", e.what());
    return 2;
  }
}
