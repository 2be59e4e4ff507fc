// Heat-model step rate: the explicit step (ghost fill + one fused stencil pass) timed with
// CUDA events over many steps, against the device copy bandwidth measured in the same run.
// Roofline for one explicit step: one read and one write of the field per cell.
//   bench_heat [--backend B] [--json FILE] [--commit SHA] [--case dim:n:steps ...]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/expr.hpp"
#include "core/random.hpp"
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
  io::Config cfg = io::Config::parse(heat_config(dim, n, precision, scheme), "bench_heat.toml");
  auto model = build_model(reg, ctx, cfg);
  model->initialize();
  const double dt = model->default_dt(0.9);
  auto t = bench::time_it(ctx, repeat, [&] {
    for (int s = 0; s < steps; ++s) model->step(dt);
  }, [] {}, 1);
  const double cells = model->cell_updates_per_step() * steps;
  const double esize = precision == "float32" ? 4 : 8;
  const double gbs = 2 * esize * cells / t.median / 1e9;
  std::string name = "heat" + std::to_string(dim) + "d " + scheme + " " + precision + " n=" + std::to_string(n) +
                     " steps=" + std::to_string(steps);
  return {name, {{"ms_per_step", t.median / steps * 1e3}, {"Gcell/s", cells / t.median / 1e9}, {"GB/s", gbs},
                 {"fraction_of_copy", gbs / copy_gbs}}};
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
  const LastDimFaces<T> faces{face_rule<T>(bc, g, Rank - 1, 0), face_rule<T>(bc, g, Rank - 1, 1), n};
  auto t = bench::time_it(ctx, repeat, [&] {
    for (int s = 0; s < steps; ++s)
      heat::explicit_stage<T, Rank>(ctx, g, g.interior(), s % 2 ? b.view() : a.view(), s % 2 ? a.view() : b.view(),
                                    a.view(), a.view(), false, T(1), T(1e-9), T(0), faces);
  }, [] {}, 1);
  const double cells = double(g.size()) * steps, gbs = 2 * sizeof(T) * cells / t.median / 1e9;
  return {"stage kernel only " + std::to_string(Rank) + "d " + (sizeof(T) == 4 ? "float32" : "float64") +
              " n=" + std::to_string(n),
          {{"ms_per_step", t.median / steps * 1e3}, {"Gcell/s", cells / t.median / 1e9}, {"GB/s", gbs},
           {"fraction_of_copy", gbs / copy_gbs}}};
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
    // the ceiling, measured now: a device copy of 4 GB (2 GB read + 2 GB written)
    const index_t copy_n = ctx.is_cuda() ? index_t(1) << 28 : index_t(1) << 25;
    Array<double, 1> a(ctx, extents(copy_n)), b(ctx, extents(copy_n));
    fill_uniform(a);
    auto tc = bench::time_it(ctx, 10, [&] { b.copy_from(a); });
    const double copy_gbs = 2.0 * double(a.bytes()) / tc.median / 1e9;
    rows.push_back({"copy float64 n=" + std::to_string(copy_n), {{"ms", tc.median * 1e3}, {"GB/s", copy_gbs}}});
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
