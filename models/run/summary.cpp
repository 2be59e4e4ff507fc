#include "models/run/summary.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/runtime/copy_rate.hpp"
#include "core/runtime/error.hpp"
#include "core/runtime/tuning.hpp"
#include "models/run/log.hpp"
#include "models/run/simulation.hpp"

namespace sim::run {

RunSummary summarize(const Simulation& sim, const std::string& model, const std::string& commit) {
  RunSummary s;
  s.model = model, s.device = sim.ctx.device_name(), s.backend = backend_name(sim.ctx.backend()), s.commit = commit;
  s.cells = sim.plan.grid.size();
  s.steps = sim.clock.step - sim.first_step;
  s.wall_seconds = sim.compute_wall;
  s.ms_per_step = s.steps ? 1e3 * s.wall_seconds / double(s.steps) : 0.0;
  s.cell_updates_per_second =
      s.wall_seconds > 0 ? double(s.steps) * sim.model.cell_updates_per_step() / s.wall_seconds : 0.0;
  s.snapshots = sim.counts.snapshots, s.checkpoints = sim.counts.checkpoints;
  s.output_blocked_seconds = sim.counts.blocked_seconds, s.writer_busy_seconds = sim.counts.writer_busy_seconds;
  s.peak_memory_bytes = std::uint64_t(sim.ctx.memory_stats().peak);
  return s;
}

std::string summary_json(const RunSummary& s) {
  nlohmann::ordered_json j;
  j["model"] = s.model, j["device"] = s.device, j["backend"] = s.backend, j["commit"] = s.commit;
  j["cells"] = s.cells, j["steps"] = s.steps, j["wall_seconds"] = s.wall_seconds, j["ms_per_step"] = s.ms_per_step;
  j["cell_updates_per_second"] = s.cell_updates_per_second;
  j["snapshots"] = s.snapshots, j["checkpoints"] = s.checkpoints;
  j["output_blocked_seconds"] = s.output_blocked_seconds, j["writer_busy_seconds"] = s.writer_busy_seconds;
  j["peak_memory_bytes"] = s.peak_memory_bytes;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_summary(const std::string& path, const RunSummary& s) {
  std::ofstream out(path, std::ios::trunc);
  out << summary_json(s);
  out.flush();
  if (!out) throw Error(path + ": cannot write the run's summary (" + std::strerror(errno) + ")");
}

void log_summary(Simulation& sim, const RunSummary& s) {
  const double wall = s.wall_seconds;
  log("done: %lld steps to t = %.6g in %s (%.3g ms/step, %scell/s)", (long long)s.steps, sim.clock.time,
      human_time(wall).c_str(), s.ms_per_step, si(s.cell_updates_per_second).c_str());
  if (const double bytes = sim.model.bytes_per_step(); bytes > 0 && wall > 0 && s.steps > 0) {
    const double achieved = bytes * double(s.steps) / wall, copy = device_copy_rate(sim.ctx);
    log("bandwidth: %sB/s achieved over the loop (output included), %.0f%% of this device's copy rate (%sB/s)",
        si(achieved).c_str(), 100 * achieved / copy, si(copy).c_str());
  }
  log("output: %lld snapshots, %lld checkpoints; the loop waited %s for output, the writer thread worked %s",
      (long long)s.snapshots, (long long)s.checkpoints, human_time(s.output_blocked_seconds).c_str(),
      human_time(s.writer_busy_seconds).c_str());
  log("peak memory: %s (%s)", format_bytes(double(s.peak_memory_bytes)).c_str(), s.device.c_str());
  for (const std::string& note : sim.model.plan_notes()) log("model: %s", note.c_str());  // (the choices --dry-run lists)
  for (const Diagnostic& d : sim.model.diagnostics()) log("  %-14s %.10g %s", d.name.c_str(), d.value, d.unit.c_str());
  for (const std::string& knob : tuning::set_knobs()) log("tuning: %s (set in the environment; docs/tuning.md)", knob.c_str());
}

}  // namespace sim::run
