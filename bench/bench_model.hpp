#pragma once
// What the model benchmarks (bench_heat, bench_stencil) share: the device copy rate measured
// in the same run (the roofline), a model's steps timed through the registry as `simulate`
// runs them, and the row that puts its bytes per step against the copy rate.
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/array/array.hpp"
#include "core/numerics/random.hpp"
#include "io/config.hpp"
#include "models/runner.hpp"

namespace sim::bench {

/// The ceiling, measured now: a device copy of 4 GB (2 GB read + 2 GB written; 512 MB on the
/// CPU). Appends its row to rows and returns the rate in GB/s.
inline double copy_ceiling(const Context& ctx, std::vector<Row>& rows) {
  const index_t copy_n = ctx.is_cuda() ? index_t(1) << 28 : index_t(1) << 25;
  Array<double, 1> a(ctx, extents(copy_n)), b(ctx, extents(copy_n));
  fill_uniform(a);
  auto tc = time_it(ctx, 10, [&] { b.copy_from(a); });
  const double copy_gbs = 2.0 * double(a.bytes()) / tc.median / 1e9;
  rows.push_back({"copy float64 n=" + std::to_string(copy_n), {{"ms", tc.median * 1e3}, {"GB/s", copy_gbs}}});
  return copy_gbs;
}

/// A row of a memory-bound pass: time per step, cell rate, bytes moved per second and its
/// fraction of the copy rate (seconds: for all steps).
inline Row rate_row(const std::string& name, double seconds, int steps, double cells, double bytes, double copy_gbs) {
  const double gbs = bytes / seconds / 1e9;
  return {name, {{"ms_per_step", seconds / steps * 1e3}, {"Gcell/s", cells / seconds / 1e9}, {"GB/s", gbs},
                 {"fraction_of_copy", gbs / copy_gbs}}};
}

/// The model of config_text built through reg, initialised, and `steps` of its steps timed
/// (median of repeat, one warm-up) at 0.9 of its default dt; bytes_per_cell: the bytes a
/// step moves per cell, the roofline's numerator.
inline Row model_steps(const Context& ctx, const ModelRegistry& reg, const std::string& config_text,
                       const std::string& name, int steps, int repeat, double bytes_per_cell, double copy_gbs) {
  io::Config cfg = io::Config::parse(config_text, name + ".toml");
  auto model = build_model(reg, ctx, cfg);
  model->initialize();
  const double dt = model->default_dt(0.9);
  auto t = time_it(ctx, repeat, [&] {
    for (int s = 0; s < steps; ++s) model->step(dt);
  }, [] {}, 1);
  const double cells = model->cell_updates_per_step() * steps;
  return rate_row(name, t.median, steps, cells, bytes_per_cell * cells, copy_gbs);
}

}  // namespace sim::bench
