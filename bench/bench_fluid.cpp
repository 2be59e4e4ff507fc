// The fluid model: time per step (pressure solve included) and cell-updates/s for each
// pressure solver, float32 and float64, with the solver's iterations per step; and the
// pressure solve alone (iterations to the tolerance, Jacobi capped) on a developed cavity flow.
//   bench_fluid [--backend B] [--sizes 128,256,1024,4096] [--solvers auto,mg_cg] [--json FILE]
// Each timed sample runs --batch steps back to back (the host queues them without waiting,
// as simulate does with a fixed dt) and reports the median per step; diagnostics are read
// after timing. Steps the model records as CUDA graphs (the transform solver) replay so.
// The flow is the lid-driven cavity at Re 1000 with explicit Euler (one projection per step,
// the scheme of the CuPy peer script fluid.py), started from a state developed by --spinup steps.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"

using namespace sim;

namespace {

struct Setup {
  std::unique_ptr<io::Config> config;
  std::unique_ptr<Model> model;
};

std::string real_text(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

Setup make(const Context& ctx, int n, const std::string& solver, bool f64, double tol, int max_it) {
  static const ModelRegistry registry = builtin_models();
  const std::string text = "[run]\nmodel = \"fluid\"\nsteps = 1\nprecision = \"" + std::string(f64 ? "float64" : "float32") +
                           "\"\n[grid]\ncells = [" + std::to_string(n) + ", " + std::to_string(n) +
                           "]\nlength = [1.0, 1.0]\n[model]\nviscosity = 0.001\ntime_scheme = \"euler\"\n"
                           "pressure_solver = \"" + solver + "\"\npressure_tol = " + real_text(tol) +
                           "\npressure_max_iterations = " + std::to_string(max_it) + "\n[boundary]\ny_hi_value = 1.0\n";
  Setup s{std::make_unique<io::Config>(io::Config::parse(text, "bench_fluid.toml")), nullptr};
  s.model = build_model(registry, ctx, *s.config);
  s.model->initialize();
  return s;
}

double diagnostic(Model& m, const std::string& name) {
  for (const Diagnostic& d : m.diagnostics())
    if (d.name == name) return d.value;
  return 0;
}

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit fluid benchmark"};
  bench::CommonOptions opts;
  std::string sizes = "128,256,1024,4096", solvers = "auto,mg_cg";
  int steps = 5, spinup = 20, jacobi_cap = 20000, batch = 20;
  bool solve_alone = true;
  opts.add_to(app);
  app.add_option("--sizes", sizes, "grid sizes n (n x n cells), comma separated");
  app.add_option("--solvers", solvers, "pressure solvers for the per-step table");
  app.add_option("--steps", steps, "timed steps per row (median reported)");
  app.add_option("--spinup", spinup, "untimed steps before timing (a developed flow, not a fluid at rest)");
  app.add_option("--jacobi-cap", jacobi_cap, "Jacobi sweeps in the solve-alone table");
  app.add_option("--batch", batch, "steps per timed sample (cg and jacobi at n > 2048: 1)");
  app.add_flag("!--no-solve-alone", solve_alone, "skip the table of each solver alone");
  CLI11_PARSE(app, argc, argv);
  try {
    auto ctx = Context::create(opts.backend, ContextOptions{0, 1, 0, 0, true});
    std::vector<bench::Row> rows;
    for (const std::string& ns : split(sizes)) {
      const int n = std::stoi(ns);
      for (bool f64 : {false, true}) {
        const double tol = f64 ? 1e-8 : 1e-4;
        const char* prec = f64 ? "float64" : "float32";
        for (const std::string& solver : split(solvers)) try {
          const bool slow = solver == "cg" || solver == "jacobi";
          Setup s = make(ctx, n, solver, f64, tol, 50000);
          const double dt = s.model->next_dt(0.5);  // Courant 0.5 with the viscous limit, fixed for timing
          for (int k = 0; k < (slow && n > 2048 ? 2 : spinup); ++k) s.model->step(dt);
          const int timed = slow && n > 2048 ? 1 : steps, per_sample = slow ? 1 : std::max(1, batch);
          bench::Timing t = bench::time_it(ctx, timed, [&] {
            for (int k = 0; k < per_sample; ++k) s.model->step(dt);
          }, [] {}, 1);
          t.median /= per_sample, t.min /= per_sample, t.max /= per_sample;
          const double iterations = diagnostic(*s.model, "pressure_iterations");
          std::printf("  %d^2 %s %s: %.4f ms/step, %g iterations\n", n, prec, solver.c_str(), t.median * 1e3, iterations);
          std::fflush(stdout);
          rows.push_back({"step " + std::to_string(n) + "^2 " + prec + " " + solver + " tol " + (f64 ? "1e-8" : "1e-4"),
                          {{"ms/step", t.median * 1e3},
                           {"Mcell/s", double(n) * n / t.median / 1e6},
                           {"pressure_iterations", iterations},
                           {"max_divergence", diagnostic(*s.model, "max_divergence")}}});
        } catch (const Error& e) {  // a solver that fails here is reported, and the table goes on
          std::printf("  %d^2 %s %s: FAILED: %s\n", n, prec, solver.c_str(), e.what());
          rows.push_back({"step " + std::to_string(n) + "^2 " + prec + " " + solver + " FAILED", {{"failed", 1}}});
        }
        // The pressure solve alone, same developed state, each method from a zero guess.
        if (solve_alone) try {
        Setup s = make(ctx, n, "mg_cg", f64, tol, 50000);
        const double dt = s.model->next_dt(0.5);
        for (int k = 0; k < spinup; ++k) s.model->step(dt);
        for (const char* solver : {"jacobi", "cg", "multigrid", "mg_cg", "transform"}) {
          Setup a = make(ctx, n, solver, f64, tol, std::string(solver) == "jacobi" ? jacobi_cap : 50000);
          // the developed state, field by field by name (solvers checkpoint different fields:
          // mg_cg's pressure history for its first guess has no counterpart in the others)
          std::vector<FieldRef> from = s.model->fields(), to = a.model->fields();
          for (FieldRef& f : from) {
            if (!f.checkpointed || f.name == "p") continue;  // p = 0: a cold start
            for (FieldRef& g : to)
              if (g.name == f.name && g.checkpointed && g.size() == f.size()) {
                std::vector<unsigned char> buf(std::size_t(f.size()) * (f64 ? 8 : 4));
                f.to_host(buf.data());
                g.from_host(buf.data());
              }
          }
          double iterations = 0, residual = 0;
          auto t = bench::time_it(ctx, 1, [&] {
            try {
              a.model->step(dt);
            } catch (const Error&) {  // a solver stopped at its cap (Jacobi): report where it got to
            }
            iterations = diagnostic(*a.model, "pressure_iterations");
            residual = diagnostic(*a.model, "pressure_residual");
          }, [] {}, 0);
          std::printf("  solve alone %d^2 %s %s: %g iterations, residual %.3g, %.3f ms\n", n, prec, solver, iterations,
                      residual, t.median * 1e3);
          std::fflush(stdout);
          rows.push_back({std::string("cold solve ") + std::to_string(n) + "^2 " + prec + " " + solver,
                          {{"iterations", iterations}, {"relative_residual", residual}, {"ms", t.median * 1e3}}});
        }
        } catch (const Error& e) {
          std::printf("  solve alone %d^2 %s: FAILED: %s\n", n, prec, e.what());
        }
      }
    }
    bench::report("bench_fluid", ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_fluid: %s\n", e.what());
    return 1;
  }
}
