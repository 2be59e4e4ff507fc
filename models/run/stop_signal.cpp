#include "models/run/stop_signal.hpp"

#include <atomic>
#include <csignal>

#include "models/run/log.hpp"
#include "models/run/simulation.hpp"

namespace sim::run {

namespace {
std::atomic<int> stop_signal{0};  // set by SIGINT/SIGTERM; the loop stops after the current step
extern "C" void on_stop_signal(int sig) { note_stop_signal(sig); }
}  // namespace

void note_stop_signal(int sig) {
  int none = 0;
  stop_signal.compare_exchange_strong(none, sig);
}

void clear_stop_signal() { stop_signal.store(0); }

int stop_signal_seen() { return stop_signal.load(); }

void install_stop_handlers() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

StopOnSignal::StopOnSignal(Checkpointer& checkpointer, ProgressReport& progress)
    : Activity(std::make_shared<EveryCheck>()), checkpointer_(checkpointer), progress_(progress) {}

void StopOnSignal::run(Simulation& sim) {
  const int sig = int(sim.comm.max(std::int64_t(stop_signal_seen())));  // any rank's signal stops all
  if (!sig) return;
  progress_.end_line();
  log("stopped by %s at step %lld; writing a checkpoint%s", sig == SIGINT ? "SIGINT" : "SIGTERM",
      (long long)sim.clock.step,
      sim.comm.parallel() && sig == SIGTERM
          ? " (under mpirun: OpenMPI's mpirun turns a SIGINT or SIGTERM sent to it into SIGTERM for the ranks "
            "and exits 1 itself; signal the ranks instead to see 130/143 from mpirun)"
          : "");
  sim.run_activity(checkpointer_);  // drains the background writes first (collective_io)
  sim.stop(128 + sig);
}

}  // namespace sim::run
