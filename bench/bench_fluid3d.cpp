// The 3D fluid model: time per step of the Taylor-Green vortex in the periodic box [0, 2 pi]^3
// (Re 1600, the transform solver), for euler and rk2 in float32 and float64, with the bytes a
// step moves (the model's declared passes) against the device copy rate measured in the same
// run. The scheme and the fixed dt (0.3 h) are those of the peer script fluid3d_fast.py:
//   bench_fluid3d [--backend B] [--sizes 128,256,512] [--schemes euler,rk2] [--json FILE]
// Each timed sample runs --batch steps back to back (recorded steps replay as CUDA graphs, no
// host wait between steps) and reports the median per step.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_model.hpp"
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

Setup make(const Context& ctx, int n, const std::string& scheme, bool f64) {
  static const ModelRegistry registry = builtin_models();
  const std::string len = "6.283185307179586";
  const std::string text = "[run]\nmodel = \"fluid\"\nsteps = 1\nprecision = \"" + std::string(f64 ? "float64" : "float32") +
                           "\"\n[grid]\ncells = [" + std::to_string(n) + ", " + std::to_string(n) + ", " + std::to_string(n) +
                           "]\nlength = [" + len + ", " + len + ", " + len + "]\n[model]\nviscosity = 0.000625\n" +
                           "init = \"taylor_green\"\ntime_scheme = \"" + scheme + "\"\n[boundary]\ndefault = \"periodic\"\n";
  Setup s{std::make_unique<io::Config>(io::Config::parse(text, "bench_fluid3d.toml")), nullptr};
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
  CLI::App app{"simkit 3D fluid benchmark"};
  bench::CommonOptions opts;
  std::string sizes = "128,256,512", schemes = "euler,rk2", precisions = "float32,float64";
  int samples = 5, batch = 20;
  opts.add_to(app);
  app.add_option("--sizes", sizes, "grid sizes n (n^3 cells), comma separated");
  app.add_option("--schemes", schemes, "time schemes (euler, rk2)");
  app.add_option("--precisions", precisions, "float32, float64");
  app.add_option("--samples", samples, "timed samples per row (median reported)");
  app.add_option("--batch", batch, "steps per timed sample");
  CLI11_PARSE(app, argc, argv);
  try {
    auto ctx = Context::create(opts.backend, ContextOptions{0, 1, 0, 0, true});
    std::vector<bench::Row> rows;
    const double copy_gbs = bench::copy_ceiling(ctx, rows);
    for (const std::string& ns : split(sizes)) {
      const int n = std::stoi(ns);
      for (const std::string& prec : split(precisions))
        for (const std::string& scheme : split(schemes)) {
          const bool f64 = prec == "float64";
          const std::string name = "step " + std::to_string(n) + "^3 " + prec + " " + scheme;
          try {
            Setup s = make(ctx, n, scheme, f64);
            if (scheme == split(schemes).front())  // how the pressure is solved (the fused transform's multiplication among it)
              for (const std::string& note : s.model->plan_notes()) std::printf("  %s %s: %s\n", ns.c_str(), prec.c_str(), note.c_str());
            const double dt = 0.3 * 2 * M_PI / n;  // the peer's dt: 0.3 h
            for (int k = 0; k < 3; ++k) s.model->step(dt);  // records the step (both buffer parities)
            bench::Timing t = bench::time_it(ctx, samples, [&] {
              for (int k = 0; k < batch; ++k) s.model->step(dt);
            }, [] {}, 1);
            const double steps = double(batch);
            bench::Row row = bench::rate_row(name, t.median, batch, s.model->cell_updates_per_step() * steps,
                                             s.model->bytes_per_step() * steps, copy_gbs);
            row.figures.push_back({"max_divergence", diagnostic(*s.model, "max_divergence")});
            std::printf("  %s: %.4f ms/step\n", name.c_str(), t.median / batch * 1e3);
            std::fflush(stdout);
            rows.push_back(row);
          } catch (const Error& e) {  // (out of memory at 512^3 float64 on a small card): reported, the table goes on
            std::printf("  %s: FAILED: %s\n", name.c_str(), e.what());
            rows.push_back({name + " FAILED", {{"failed", 1}}});
          }
        }
    }
    bench::report("bench_fluid3d", ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_fluid3d: %s\n", e.what());
    return 1;
  }
}
