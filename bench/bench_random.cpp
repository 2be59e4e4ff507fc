// Random fills: uniform and normal, float32 and float64, n elements each, from a fixed seed.
// For each fill prints the median, min and max of --repeat timed fills (after a warm-up) and an
// FNV-1a hash of the first fill's bytes (from seed 1 at offset 0), so a faster fill can be
// checked for the same bits. bench/cpu_random_vs_numpy.py runs it beside NumPy's default_rng.
//   bench_random [--backend auto|cuda|cpu] [--n 10000000] [--repeat 7]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/numerics/random.hpp"
#include "core/runtime/context.hpp"

using namespace sim;

namespace {

/// FNV-1a over the bytes of v.
template <class T>
std::uint64_t fnv1a(const std::vector<T>& v) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

template <class T, class Fill>
void row(const Context& ctx, const char* dist, index_t n, int repeat, Fill fill) {
  Array<T, 1> x(ctx, extents(n));
  ctx.set_rng_state(1, 0);
  fill(x);
  const std::uint64_t hash = fnv1a(x.to_host());
  std::vector<double> t;
  for (int r = 0; r < repeat + 1; ++r) {
    ctx.synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    fill(x);
    ctx.synchronize();
    if (r > 0) t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  std::printf("%-8s %-8s n=%lld median_ms %.3f min_ms %.3f max_ms %.3f hash %016llx\n", dist,
              sizeof(T) == 4 ? "float32" : "float64", (long long)n, t[t.size() / 2] * 1e3, t.front() * 1e3,
              t.back() * 1e3, (unsigned long long)hash);
}

template <class T>
void run(const Context& ctx, index_t n, int repeat) {
  row<T>(ctx, "uniform", n, repeat, [](Array<T, 1>& x) { fill_uniform(x); });
  row<T>(ctx, "normal", n, repeat, [](Array<T, 1>& x) { fill_normal(x); });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"random fills: time and bits"};
  std::string backend = "auto";
  long long n = 10000000;
  int repeat = 7;
  app.add_option("--backend", backend, "auto, cuda or cpu");
  app.add_option("--n", n, "elements a fill")->check(CLI::PositiveNumber);
  app.add_option("--repeat", repeat, "timed fills a row")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    const Context ctx = Context::create(backend);
    std::printf("backend %s (%s)\n", backend_name(ctx.backend()), ctx.device_name().c_str());
    run<float>(ctx, n, repeat);
    run<double>(ctx, n, repeat);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_random: %s\n", e.what());
    return 2;
  }
  return 0;
}
