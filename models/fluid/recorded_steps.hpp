#pragma once
// The recorded forms of a fluid step. A step writes its output buffers and then swaps them in
// as the state, so a recording reads and writes the buffers of one parity: each is recorded
// once per parity and replayed (on a GPU one launch a step, dt read from memory).
//
// ClockedBatches runs a model's batches of device-clocked steps (Model::run_device_steps) from
// its recorded step: one device loop a batch, or per-step replays where a loop cannot hold the
// step's messages.
#include <cstdint>
#include <string>
#include <utility>

#include "core/runtime/context.hpp"
#include "core/runtime/device_clock.hpp"
#include "core/runtime/error.hpp"
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

/// The batches of device-clocked steps of a model whose step swaps its buffers (StepRecordings'
/// parity), from the model's device-clocked step. A batch is one device loop (record_loop):
/// every step up to the clock's horizon in one launch, NCCL's calls inside between GPUs (which
/// CUDA takes once NCCL runs without its graph mixing support, nccl_channel.cpp). A decomposed
/// batch may run as per-step replays instead, queued by the host one step ahead
/// (replay_clocked_steps): SIMKIT_DECOMPOSED_STEPS=replays; a loop that CUDA refuses turns this
/// batch and the later ones into replays.
///
/// The model's callables: step(ClockState* c, double cfl, const LoopSignal& signal) queues the
/// step of clock c into the output buffers (ending with EndClockStep, which calls signal);
/// flip() swaps the output in as the state and flips the recordings' parity; forget_step()
/// undoes what a step left half-recorded when its recording is refused. A recording keeps
/// copies of step and flip (on the CPU each replay calls them again): they capture the model
/// by pointer, never locals by reference.
class ClockedBatches {
 public:
  /// Sets how decomposed batches run (SIMKIT_DECOMPOSED_STEPS: loop, replays, host or auto) on ctx.
  void set_mode(const Context& ctx, std::string mode) { ctx_ = ctx, mode_ = std::move(mode); }
  /// SIMKIT_DECOMPOSED_STEPS as set: loop, replays, host or auto.
  const std::string& mode() const { return mode_; }
  /// Whether a decomposed batch runs as per-step replays (SIMKIT_DECOMPOSED_STEPS=replays)
  /// rather than one device loop (loop, and auto: NCCL's calls inside, core/distributed/nccl_channel.cpp).
  bool decomposed_replays() const { return mode_ == "replays"; }

  /// Runs one batch (the first step's dt already queued: BeginClockStep) of a model split over
  /// ranks (decomposed) or not; returns the steps that ran, the clock's host() then current.
  template <class Step, class Flip, class ForgetStep>
  std::int64_t run(StepRecordings& recordings, DeviceClock& clock, double cfl, bool decomposed, const Step& step,
                   const Flip& flip, const ForgetStep& forget_step) {
    ++batches_;
    if (refused_ || (decomposed && decomposed_replays())) return replays(recordings, clock, cfl, step, flip);
    return loop(recordings, clock, cfl, step, flip, forget_step);
  }

  /// The plan note on a model's steps on `ranks` ranks: recorded, with the transport of the
  /// speeds' maximum and how the batches run (note()); or not, and why (`unrecorded_because`,
  /// SIMKIT_DECOMPOSED_STEPS=host when so set).
  std::string decomposed_note(int ranks, bool recorded, const std::string& transport, const std::string& unrecorded_because) const {
    const std::string head = "steps on " + std::to_string(ranks) + " ranks: ";
    if (!recorded)
      return head + "not recorded (" + (mode_ == "host" ? "SIMKIT_DECOMPOSED_STEPS=host" : unrecorded_because) +
             "); an adaptive dt is reduced over the ranks on the host";
    return head + "recorded; an adaptive dt from the speeds' maximum over the ranks (" + transport + ") on the device, " + note();
  }

  /// How the batches run, for a plan note: "in batches each one device loop (3 batches run)".
  std::string note() const {
    const bool replays = refused_ || decomposed_replays();
    return std::string("in batches ") + (replays ? "of per-step replays queued one ahead" : "each one device loop") +
           (refused_ ? " (the device loop was refused: " + refusal_ + ")" : "") + " (" + std::to_string(batches_) +
           " batches run)";
  }

 private:
  /// A batch as one device loop (record_loop); where CUDA refuses the loop, this batch and the
  /// later ones run as replays.
  template <class Step, class Flip, class ForgetStep>
  std::int64_t loop(StepRecordings& recordings, DeviceClock& clock, double cfl, const Step& step, const Flip& flip,
                    const ForgetStep& forget_step) {
    Recorded& r = recordings.loop(clock.state(), cfl);  // the loop that starts from this buffer parity
    const std::int64_t first = clock.host().step;
    if (!r.valid()) {
      const int parity = recordings.parity();
      try {
        r = record_loop(ctx_, clock.running(), [step, flip, c = clock.state(), cfl](int odd, const LoopSignal& signal) {
          if (odd) flip();
          step(c, cfl, signal);
          if (odd) flip();
        });
      } catch (const Error& e) {
        if (recordings.parity() != parity) flip();
        forget_step();
        refused_ = true, refusal_ = e.what();
        try {
          return replays(recordings, clock, cfl, step, flip);
        } catch (const Error& f) {  // (both reasons: the loop's may be what the replays tripped on)
          throw Error(std::string(f.what()) + "; the device loop tried before it was refused: " + refusal_);
        }
      }
    }
    r.replay();
    const std::int64_t ran = clock.read().step - first;
    if (ran % 2 != 0) flip();
    return ran;
  }

  /// A batch as replays of the device-clocked step of each parity, queued by the host one step
  /// ahead (replay_clocked_steps), for messages a device loop may not hold (NCCL's).
  template <class Step, class Flip>
  std::int64_t replays(StepRecordings& recordings, DeviceClock& clock, double cfl, const Step& step, const Flip& flip) {
    ClockState* c = clock.state();
    const std::int64_t ran = replay_clocked_steps(clock, [&recordings, this, &step, &flip, c, cfl] {
      Recorded& r = recordings.clocked_step(c, cfl);
      if (!r.valid()) r = record(ctx_, [step, c, cfl] { step(c, cfl, LoopSignal{}); });
      r.replay();
      flip();
    });
    clock.read();
    return ran;
  }

  Context ctx_;
  std::string mode_;            // SIMKIT_DECOMPOSED_STEPS: loop, replays, host or auto
  std::int64_t batches_ = 0;    // batches run
  bool refused_ = false;        // CUDA refused the device loop: batches run as replays
  std::string refusal_;         // and why
};

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
