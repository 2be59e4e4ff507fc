// Monte Carlo pi: the fused path (Philox draw + exact test + count in one kernel) and the
// array path (fill two arrays, one expression, one count), in Gsamples/s.
//   bench_mcpi [--backend B] [--samples N] [--batch M] [--json FILE] [--commit SHA]
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>

#include "bench/bench_util.hpp"
#include "core/array/expr.hpp"
#include "models/mcpi/mc_count.hpp"
#include "core/numerics/random.hpp"

using namespace sim;

namespace {

template <class T>
bench::Row array_path(const Context& ctx, std::uint64_t samples, std::uint64_t batch, int repeat) {
  Array<T, 1> x(ctx, extents(index_t(batch))), y(ctx, extents(index_t(batch)));
  std::uint64_t hits = 0;
  auto t = bench::time_it(ctx, repeat, [&] {
    hits = 0;
    for (std::uint64_t done = 0; done < samples; done += batch) {
      fill_uniform(x), fill_uniform(y);
      hits += std::uint64_t(count(x * x + y * y <= T(1)));
    }
  }, [] {}, 1);
  const double pi = 4.0 * double(hits) / double(samples);
  return {std::string("array path ") + (sizeof(T) == 4 ? "float32" : "float64") + " batch " + std::to_string(batch),
          {{"ms", t.median * 1e3}, {"Gsamples/s", double(samples) / t.median / 1e9}, {"pi", pi}}};
}

// The array path's two halves on one batch, as rates: the fills write 2 arrays, the count
// reads them (GB/s, to set beside the device copy rate of bench_core / bench_arrays).
template <class T>
std::vector<bench::Row> array_path_parts(const Context& ctx, std::uint64_t batch, int repeat) {
  Array<T, 1> x(ctx, extents(index_t(batch))), y(ctx, extents(index_t(batch)));
  const double bytes = 2.0 * double(x.bytes());
  const std::string type = sizeof(T) == 4 ? "float32" : "float64";
  auto tf = bench::time_it(ctx, repeat, [&] { fill_uniform(x), fill_uniform(y); });
  std::uint64_t hits = 0;
  auto tc = bench::time_it(ctx, repeat, [&] { hits = std::uint64_t(count(x * x + y * y <= T(1))); });
  return {{"array path fills " + type + " (two fill_uniform, write)", {{"ms", tf.median * 1e3}, {"GB/s", bytes / tf.median / 1e9}}},
          {"array path count " + type + " (count(x*x + y*y <= 1), read)",
           {{"ms", tc.median * 1e3}, {"GB/s", bytes / tc.median / 1e9}, {"pi", 4.0 * double(hits) / double(batch)}}}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit Monte Carlo pi benchmark"};
  bench::CommonOptions opts;
  std::uint64_t samples = 1000000000, batch = 100000000, big = 0;
  int repeat = 5;
  opts.add_to(app);
  app.add_option("--samples", samples, "samples per timed run (default 1e9)");
  app.add_option("--batch", batch, "array-path batch (default 1e8)");
  app.add_option("--big", big, "also time one fused run of this many samples (e.g. 1e12)");
  app.add_option("--repeat", repeat, "timed repeats (median reported)");
  CLI11_PARSE(app, argc, argv);
  try {
    auto ctx = Context::create(opts.backend, ContextOptions{0, 1, 0, 0, true});
    std::vector<bench::Row> rows;
    std::uint64_t hits = 0;
    for (int threads : {128, 256, 512}) {
      auto t = bench::time_it(ctx, repeat, [&] { hits = mc_count_in_ball(ctx, McQuery{1, 0, 0, samples, 2}, threads); });
      rows.push_back({"fused pi (exact integer test) " + std::to_string(threads) + " threads/block",
                      {{"ms", t.median * 1e3}, {"Gsamples/s", double(samples) / t.median / 1e9},
                       {"pi", 4.0 * double(hits) / double(samples)}}});
    }
    if (big > 0) {
      auto t = bench::time_it(ctx, 1, [&] { hits = mc_count_in_ball(ctx, McQuery{3, 0, 0, big, 2}); }, [] {}, 0);
      const double p = double(hits) / double(big);
      rows.push_back({"fused pi, one run of " + std::to_string(big) + " samples",
                      {{"s", t.median}, {"Gsamples/s", double(big) / t.median / 1e9}, {"pi", 4 * p},
                       {"std_error", 4 * std::sqrt(p * (1 - p) / double(big))}, {"error", 4 * p - M_PI}}});
    }
    rows.push_back(array_path<float>(ctx, samples, std::min(batch, samples), repeat));
    rows.push_back(array_path<double>(ctx, samples, std::min(batch, samples), repeat));
    for (auto& r : array_path_parts<float>(ctx, std::min(batch, samples), repeat)) rows.push_back(r);
    for (auto& r : array_path_parts<double>(ctx, std::min(batch, samples), repeat)) rows.push_back(r);
    bench::report("bench_mcpi", ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_mcpi: %s\n", e.what());
    return 1;
  }
}
