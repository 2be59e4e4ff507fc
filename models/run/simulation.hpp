#pragma once
// A run as a Simulation (after Oceananigans' Simulation): a model, a clock advanced by a
// TimeStepper, and activities run in order when their schedules are due. The run's shared
// state is public for the activities; the loop, the schedule bookkeeping and the drain rule
// (activity.hpp) are the Simulation's own.
//
// An adaptive model that can choose its dt on the device (Model::run_device_steps) runs in
// batches: the Simulation starts a DeviceClock whose horizon is the earliest next_due() of
// the schedules (and at most max_device_batch steps on), the model queues the steps with no
// wait between them, and the activities are asked once the batch has ended: the same steps
// and the same bits as step by step, minus a host round trip per step.
// SIMKIT_DEVICE_STEPS=0 in the environment turns batches off (for comparisons).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/runtime/context.hpp"
#include "core/runtime/device_clock.hpp"
#include "io/hdf5_file.hpp"
#include "models/model.hpp"
#include "models/run/activity.hpp"
#include "models/run/clock.hpp"
#include "models/run/plan.hpp"

namespace sim::run {

/// What the output activities did, for the summary.
struct OutputCounts {
  std::int64_t snapshots = 0, checkpoints = 0;
  double blocked_seconds = 0;      ///< the loop's time in output activities
  double writer_busy_seconds = 0;  ///< the background writer's time in writes
};

/// The most steps a batch of device-clocked steps queues (the longest wait for a wall-time
/// schedule or a stop signal, in steps).
constexpr std::int64_t max_device_batch = 128;

/// A model, its clock and its activities.
class Simulation {
 public:
  /// A run of model as plan says, on ctx and comm; info: the file attributes (step and time left to the clock).
  Simulation(Plan plan, Model& model, Context ctx, Comm comm, io::RunInfo info);
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;
  /// Destroys the activities (their background writes joined first).
  ~Simulation();

  /// Adds an activity (run after those added before it); returns it.
  template <class A>
  A& add(std::unique_ptr<A> activity) {
    A& a = *activity;
    activities_.push_back(std::move(activity));
    return a;
  }
  /// The schedule of the output activities (snapshots, diagnostics): set before run().
  std::shared_ptr<Schedule> output_schedule;
  /// The diagnostics rows' own schedule (output.diagnostics_every), or null: a row at each output.
  std::shared_ptr<Schedule> diagnostics_schedule;

  /// Starts the activities, writes the initial output (unless resumed), steps to the end,
  /// writes the last output and finishes the activities: exit_ok, or the code stop() gave.
  int run();
  /// Ends the run after the current activity, with this exit code.
  void stop(int code) { stop_code_ = code; }
  /// Waits for every background write (rethrowing its error): before a collective_io activity.
  void drain_writes();
  /// Runs one activity now (the drain rule and the output timing applied).
  void run_activity(Activity& a);
  /// The file attributes at the current clock.
  io::RunInfo file_info() const;
  /// Notes that every field was found finite at this step (a later check may skip it).
  void mark_finite() { finite_step_ = clock.step; }
  /// True when mark_finite() was called at this step.
  bool finite_now() const { return finite_step_ == clock.step; }

  // ---- the run's state, shared by the activities
  Plan plan;
  Model& model;
  Context ctx;
  Comm comm;
  io::RunInfo info;      ///< the file attributes (file_info() adds step, time, dt)
  io::GridInfo grid;     ///< the grid as files describe it
  std::vector<FieldRef> all_fields, out_fields, state_fields;  ///< every field; snapshot ones; checkpointed ones
  RunClock clock;
  bool resumed = false;  ///< the clock was restored from a checkpoint
  std::int64_t first_step = 0;  ///< the step the loop started from
  double compute_wall = 0;      ///< seconds of the loop (set when it ends)
  OutputCounts counts;

 private:
  bool due(Schedule& s);  // s asked once per step (and told when it fired); later asks get the same answer
  void advance(const TimeStepper& stepper);  // one step, or a batch of device-clocked steps
  std::int64_t device_steps(const TimeStepper& stepper);  // a batch: the steps that ran, or -1
  void run_output();      // the activities on the output schedule, now
  void run_diagnostics();  // the activities on the diagnostics schedule (if any), now
  std::vector<std::unique_ptr<Activity>> activities_;
  std::map<Schedule*, bool> due_now_;  // this step's answers
  std::optional<int> stop_code_;
  std::unique_ptr<DeviceClock> device_clock_;  // adaptive runs, until the model says it cannot
  std::int64_t finite_step_ = -1, output_step_ = -1;
};

}  // namespace sim::run
