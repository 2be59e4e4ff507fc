#pragma once
// The recorded forms of a fluid step. A step writes its output buffers and then swaps them in
// as the state, so a recording reads and writes the buffers of one parity: each is recorded
// once per parity and replayed (on a GPU one launch a step, dt read from memory).
#include <cstdint>
#include <utility>

#include "core/runtime/device_clock.hpp"
#include "core/runtime/graph.hpp"

namespace sim::fluid {

/// The step's recordings per buffer parity: without and with the speeds reduction that the
/// next adaptive dt needs, and the device-clocked loops (Model::run_device_steps) per starting parity.
class StepRecordings {
 public:
  /// The parity of the buffers that hold the state (0 or 1).
  int parity() const { return parity_; }
  /// Swaps the parity, as a step swaps its buffers.
  void flip() { parity_ ^= 1; }
  /// The recording of a step from this parity, with or without the speeds at its end.
  Recorded& step(bool with_speeds) { return steps_[parity_][with_speeds]; }
  /// The recorded device loop from this parity for a clock and cfl (those recorded for
  /// another clock or cfl are dropped).
  Recorded& loop(const void* clock, double cfl) {
    drop_if_not_for(clock, cfl);
    return loops_[parity_];
  }
  /// The recorded device-clocked step from this parity (one step, no loop: replay_clocked_steps).
  Recorded& clocked_step(const void* clock, double cfl) {
    drop_if_not_for(clock, cfl);
    return clocked_[parity_];
  }

 private:
  void drop_if_not_for(const void* clock, double cfl) {
    if (loops_for_ == std::pair<const void*, double>{clock, cfl}) return;
    loops_[0] = loops_[1] = clocked_[0] = clocked_[1] = Recorded{};
    loops_for_ = {clock, cfl};
  }

  Recorded steps_[2][2];
  Recorded loops_[2], clocked_[2];
  std::pair<const void*, double> loops_for_{nullptr, 0.0};  // the clock and cfl loops_ were recorded for
  int parity_ = 0;
};

/// Runs device-clocked steps up to the clock's horizon as replays the host queues one step
/// ahead, for work that cannot run in a device loop (record_loop): step() queues the next
/// step (the recording for the current buffer parity, ending with EndClockStep) and swaps the
/// parity. The host reads the clock as step k starts (a copy queued behind step k - 1) while
/// step k runs, and queues step k + 1 only when step k leaves the clock running
/// (runs_after_step: EndClockStep's test), so no step runs past the horizon: one wait a step,
/// behind the step in flight. The first step's dt must be queued (BeginClockStep). Returns the
/// steps that ran; the clock's host() is then stale (read() it).
template <class Step>
std::int64_t replay_clocked_steps(DeviceClock& clock, const Step& step) {
  clock.snapshot(0);  // the clock as step 0 starts
  step();
  clock.snapshot(1);  // as step 1 would start
  for (std::int64_t k = 0;; ++k) {
    const ClockState c = clock.wait_snapshot(int(k % 2));  // as step k starts; step k is queued
    if (!runs_after_step(c)) return k + 1;
    step();                       // step k + 1, queued while step k runs
    clock.snapshot(int(k % 2));  // as step k + 2 would start (slot k % 2 has been read)
  }
}

/// How the step being recorded ends: its last projection also reduces the speeds (for the next
/// dt), and a device-clocked step's clock kernel follows it (or runs in its last block).
struct StepEnding {
  int projections_to_fuse = 0;  ///< projections left before the one that reduces the speeds (0: none does)
  ClockState* clock = nullptr;  ///< a device-clocked step being recorded, until its clock kernel is queued
  double cfl = 0;               ///< and its cfl and loop signal
  LoopSignal signal{};

  /// Counts a projection of the step; true for the one that reduces the speeds.
  bool reduces_speeds() { return projections_to_fuse > 0 && --projections_to_fuse == 0; }
  /// The clock whose step ends with this projection (then none is left to end).
  ClockState* take_clock() { return std::exchange(clock, nullptr); }
};

}  // namespace sim::fluid
