// The everyday array operations of a CuPy/NumPy user, in the rows of `peers.py arrays`:
// matmul n^2, solve (n/2)^2 with n/2 right-hand sides, matvec, sort / argsort (n^2/4
// elements), cumsum, argmax, sum over axis 0 / 1, transpose copy, row broadcast add, mean+std
// (n^2 elements), float32 and float64: the sizes `peers.py arrays` uses for each row (its
// solve, too, is an (n/2)^2 system with n/2 right-hand sides, reported there as n). Inputs
// are uniform random (never zeros) and larger than L2 at the default n; GPU times are CUDA
// events around the call, after a warm-up, the median of --repeat runs. The device copy rate
// is measured in the same run with the library's array copy (b.copy_from(a): cudaMemcpyAsync
// device to device on the GPU, as cudaMemcpy's rate), and each bandwidth-bound row reports
// its fraction of it.
//   bench_arrays [--backend auto|cuda|cpu] [--n 8192] [--repeat 5] [--dtype float32|float64|both]
//                [--ops matmul solve ...] [--json FILE] [--commit SHA]
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/array/expr.hpp"
#include "core/numerics/linalg.hpp"
#include "core/numerics/random.hpp"
#include "core/kernels/scan.hpp"
#include "core/kernels/sort.hpp"
#include "core/array/transpose.hpp"

using namespace sim;

