// The core's stencil pass serving a plugin model: the Gray-Scott step (examples/gray_scott,
// linked in and registered through its own plugin entry point) timed with CUDA events over
// many steps, against the device copy rate measured in the same run. A step reads u and v
// and writes them once: 4 fields x cells x sizeof(T) bytes (ghost fill included in the time).
//   bench_stencil [--backend B] [--json FILE] [--commit SHA] [--case dim:n:steps ...]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/expr.hpp"
#include "core/random.hpp"
#include "io/config.hpp"
#include "models/plugin.hpp"
#include "models/runner.hpp"

// the plugin's registration entry point (examples/gray_scott/gray_scott.cpp, linked in)
extern "C" void simkit_plugin_register_models(sim::ModelRegistry& r);

using namespace sim;

namespace {

std::string gray_scott_config(int dim, long n, const std::string& precision) {
  std::ostringstream s;
  s << "[run]\nmodel = \"gray_scott\"\nprecision = \"" << precision << "\"\nsteps = 1\n\n[grid]\ncells = [";
  for (int d = 0; d < dim; ++d) s << (d ? ", " : "") << n;
  s << "]\nlength = [";
  for (int d = 0; d < dim; ++d) s << (d ? ", " : "") << 2.5;
  s << "]\n\n[model]\nseeds = 20\nseed_size = 0.2\nnoise = 0.01\n\n[boundary]\ndefault = \"periodic\"\n";
  return s.str();
}

bench::Row figures(const std::string& name, double seconds, double cells, double bytes, double copy_gbs) {
  const double gbs = bytes / seconds / 1e9;
  return {name, {{"ms_per_step", 0}, {"Gcell/s", cells / seconds / 1e9}, {"GB/s", gbs}, {"fraction_of_copy", gbs / copy_gbs}}};
}

/// The Gray-Scott model's step through the registry, as simulate runs it (spots and noise:
/// non-zero fields).
bench::Row model_case(const Context& ctx, const ModelRegistry& reg, int dim, long n, int steps,
                      const std::string& precision, int repeat, double copy_gbs) {
  io::Config cfg = io::Config::parse(gray_scott_config(dim, n, precision), "bench_stencil.toml");
  auto model = build_model(reg, ctx, cfg);
  model->initialize();
  const double dt = model->default_dt(0.9);
  auto t = bench::time_it(ctx, repeat, [&] {
    for (int s = 0; s < steps; ++s) model->step(dt);
  }, [] {}, 1);
  const double cells = model->cell_updates_per_step() * steps, bytes = model->bytes_per_step() * steps;
  bench::Row r = figures("gray_scott" + std::to_string(dim) + "d step " + precision + " n=" + std::to_string(n) +
                             " steps=" + std::to_string(steps),
                         t.median, cells, bytes, copy_gbs);
  r.figures[0].second = t.median / steps * 1e3;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit stencil-pass benchmark: the Gray-Scott plugin's step"};
  bench::CommonOptions opts;
  std::vector<std::string> cases = {"2:8192:100", "3:512:50"};
  std::vector<std::string> precisions = {"float32", "float64"};
  int repeat = 5;
  opts.add_to(app);
  app.add_option("--case", cases, "dim:n:steps (repeatable)");
  app.add_option("--precision", precisions, "float32 and/or float64");
  app.add_option("--repeat", repeat, "timed repeats (median reported)");
  CLI11_PARSE(app, argc, argv);
  try {
    auto ctx = Context::create(opts.backend, ContextOptions{0, 7, 0, 0, true});
    ModelRegistry reg = builtin_models();
    simkit_plugin_register_models(reg);
    std::vector<bench::Row> rows;
    // the ceiling, measured now: a device copy of 4 GB (2 GB read + 2 GB written)
    const index_t copy_n = ctx.is_cuda() ? index_t(1) << 28 : index_t(1) << 25;
    Array<double, 1> a(ctx, extents(copy_n)), b(ctx, extents(copy_n));
    fill_uniform(a);
    auto tc = bench::time_it(ctx, 10, [&] { b.copy_from(a); });
    const double copy_gbs = 2.0 * double(a.bytes()) / tc.median / 1e9;
    rows.push_back({"copy float64 n=" + std::to_string(copy_n), {{"ms", tc.median * 1e3}, {"GB/s", copy_gbs}}});
    for (const std::string& c : cases) {
      int dim = 0, steps = 0;
      long n = 0;
      if (std::sscanf(c.c_str(), "%d:%ld:%d", &dim, &n, &steps) != 3 || (dim != 2 && dim != 3))
        throw Error("bad --case '" + c + "' (dim:n:steps, dim 2 or 3)");
      for (const auto& p : precisions) rows.push_back(model_case(ctx, reg, dim, n, steps, p, repeat, copy_gbs));
    }
    bench::report("bench_stencil", ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_stencil: %s\n", e.what());
    return 1;
  }
}
