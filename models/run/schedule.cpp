#include "models/run/schedule.hpp"

#include <algorithm>
#include <cmath>

namespace sim::run {

NextDue earliest(const NextDue& a, const NextDue& b) { return {std::min(a.step, b.step), std::min(a.time, b.time)}; }

void EveryTime::fired(const RunClock& clock) {
  for (int i = 0; i < 64; ++i) {  // the usual case: one interval, or a few, summed as always
    if (!reached(clock.time, next_)) return;
    next_ += interval_;
  }
  // a step crossed many intervals, or the interval is below the resolution of the time (next_
  // + interval_ == next_): jump past the time at once instead of adding forever
  const double crossed = std::floor((clock.time - next_) / interval_) + 1;
  double next = next_ + crossed * interval_;
  if (!(next > next_) || reached(clock.time, next))
    next = clock.time + std::max(interval_, std::fabs(clock.time) * 4 * time_tolerance);
  next_ = next;
}

EveryWallMinutes::EveryWallMinutes(double minutes, Comm comm, Now now)
    : minutes_(minutes), last_(now()), comm_(std::move(comm)), now_(std::move(now)) {}

bool EveryWallMinutes::due(const RunClock&) {
  const bool mine = now_() - last_ >= 60 * minutes_;
  return comm_.broadcast(std::int64_t(mine)) != 0;  // rank 0's clock decides
}

void EveryWallMinutes::fired(const RunClock&) { last_ = now_(); }

double EveryWallMinutes::steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool AnyOf::due(const RunClock& clock) {
  bool any = false;
  for (auto& p : parts_) any = p->due(clock) || any;  // every part asked
  return any;
}

void AnyOf::fired(const RunClock& clock) {
  for (auto& p : parts_) p->fired(clock);
}

NextDue AnyOf::next_due(const RunClock& clock) const {
  NextDue next;
  for (const auto& p : parts_) next = earliest(next, p->next_due(clock));
  return next;
}

}  // namespace sim::run
