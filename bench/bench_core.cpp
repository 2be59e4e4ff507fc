// Array-core benchmarks: copy bandwidth, the CuPy article's x *= 5; x *= x; x += x as one
// fused pass and as three passes, and full reductions (sum, 2-norm) over 1 GB and 4 GB.
//   bench_core [--backend auto|cuda|cpu] [--n N] [--reduce-gb 1,4] [--repeat R]
//              [--json FILE] [--commit SHA]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"

using namespace sim;

namespace {

double gb(double bytes) { return bytes / 1e9; }

// Device copy, bytes read + written: the roofline for memory-bound kernels.
bench::Row copy_bandwidth(const Context& ctx, index_t n, int repeat) {
  Array<double, 1> a(ctx, extents(n)), b(ctx, extents(n));
  fill_uniform(a);
  auto t = bench::time_it(ctx, repeat, [&] { b.copy_from(a); });
  return {"copy float64 n=" + std::to_string(n), {{"ms", t.median * 1e3}, {"GB/s", gb(2.0 * a.bytes()) / t.median}}};
}

std::vector<bench::Row> elementwise(const Context& ctx, index_t n, int repeat) {
  Array<double, 1> x(ctx, extents(n)), x0(ctx, extents(n));
  fill_uniform(x0);
  auto reset = [&] { x.copy_from(x0); };
  const double bytes = 2.0 * x.bytes();  // one read + one write of x
  auto fused = bench::time_it(ctx, repeat, [&] { x = ((x * 5) * (x * 5)) * 2; }, reset);
  auto three = bench::time_it(ctx, repeat, [&] { x = x * 5; x = x * x; x = x + x; }, reset);
  // the result must be the same either way: (5 x)^2 * 2
  reset();
  x = ((x * 5) * (x * 5)) * 2;
  const double check = sum(x), expect = sum(x0 * x0) * 50;
  std::printf("elementwise check: sum %.10g vs %.10g\n", check, expect);
  return {{"fused ((x*5)*(x*5))*2 float64 n=" + std::to_string(n),
           {{"ms", fused.median * 1e3}, {"GB/s", gb(bytes) / fused.median}, {"min_ms", fused.min * 1e3}}},
          {"three passes x*=5; x*=x; x+=x float64",
           {{"ms", three.median * 1e3}, {"GB/s", gb(3 * bytes) / three.median}, {"min_ms", three.min * 1e3}}}};
}

template <class T>
std::vector<bench::Row> reductions(const Context& ctx, double gbytes, int repeat) {
  const index_t n = index_t(gbytes * 1e9 / sizeof(T));
  Array<T, 1> x(ctx, extents(n));
  fill_uniform(x);
  const char* type = sizeof(T) == 4 ? "float32" : "float64";
  double s = 0, r = 0;
  auto ts = bench::time_it(ctx, repeat, [&] { s = sum(x); });
  auto tn = bench::time_it(ctx, repeat, [&] { r = norm2(x); });
  std::printf("reduce %s %.3g GB: sum %.8g (expect ~%.8g), norm2 %.8g\n", type, gbytes, s, 0.5 * double(n), r);
  const double bytes = double(x.bytes());
  char size[32];
  std::snprintf(size, sizeof size, " %.3g GB", gbytes);
  std::string tag = type + std::string(size);
  return {{"sum " + tag, {{"ms", ts.median * 1e3}, {"GB/s", gb(bytes) / ts.median}}},
          {"norm2 " + tag, {{"ms", tn.median * 1e3}, {"GB/s", gb(bytes) / tn.median}}}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit array-core benchmarks"};
  bench::CommonOptions opts;
  index_t n = 1000000000;
  std::vector<double> reduce_gb = {0.4, 0.8, 1, 4};  // 0.4 / 0.8: peers.py's 1e8-element arrays
  int repeat = 10;
  bool skip_reduce = false;
  opts.add_to(app);
  app.add_option("--n", n, "elements of the elementwise benchmark (default 1e9)");
  app.add_option("--reduce-gb", reduce_gb, "sizes of the reduction inputs in GB")->delimiter(',');
  app.add_flag("--no-reduce", skip_reduce, "skip the reductions");
  app.add_option("--repeat", repeat, "timed repeats (the median is reported)");
  CLI11_PARSE(app, argc, argv);
  try {
    auto ctx = Context::create(opts.backend, ContextOptions{0, 42, 0, 0, true});
    std::vector<bench::Row> rows;
    rows.push_back(copy_bandwidth(ctx, n, repeat));
    for (auto& r : elementwise(ctx, n, repeat)) rows.push_back(r);
    if (!skip_reduce)
      for (double g : reduce_gb) {
        for (auto& r : reductions<float>(ctx, g, repeat)) rows.push_back(r);
        for (auto& r : reductions<double>(ctx, g, repeat)) rows.push_back(r);
      }
    bench::report("bench_core", ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_core: %s\n", e.what());
    return 1;
  }
}
