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

#include "bench/bench_model.hpp"
#include "models/plugin.hpp"

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

/// The Gray-Scott model's step through the registry, as simulate runs it (spots and noise:
/// non-zero fields); 4 fields of T a cell.
bench::Row model_case(const Context& ctx, const ModelRegistry& reg, int dim, long n, int steps,
                      const std::string& precision, int repeat, double copy_gbs) {
  const double esize = precision == "float32" ? 4 : 8;
  return bench::model_steps(ctx, reg, gray_scott_config(dim, n, precision),
                            "gray_scott" + std::to_string(dim) + "d step " + precision + " n=" + std::to_string(n) +
                                " steps=" + std::to_string(steps),
                            steps, repeat, 4 * esize, copy_gbs);
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
    const double copy_gbs = bench::copy_ceiling(ctx, rows);
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
