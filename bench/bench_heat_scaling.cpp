// Weak scaling of the explicit heat step over ranks (run under mpirun, one GPU per rank, or
// alone): the same cells per rank on one rank (rank 0 alone, in the same run) and on all.
//   bench_heat_scaling [--backend B] [--cells2 8192,16384] [--cells3 512] [--samples 15] [--batch 20] [--json FILE]
// Each sample times --batch steps (ghost fills, halo exchanges and the update, as simulate
// steps them); a sample's time is the slowest rank's. Rows give the median, the fastest and
// the slowest sample per step, and the weak-scaling efficiency t1 / tN of the medians: a
// short run's average hides whether a slow figure is the steady rate or a one-off stall.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/distributed/comm.hpp"
#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"

using namespace sim;

namespace {

/// The heat config: explicit, Dirichlet sides, a Gaussian start, cells as given.
std::string heat_text(const std::vector<index_t>& cells, bool f64) {
  std::string list;
  for (index_t c : cells) list += (list.empty() ? "" : ", ") + std::to_string(c);
  return std::string("[run]\nmodel = \"heat\"\nprecision = \"") + (f64 ? "float64" : "float32") +
         "\"\nsteps = 1\n\n[grid]\ncells = [" + list +
         "]\n\n[model]\ninit = \"gaussian\"\nwidth = 0.1\n\n[boundary]\ndefault = \"dirichlet\"\n";
}

/// Per-step seconds of the samples (each the slowest rank's), sorted.
std::vector<double> step_samples(const Comm& comm, const Context& ctx, const std::vector<index_t>& cells, bool f64,
                                 int samples, int batch) {
  static const ModelRegistry registry = builtin_models();
  io::Config config = io::Config::parse(heat_text(cells, f64), "bench_heat_scaling.toml");
  std::unique_ptr<Model> model = build_model(registry, ctx, config, comm);
  model->initialize();
  const double dt = comm.min(model->default_dt(0.9));
  std::vector<double> t;
  for (int s = -2; s < samples; ++s) {  // two warm-up samples
    comm.barrier();
    const bench::Timing one = bench::time_it(ctx, 1, [&] {
      for (int k = 0; k < batch; ++k) model->step(dt);
    }, [] {}, 0);
    if (s >= 0) t.push_back(comm.max(one.median) / batch);
  }
  std::sort(t.begin(), t.end());
  return t;
}

/// One case (per-rank cells, precision): rank 0 alone, then every rank, as a row.
void weak_case(const Comm& comm, const Context& ctx, const std::vector<index_t>& per_rank, bool f64, int samples,
               int batch, std::vector<bench::Row>& rows) {
  double one_median = 0;
  if (comm.rank() == 0) one_median = step_samples(Comm(), ctx, per_rank, f64, samples, batch)[std::size_t(samples) / 2];
  one_median = comm.max(one_median);
  std::vector<index_t> all = per_rank;
  all[0] *= comm.size();
  const std::vector<double> t = step_samples(comm, ctx, all, f64, samples, batch);
  const double median = t[t.size() / 2];
  std::string name = "heat " + std::to_string(per_rank.size()) + "D " + std::to_string(per_rank[0]) + "^" +
                     std::to_string(per_rank.size()) + " per rank " + (f64 ? "float64" : "float32");
  rows.push_back({name,
                  {{"ranks", double(comm.size())},
                   {"ms_1", one_median * 1e3},
                   {"ms_median", median * 1e3},
                   {"ms_min", t.front() * 1e3},
                   {"ms_max", t.back() * 1e3},
                   {"efficiency", one_median / median}}});
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit heat weak-scaling benchmark (run under mpirun)"};
  bench::CommonOptions opts;
  std::vector<index_t> cells2 = {8192, 16384};
  index_t cells3 = 512;
  int samples = 15, batch = 20;
  opts.add_to(app);
  app.add_option("--cells2", cells2, "2D: n per rank (n x n cells a rank), several allowed")->delimiter(',');
  app.add_option("--cells3", cells3, "3D: n per rank (n^3 cells a rank; 0: none)");
  app.add_option("--samples", samples, "timed samples (median, min and max reported)")->check(CLI::PositiveNumber);
  app.add_option("--batch", batch, "steps per sample")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    const Comm comm = Comm::world();
    ContextOptions options;
    if (const int gpus = cuda_device_count(); gpus > 0) options.device = comm.local_rank() % gpus;
    const Context ctx = Context::create(opts.backend, options);
    std::vector<bench::Row> rows;
    for (bool f64 : {false, true}) {
      for (index_t n : cells2) weak_case(comm, ctx, {n, n}, f64, samples, batch, rows);
      if (cells3 > 0) weak_case(comm, ctx, {cells3, cells3, cells3}, f64, samples, batch, rows);
    }
    if (comm.rank() == 0)
      bench::report("bench_heat_scaling, " + std::to_string(comm.size()) + " ranks", ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_heat_scaling: %s\n", e.what());
    return 1;
  }
}
