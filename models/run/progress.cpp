#include "models/run/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "models/run/log.hpp"
#include "models/run/simulation.hpp"

namespace sim::run {

Progress::Progress(bool quiet, std::int64_t total, double cells)
    : quiet_(quiet), tty_(isatty(2)), total_(total), cells_(cells) {}

void Progress::update(std::int64_t step, std::int64_t first, double time, bool force) {
  if (quiet_) return;
  const double since = std::chrono::duration<double>(Clock::now() - last_).count();
  if (!force && since < (tty_ ? 0.2 : 5.0)) return;
  last_ = Clock::now();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count(), done = double(step - first);
  const double rate = elapsed > 0 ? done / elapsed : 0;
  const double eta = rate > 0 ? double(total_ - step) / rate : 0;
  const double frac = total_ > 0 ? double(step) / double(total_) : 1;
  if (tty_) {
    char bar[31];
    int fill = int(frac * 30);
    for (int i = 0; i < 30; ++i) bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    std::fprintf(stderr, "\r[%s] %3.0f%% step %lld/%lld t=%.5g ETA %s %s steps/s %scell/s   ", bar, frac * 100,
                 (long long)step, (long long)total_, time, human_time(eta).c_str(), si(rate).c_str(),
                 si(rate * cells_).c_str());
  } else {
    std::fprintf(stderr, "simulate: step %lld/%lld (%.0f%%) t=%.6g, %s steps/s, %scell/s, ETA %s\n", (long long)step,
                 (long long)total_, frac * 100, time, si(rate).c_str(), si(rate * cells_).c_str(),
                 human_time(eta).c_str());
  }
}

void Progress::finish() {
  if (!quiet_ && tty_) std::fputc('\n', stderr);
}

ProgressReport::ProgressReport(bool quiet) : Activity(std::make_shared<EveryCheck>()), quiet_(quiet) {}

void ProgressReport::start(Simulation& sim) {
  progress_ = Progress(quiet_ || sim.comm.rank() != 0, sim.plan.total_steps, sim.model.cell_updates_per_step());
}

void ProgressReport::run(Simulation& sim) { progress_.update(sim.clock.step, sim.first_step, sim.clock.time); }

void ProgressReport::finish(Simulation& sim) {
  progress_.update(sim.clock.step, sim.first_step, sim.clock.time, true);
  progress_.finish();
}

}  // namespace sim::run