namespace {

const std::vector<std::string> all_ops = {"matmul", "matvec", "solve", "sort", "argsort", "cumsum", "argmax",
                                          "sum_axis0", "sum_axis1", "transpose", "broadcast_add", "mean_std"};

struct Setup {
  index_t n;
  int repeat;
  double copy_gbs;  // device copy rate, GB/s (read + write)
};

bench::Row row(const std::string& op, const char* type, index_t n, const bench::Timing& t, const char* unit, double work,
               double copy_gbs = 0) {
  bench::Row r{op + " " + type + " n=" + std::to_string(n), {{"ms", t.median * 1e3}, {unit, work / t.median / 1e9}}};
  if (copy_gbs > 0) r.figures.push_back({"of_copy", work / t.median / 1e9 / copy_gbs});
  return r;
}

template <class T>
double copy_rate(const Context& ctx, index_t n, int repeat) {
  Array<T, 1> a(ctx, extents(n * n)), b(ctx, extents(n * n));
  fill_uniform(a);
  auto t = bench::time_it(ctx, repeat, [&] { b.copy_from(a); });
  return 2.0 * double(a.bytes()) / t.median / 1e9;
}

template <class T>
void run(const Context& ctx, const Setup& s, const std::vector<std::string>& ops, std::vector<bench::Row>& rows) {
  const char* type = sizeof(T) == 4 ? "float32" : "float64";
  const index_t n = s.n, esz = sizeof(T);
  const double copy = s.copy_gbs;
  auto want = [&](const char* op) {
    for (auto& o : ops)
      if (o == op) return true;
    return false;
  };
  auto report = [&](const bench::Row& r) {
    std::printf("  %-36s", r.name.c_str());
    for (auto& f : r.figures) std::printf("  %s=%.4g", f.first.c_str(), f.second);
    std::printf("\n");
    std::fflush(stdout);
    rows.push_back(r);
  };
  if (want("matmul")) {
    Array<T, 2> A(ctx, extents(n, n)), B(ctx, extents(n, n)), C(ctx, extents(n, n));
    fill_uniform(A), fill_uniform(B);
    auto t = bench::time_it(ctx, s.repeat, [&] { matmul<T>(ctx, A.view(), B.view(), C.view()); });
    report(row("matmul", type, n, t, "GFLOP/s", 2.0 * n * n * n));
  }
  if (want("solve")) {
    const index_t m = n / 2;
    Array<T, 2> A(ctx, extents(m, m)), B(ctx, extents(m, m));
    fill_uniform(A), fill_uniform(B);
    auto t = bench::time_it(ctx, s.repeat, [&] { auto X = solve(A, B); });
    report(row("solve", type, m, t, "GFLOP/s", 2.0 * m * m * m / 3 + 2.0 * m * m * m));
  }
  if (want("matvec")) {
    Array<T, 2> A(ctx, extents(n, n));
    Array<T, 1> x(ctx, extents(n)), y(ctx, extents(n));
    fill_uniform(A), fill_uniform(x);
    auto t = bench::time_it(ctx, s.repeat, [&] { matvec<T>(ctx, A.view(), x.view(), y.view()); });
    report(row("matvec", type, n, t, "GB/s", double(n * n * esz), copy));
  }
  if (want("sort") || want("argsort")) {
    const index_t k = n * n / 4;
    Array<T, 1> x(ctx, extents(k)), out(ctx, extents(k));
    Array<std::int64_t, 1> idx(ctx, extents(k));
    fill_uniform(x);
    if (want("sort")) report(row("sort", type, k, bench::time_it(ctx, s.repeat, [&] { sort<T>(ctx, x.view(), out.view()); }), "Gelem/s", double(k)));
    if (want("argsort"))
      report(row("argsort", type, k, bench::time_it(ctx, s.repeat, [&] { argsort<T>(ctx, x.view(), idx.view()); }), "Gelem/s", double(k)));
  }
  if (want("cumsum") || want("argmax") || want("mean_std")) {
    const index_t k = n * n;
    Array<T, 1> x(ctx, extents(k)), out(ctx, extents(k));
    fill_uniform(x);
    if (want("cumsum")) report(row("cumsum", type, k, bench::time_it(ctx, s.repeat, [&] { cumsum<T>(ctx, x.view(), out.view()); }), "Gelem/s", double(k)));
    std::int64_t am = 0;
    if (want("argmax")) report(row("argmax", type, k, bench::time_it(ctx, s.repeat, [&] { am = argmax(x); }), "Gelem/s", double(k)));
    double mu = 0, sd = 0;
    if (want("mean_std")) {
      auto t = bench::time_it(ctx, s.repeat, [&] { std::tie(mu, sd) = mean_std(x); });
      report(row("mean_std", type, k, t, "Gelem/s", double(k)));
      std::printf("    (mean %.6f, std %.6f: uniform numbers give 0.5 and 0.288675)\n", mu, sd);
    }
  }
  if (want("sum_axis0") || want("sum_axis1") || want("transpose") || want("broadcast_add")) {
    Array<T, 2> A(ctx, extents(n, n)), out(ctx, extents(n, n));
    Array<T, 1> r(ctx, extents(n));
    fill_uniform(A), fill_uniform(r);
    const double bytes = double(n * n * esz);
    if (want("sum_axis0")) report(row("sum_axis0", type, n, bench::time_it(ctx, s.repeat, [&] { auto c = sum(A, 0); }), "GB/s", bytes, copy));
    if (want("sum_axis1")) report(row("sum_axis1", type, n, bench::time_it(ctx, s.repeat, [&] { auto c = sum(A, 1); }), "GB/s", bytes, copy));
    if (want("transpose"))
      report(row("transpose", type, n, bench::time_it(ctx, s.repeat, [&] { transpose<T>(ctx, A.view(), out.view()); }), "GB/s", 2 * bytes, copy));
    if (want("broadcast_add")) report(row("broadcast_add", type, n, bench::time_it(ctx, s.repeat, [&] { out = A + r; }), "GB/s", 2 * bytes, copy));
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit bench_arrays: matmul, solve, sorts, scans, axis reductions, transpose, broadcast"};
  bench::CommonOptions common;
  common.add_to(app);
  index_t n = 0;
  int repeat = 5;
  std::string dtype = "both";
  std::vector<std::string> ops = all_ops;
  app.add_option("--n", n, "matrix side (default 8192 on cuda, 2048 on cpu); 1-D ops use n^2 elements");
  app.add_option("--repeat", repeat, "timed runs per row (after 2 warm-ups)");
  app.add_option("--dtype", dtype, "float32, float64 or both")->check(CLI::IsMember({"float32", "float64", "both"}));
  app.add_option("--ops", ops, "which operations")->check(CLI::IsMember(all_ops));
  CLI11_PARSE(app, argc, argv);
  auto ctx = Context::create(common.backend);
  if (n <= 0) n = ctx.is_cuda() ? 8192 : 2048;
  std::printf("bench_arrays on %s, n = %lld\n", ctx.device_name().c_str(), (long long)n);
  std::vector<bench::Row> rows;
  if (dtype != "float64") {
    const double c = copy_rate<float>(ctx, n, repeat);
    rows.push_back({"device copy float32 n=" + std::to_string(n * n), {{"GB/s", c}}});
    std::printf("  device copy float32: %.1f GB/s (read + write)\n", c);
    run<float>(ctx, Setup{n, repeat, c}, ops, rows);
  }
  if (dtype != "float32") {
    const double c = copy_rate<double>(ctx, n, repeat);
    rows.push_back({"device copy float64 n=" + std::to_string(n * n), {{"GB/s", c}}});
    std::printf("  device copy float64: %.1f GB/s (read + write)\n", c);
    run<double>(ctx, Setup{n, repeat, c}, ops, rows);
  }
  bench::report("bench_arrays", ctx, common.commit, rows, common.json);
  return 0;
}
