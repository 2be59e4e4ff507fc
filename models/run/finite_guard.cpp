#include "models/run/finite_guard.hpp"

#include <cmath>
#include <cstdio>

#include "core/runtime/error.hpp"
#include "models/run/simulation.hpp"

namespace sim::run {

namespace {
/// "(i, j) (x = ...)": the global index of element t of f's box, and the x of its cell centre.
std::string cell_text(const FieldRef& f, std::int64_t t, const GridSpec& g) {
  const std::int64_t n = f.local_size();
  const std::vector<std::int64_t>& box = f.count.empty() ? f.shape : f.count;
  std::string where = "(";
  std::int64_t rest = t, stride = n, i0 = 0;
  for (std::size_t d = 0; d < box.size(); ++d) {
    stride /= box[d];
    const std::int64_t i = rest / stride + (f.offset.empty() ? 0 : f.offset[d]);  // global index
    rest -= (rest / stride) * stride;
    if (d == 0) i0 = i;
    char b[64];
    std::snprintf(b, sizeof b, "%s%lld", d ? ", " : "", (long long)i);
    where += b;
  }
  char b[160];
  std::snprintf(b, sizeof b, ") (x = %.6g)", g.origin[0] + (double(i0) + 0.5) * g.length[0] / double(g.cells[0]));
  return where + b;
}
}  // namespace

std::string find_non_finite(FieldRef& f, std::int64_t step, const GridSpec& g) {
  if (std::isfinite(f.sum())) return "";
  const std::int64_t n = f.local_size();
  std::vector<unsigned char> host(std::size_t(n) * (f.is_double ? 8 : 4));
  f.to_host(host.data());
  for (std::int64_t t = 0; t < n; ++t) {
    const double v = f.is_double ? reinterpret_cast<const double*>(host.data())[t]
                                 : double(reinterpret_cast<const float*>(host.data())[t]);
    if (std::isfinite(v)) continue;
    return "the run blew up: at step " + std::to_string(step) + " field '" + f.name + "' is " +
           (std::isnan(v) ? "NaN" : "Inf") + " at cell " + cell_text(f, t, g) +
           "; the last good checkpoint is kept. Lower run.dt or run.cfl";
  }
  return "";  // the sum overflowed although every value is finite: not a blow-up
}

void guard_finite(std::vector<FieldRef>& fields, std::int64_t step, const GridSpec& g, const Comm& comm,
                  const std::string& cause) {
  for (FieldRef& f : fields) {
    std::string found = find_non_finite(f, step, g);
    if (!found.empty() && !cause.empty())  // the input overflows: a smaller step would not help
      found = found.substr(0, found.find(" Lower run.dt")) + " " + cause;
    if (comm.max(std::int64_t(!found.empty())) == 0) continue;
    if (!comm.parallel()) throw Error(found);
    if (!found.empty()) std::fprintf(stderr, "simulate: error: [rank %d] %s\n", comm.rank(), found.c_str());
    comm.barrier();
    throw Error("the run blew up in field '" + f.name + "' at step " + std::to_string(step) +
                " (the rank that found it said where)");
  }
}

FiniteGuard::FiniteGuard(std::shared_ptr<Schedule> schedule, bool before_output)
    : Activity(std::move(schedule), {false, before_output}), before_output_(before_output) {}

void FiniteGuard::run(Simulation& sim) {
  if (before_output_) {
    sim.model.prepare_output();
    guard_finite(sim.all_fields, sim.clock.step, sim.plan.grid, sim.comm, sim.plan.overflow_cause);
  } else if (!sim.finite_now()) {
    guard_finite(sim.state_fields, sim.clock.step, sim.plan.grid, sim.comm, sim.plan.overflow_cause);
  }
  sim.mark_finite();
}

}  // namespace sim::run
