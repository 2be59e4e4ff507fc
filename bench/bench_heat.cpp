// Heat-model step rate: the explicit step (ghost fill + one fused stencil pass) timed with
// CUDA events over many steps, against the device copy bandwidth measured in the same run.
// Roofline for one explicit step: one read and one write of the field per cell.
//   bench_heat [--backend B] [--json FILE] [--commit SHA] [--case dim:n:steps ...]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_model.hpp"
#include "core/array/expr.hpp"
#include "core/numerics/random.hpp"
#include "io/config.hpp"
#include "models/heat/heat_stage.hpp"
#include "models/runner.hpp"

using namespace sim;

namespace {

std::string heat_config(int dim, long n, const std::string& precision, const std::string& scheme) {
  std::ostringstream s;
  s << "[run]\nmodel = \"heat\"\nprecision = \"" << precision << "\"\nsteps = 1\n\n[grid]\ncells = [";
  for (int d = 0; d < dim; ++d) s << (d ? ", " : "") << n;
  s << "]\n\n[model]\nscheme = \"" << scheme << "\"\ninit = \"gaussian\"\nwidth = 0.1\n\n[boundary]\ndefault = \"dirichlet\"\n";
  return s.str();
}

bench::Row heat_case(const Context& ctx, const ModelRegistry& reg, int dim, long n, int steps, const std::string& precision,
                     const std::string& scheme, int repeat, double copy_gbs) {
  const double esize = precision == "float32" ? 4 : 8;
  return bench::model_steps(ctx, reg, heat_config(dim, n, precision, scheme),
                            "heat" + std::to_string(dim) + "d " + scheme + " " + precision + " n=" + std::to_string(n) +
                                " steps=" + std::to_string(steps),
                            steps, repeat, 2 * esize, copy_gbs);
}

/// The stage kernel alone (no ghost fill), to tell the two costs of a step apart; the last
/// dimension's Dirichlet faces ruled in the pass, as the heat model runs it.
template <class T, int Rank>
bench::Row stage_only(const Context& ctx, long n, int steps, int repeat, double copy_gbs) {
  double len[Rank];
  Extents<Rank> e;
  for (int d = 0; d < Rank; ++d) len[d] = 1.0, e.n[d] = n;
  const Grid<Rank> g = Grid<Rank>::uniform(e, len);
  Field<T, Rank> a(ctx, g), b(ctx, g);
  fill_uniform(a.storage());
  fill_uniform(b.storage());
  const Boundary<Rank> bc = Boundary<Rank>::all({BcKind::dirichlet, 0.0});
  const LastDimFaces<T> faces = last_dim_faces<T>(bc, g);
  auto t = bench::time_it(ctx, repeat, [&] {
    for (int s = 0; s < steps; ++s)
      heat::explicit_stage<T, Rank>(ctx, g, g.interior(), s % 2 ? b.view() : a.view(), s % 2 ? a.view() : b.view(),
                                    a.view(), a.view(), false, T(1), T(1e-9), T(0), faces);
  }, [] {}, 1);
  const double cells = double(g.size()) * steps;
  return bench::rate_row("stage kernel only " + std::to_string(Rank) + "d " + (sizeof(T) == 4 ? "float32" : "float64") +
                             " n=" + std::to_string(n),
                         t.median, steps, cells, 2 * sizeof(T) * cells, copy_gbs);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit heat-model benchmark"};
  bench::CommonOptions opts;
  std::vector<std::string> cases = {"2:16384:50", "2:8192:100", "3:512:50"};
  std::vector<std::string> precisions = {"float32", "float64"};
  std::vector<std::string> schemes = {"euler"};
  int repeat = 5;
  opts.add_to(app);
  app.add_option("--case", cases, "dim:n:steps (repeatable)");
  app.add_option("--precision", precisions, "float32 and/or float64");
  app.add_option("--scheme", schemes, "euler, rk2, crank_nicolson, backward_euler");
  app.add_option("--repeat", repeat, "timed repeats (median reported)");
  CLI11_PARSE(app, argc, argv);
  try {
    auto ctx = Context::create(opts.backend, ContextOptions{0, 7, 0, 0, true});
    const ModelRegistry reg = builtin_models();
    std::vector<bench::Row> rows;
    const double copy_gbs = bench::copy_ceiling(ctx, rows);
    if (ctx.is_cuda()) {
      rows.push_back(stage_only<float, 3>(ctx, 512, 50, repeat, copy_gbs));
      rows.push_back(stage_only<double, 3>(ctx, 512, 50, repeat, copy_gbs));
      rows.push_back(stage_only<float, 2>(ctx, 16384, 50, repeat, copy_gbs));
      rows.push_back(stage_only<double, 2>(ctx, 16384, 50, repeat, copy_gbs));
    }
    for (const std::string& c : cases) {
      int dim = 0, steps = 0;
      long n = 0;
      if (std::sscanf(c.c_str(), "%d:%ld:%d", &dim, &n, &steps) != 3) throw Error("bad --case '" + c + "' (dim:n:steps)");
      for (const auto& p : precisions)
        for (const auto& s : schemes) rows.push_back(heat_case(ctx, reg, dim, n, steps, p, s, repeat, copy_gbs));
    }
    bench::report("bench_heat", ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_heat: %s\n", e.what());
    return 1;
  }
}
