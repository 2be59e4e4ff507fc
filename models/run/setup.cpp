#include "models/run/setup.hpp"

#include <cmath>

#include "models/run/checkpointer.hpp"
#include "models/run/diagnostics_writer.hpp"
#include "models/run/finite_guard.hpp"
#include "models/run/progress.hpp"
#include "models/run/snapshot_writer.hpp"
#include "models/run/stop_signal.hpp"

namespace sim::run {

namespace {
/// Any of parts, or Never when there are none.
std::shared_ptr<Schedule> any_of(std::vector<std::shared_ptr<Schedule>> parts) {
  if (parts.empty()) return std::make_shared<Never>();
  return std::make_shared<AnyOf>(std::move(parts));
}
}  // namespace

void add_standard_activities(Simulation& sim, bool quiet, double next_output_time) {
  const Plan& plan = sim.plan;
  std::vector<std::shared_ptr<Schedule>> output, checkpoint;
  std::shared_ptr<EveryTime> output_time;
  if (plan.output_every > 0) output.push_back(std::make_shared<EverySteps>(plan.output_every));
  if (plan.output_every_time > 0)
    output.push_back(output_time = std::make_shared<EveryTime>(plan.output_every_time, next_output_time));
  if (plan.checkpoint_every > 0) checkpoint.push_back(std::make_shared<EverySteps>(plan.checkpoint_every));
  if (plan.checkpoint_minutes > 0) checkpoint.push_back(std::make_shared<EveryWallMinutes>(plan.checkpoint_minutes, sim.comm));
  sim.output_schedule = any_of(std::move(output));

  sim.add(std::make_unique<FiniteGuard>(sim.output_schedule, true));
  std::vector<std::shared_ptr<Schedule>> diagnostics;  // rows on their own cadence, when one is set
  if (plan.diagnostics_every > 0) diagnostics.push_back(std::make_shared<EverySteps>(plan.diagnostics_every));
  if (plan.diagnostics_every_time > 0) {
    const double interval = plan.diagnostics_every_time;  // on resume: the first multiple after the checkpoint's time
    const double next = sim.resumed ? (std::floor(sim.clock.time / interval * (1 + 1e-12)) + 1) * interval : 0.0;
    diagnostics.push_back(std::make_shared<EveryTime>(interval, next));
  }
  if (!diagnostics.empty()) sim.diagnostics_schedule = any_of(std::move(diagnostics));
  sim.add(std::make_unique<DiagnosticsWriter>(sim.diagnostics_schedule ? sim.diagnostics_schedule : sim.output_schedule,
                                              sim.diagnostics_schedule != nullptr));
  sim.add(std::make_unique<SnapshotWriter>(sim.output_schedule));
  sim.add(std::make_unique<FiniteGuard>(std::make_shared<EverySteps>(100), false));
  Checkpointer& checkpointer = sim.add(std::make_unique<Checkpointer>(
      any_of(std::move(checkpoint)), [output_time] { return output_time ? output_time->next() : 0.0; }));
  ProgressReport& progress = sim.add(std::make_unique<ProgressReport>(quiet));
  sim.add(std::make_unique<StopOnSignal>(checkpointer, progress));
}

}  // namespace sim::run
