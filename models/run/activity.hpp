#pragma once
// Something a Simulation does between steps when its schedule is due: write a snapshot, a
// diagnostics row or a checkpoint, check for NaN, report progress, stop on a signal.
//
// The collective-order rule: every rank runs the same activities in the same order (the
// order they were added), and each asks its schedule once per step, so the MPI collectives
// of a step pair up on every rank. Background snapshot writes run on a communicator of
// their own, so reductions on the main one (NaN guard, wall-clock agreement, stop signals)
// never pair with them; an activity that writes files collectively on the main communicator
// or that must find the snapshots on disk (a checkpoint) declares collective_io, and the
// Simulation drains every background write before it runs.
#include <memory>

#include "models/run/schedule.hpp"

namespace sim::run {

class Simulation;

/// How the Simulation treats an activity.
struct ActivityTraits {
  bool collective_io = false;  ///< background writes are drained before it runs; its time (drain included) is output time
  bool output = false;         ///< on the output schedule: runs at the start and end too; its time is output time
};

/// An action run when its schedule is due.
class Activity {
 public:
  /// Runs when schedule is due (schedules may be shared: the output activities share one).
  explicit Activity(std::shared_ptr<Schedule> schedule, ActivityTraits traits = {})
      : schedule_(std::move(schedule)), traits_(traits) {}
  virtual ~Activity() = default;
  /// Once before the first step (after a resume restored the clock).
  virtual void start(Simulation& sim) { (void)sim; }
  /// When the schedule is due.
  virtual void run(Simulation& sim) = 0;
  /// Waits for this activity's background work; rethrows its error.
  virtual void drain() {}
  /// Once after the last step, background writes drained.
  virtual void finish(Simulation& sim) { (void)sim; }
  /// The schedule it runs on.
  Schedule& schedule() const { return *schedule_; }
  /// How the Simulation treats it.
  const ActivityTraits& traits() const { return traits_; }

 private:
  std::shared_ptr<Schedule> schedule_;
  ActivityTraits traits_;
};

}  // namespace sim::run
