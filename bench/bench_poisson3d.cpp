// The 3D pressure solvers on one device: time per solve of A p = b on an n^3 box of the unit
// cube, the exact transform solve against mg_cg (CG preconditioned by one V-cycle, from a zero
// guess, to --tol64 / --tol32), with mg_cg's iterations and one V-cycle's time, for periodic
// sides, walls (Neumann) and a mixed box (Dirichlet, periodic, Neumann):
//   bench_poisson3d [--backend B] [--sizes 64,128] [--precisions float32,float64] [--json FILE]
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "solvers/multigrid3.hpp"
#include "solvers/transform_poisson.hpp"

using namespace sim;
using namespace sim::solvers;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (a <= s.size()) {
    std::size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

/// The n^3 unit box with the named sides: "periodic", "walls" (Neumann) or "mixed" (x Dirichlet,
/// y periodic, z Neumann).
PoissonBox3 make_box(index_t n, const std::string& sides) {
  PoissonBox3 b;
  for (int d = 0; d < 3; ++d) {
    b.n[d] = n, b.inv_h2[d] = double(n) * double(n);
    PressureSide s = sides == "periodic" ? PressureSide::periodic : PressureSide::neumann;
    if (sides == "mixed") s = d == 0 ? PressureSide::dirichlet : d == 1 ? PressureSide::periodic : PressureSide::neumann;
    b.sides[2 * d] = b.sides[2 * d + 1] = s;
  }
  return b;
}

template <class T>
void run(const Context& ctx, index_t n, const std::string& sides, double tol, int samples, std::vector<bench::Row>& rows) {
  const PoissonBox3 box = make_box(n, sides);
  const double len[3] = {1, 1, 1};
  const Grid<3> grid = Grid<3>::uniform(Extents<3>{{n, n, n}}, len, 1);
  Field<T, 3> b(ctx, grid), x(ctx, grid);
  std::vector<T> host(std::size_t(n * n * n));
  double mean = 0;
  for (std::size_t q = 0; q < host.size(); ++q) host[q] = T(std::sin(0.37 * double(q)) + 0.1 * double(q % 7)), mean += double(host[q]);
  if (box.singular())
    for (T& v : host) v -= T(mean / double(host.size()));
  b.copy_from_host(host);
  const std::string prec = sizeof(T) == 8 ? "float64" : "float32";
  const std::string what = std::to_string(n) + "^3 " + sides + " " + prec;

  TransformPoisson3<T> transform(ctx, box);
  const bench::Timing tt = bench::time_it(ctx, samples, [&] { transform.solve(b, x); });

  PoissonMgCg3<T> mg_cg(ctx, poisson3_grid<T>(box));
  SolveStats st;
  const bench::Timing tm = bench::time_it(ctx, samples, [&] { st = mg_cg.solve(b, x, tol, 200); }, [&] { x.fill(T(0)); });
  Multigrid3<T>& mg = mg_cg.multigrid();
  const bench::Timing tv = bench::time_it(ctx, samples, [&] { mg.precondition(b.view(), x.view()); });

  std::printf("  %s: transform %.3f ms, mg_cg %.3f ms (%d iterations to %.1e, residual %.2e), V-cycle %.3f ms\n", what.c_str(),
              tt.median * 1e3, tm.median * 1e3, st.iterations, tol, st.residual, tv.median * 1e3);
  std::fflush(stdout);
  rows.push_back({"transform " + what, {{"ms", tt.median * 1e3}}});
  rows.push_back({"mg_cg " + what, {{"ms", tm.median * 1e3}, {"iterations", double(st.iterations)}, {"residual", st.residual}}});
  rows.push_back({"vcycle " + what, {{"ms", tv.median * 1e3}, {"levels", double(mg.levels())}}});
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit 3D pressure solver benchmark"};
  bench::CommonOptions opts;
  std::string sizes = "64", precisions = "float32,float64", sides = "periodic,walls,mixed";
  int samples = 5;
  double tol64 = 1e-8, tol32 = 1e-5;
  opts.add_to(app);
  app.add_option("--sizes", sizes, "box sizes n (n^3 cells), comma separated");
  app.add_option("--precisions", precisions, "float32, float64");
  app.add_option("--sides", sides, "periodic, walls, mixed");
  app.add_option("--samples", samples, "timed samples per row (median reported)");
  app.add_option("--tol64", tol64, "mg_cg's relative residual in float64");
  app.add_option("--tol32", tol32, "mg_cg's relative residual in float32");
  CLI11_PARSE(app, argc, argv);
  try {
    auto ctx = Context::create(opts.backend, ContextOptions{0, 1, 0, 0, true});
    std::vector<bench::Row> rows;
    for (const std::string& ns : split(sizes))
      for (const std::string& prec : split(precisions))
        for (const std::string& s : split(sides)) {
          if (prec == "float64") run<double>(ctx, std::stoi(ns), s, tol64, samples, rows);
          else run<float>(ctx, std::stoi(ns), s, tol32, samples, rows);
        }
    bench::report("bench_poisson3d", ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_poisson3d: %s\n", e.what());
    return 1;
  }
}
