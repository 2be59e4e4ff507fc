#pragma once
// Checkpoints: written synchronously and atomically by every rank together (one file,
// collective), after the snapshot in flight is on disk; rank 0 prunes all but the newest
// `keep`. The run's last step gets one too when checkpoints are on.
#include <functional>
#include <memory>

#include "models/run/activity.hpp"

namespace sim::run {

/// Writes a checkpoint when due, and at the end of the run when checkpoints are on.
class Checkpointer : public Activity {
 public:
  /// On schedule; next_output_time: the output schedule's next time, stored for a resume (may be empty).
  Checkpointer(std::shared_ptr<Schedule> schedule, std::function<double()> next_output_time);
  /// Writes a checkpoint (collective; background writes must be drained: the Simulation does).
  void run(Simulation& sim) override;
  /// Writes the last step's checkpoint unless the newest one is of this step (rank 0's view decides).
  void finish(Simulation& sim) override;

 private:
  std::function<double()> next_output_time_;
};

}  // namespace sim::run
