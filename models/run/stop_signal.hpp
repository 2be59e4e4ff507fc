#pragma once
// SIGINT/SIGTERM stop the run after its current step, with a checkpoint, and exit 128 + the
// signal. Any rank's signal stops all (a reduction every step: collective). The first stop
// signal counts: a second one (mpirun's SIGTERM after a Ctrl-C, say) does not relabel it.
#include "models/run/activity.hpp"
#include "models/run/checkpointer.hpp"
#include "models/run/progress.hpp"

namespace sim::run {

/// Installs the SIGINT/SIGTERM handlers that note the signal (once the input is checked).
void install_stop_handlers();
/// The stop signal noted so far (0: none).
int stop_signal_seen();
/// Notes sig as if it had arrived (tests; the handlers call it).
void note_stop_signal(int sig);
/// Forgets the noted signal (tests).
void clear_stop_signal();

/// After every step (or batch of device-queued steps): when any rank has seen a stop signal, writes a checkpoint and stops the run.
class StopOnSignal : public Activity {
 public:
  /// checkpointer writes the checkpoint; progress ends its line first.
  StopOnSignal(Checkpointer& checkpointer, ProgressReport& progress);
  /// Collective: agrees on the signal; on one, checkpoints and stops with 128 + sig.
  void run(Simulation& sim) override;

 private:
  Checkpointer& checkpointer_;
  ProgressReport& progress_;
};

}  // namespace sim::run
