#pragma once
// The activities of a `simulate` run, from its plan, in the order they run after each step
// (which is the order of their collectives on every rank):
//   1. FiniteGuard (all fields, after model.prepare_output)  } on the output schedule:
//   2. DiagnosticsWriter                                     } every output.every steps or
//   3. SnapshotWriter (background write)                     } output.every_time of time
//   4. FiniteGuard (checkpointed fields; every 100 steps, unless 1. checked this step)
//   5. Checkpointer (every checkpoint.every steps or checkpoint.every_minutes of wall time;
//      collective_io: the snapshot write in flight is drained first)
//   6. ProgressReport (every step)
//   7. StopOnSignal (every step; on SIGINT/SIGTERM: 5. now, then stop with 128 + signal)
#include "models/run/simulation.hpp"

namespace sim::run {

/// Adds the activities above to sim, with its output and checkpoint schedules;
/// next_output_time: the output time schedule's next time (a checkpoint's on resume).
void add_standard_activities(Simulation& sim, bool quiet, double next_output_time);

}  // namespace sim::run
