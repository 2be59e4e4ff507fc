#include "models/run/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "core/runtime/tuning.hpp"
#include "models/run/host_fields.hpp"

namespace sim::run {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

Simulation::Simulation(Plan p, Model& m, Context c, Comm k, io::RunInfo i)
    : plan(std::move(p)), model(m), ctx(std::move(c)), comm(std::move(k)), info(std::move(i)), grid(grid_info(plan.grid)) {
  all_fields = model.fields();
  for (auto& f : all_fields) {
    const auto& want = plan.output_fields;
    if (want.empty() ? f.snapshot : std::find(want.begin(), want.end(), f.name) != want.end()) out_fields.push_back(f);
    if (f.checkpointed) state_fields.push_back(f);
  }
  clock.dt = plan.dt;
  if (plan.adaptive && tuning::current().device_steps != 0) device_clock_ = std::make_unique<DeviceClock>(ctx);
}

Simulation::~Simulation() = default;

bool Simulation::due(Schedule& s) {
  auto [it, fresh] = due_now_.try_emplace(&s, false);
  if (fresh && (it->second = s.due(clock))) s.fired(clock);
  return it->second;
}

void Simulation::drain_writes() {
  for (auto& a : activities_) a->drain();
}

void Simulation::run_activity(Activity& a) {
  const auto t0 = std::chrono::steady_clock::now();
  if (a.traits().collective_io) drain_writes();
  a.run(*this);
  if (a.traits().output || a.traits().collective_io) counts.blocked_seconds += seconds_since(t0);
  if (a.traits().output) output_step_ = clock.step;
}

void Simulation::run_output() {
  for (auto& a : activities_)
    if (&a->schedule() == output_schedule.get()) run_activity(*a);
  output_schedule->fired(clock);
}

void Simulation::run_diagnostics() {
  if (!diagnostics_schedule) return;
  for (auto& a : activities_)
    if (&a->schedule() == diagnostics_schedule.get()) run_activity(*a);
}

void Simulation::advance(const TimeStepper& stepper) {
  if (device_clock_) {
    const std::int64_t ran = device_steps(stepper);
    if (ran > 0) return;
    if (ran < 0) device_clock_.reset();  // the model cannot: step by step from now on
  }
  stepper.step(model, clock);
}

std::int64_t Simulation::device_steps(const TimeStepper& stepper) {
  NextDue next;
  for (const auto& a : activities_) next = earliest(next, a->schedule().next_due(clock));
  ClockState s;
  s.step = clock.step, s.time = clock.time, s.dt = s.dt_chosen = clock.dt;
  s.end_time = plan.end_time > 0 ? plan.end_time : 0;
  s.horizon_time = next.time;
  s.horizon_step = std::min(next.step, clock.step + max_device_batch);
  if (plan.end_time <= 0) s.horizon_step = std::min(s.horizon_step, stepper.total_steps());
  device_clock_->start(s);
  const std::int64_t ran = model.run_device_steps(*device_clock_, plan.cfl);
  if (ran <= 0) return ran;
  const ClockState& now = device_clock_->host();
  clock.step = now.step, clock.time = now.time, clock.dt = now.dt_chosen;
  return ran;
}

io::RunInfo Simulation::file_info() const {
  io::RunInfo i = info;
  i.step = clock.step, i.time = clock.time, i.dt = clock.dt;
  return i;
}

int Simulation::run() {
  if (!output_schedule) output_schedule = std::make_shared<Never>();
  const TimeStepper stepper(plan.dt, plan.total_steps, plan.end_time, plan.adaptive, plan.cfl);
  for (auto& a : activities_) a->start(*this);
  if (!resumed && plan.outputs_on()) run_output();
  if (!resumed) run_diagnostics();
  first_step = output_step_ = clock.step;  // the state at the start is output (or was, before the checkpoint)
  const auto start = std::chrono::steady_clock::now();
  while (stepper.more(clock)) {
    advance(stepper);
    due_now_.clear();
    for (auto& a : activities_) {
      if (due(a->schedule())) run_activity(*a);
      if (stop_code_) return *stop_code_;
    }
  }
  if (plan.outputs_on() && output_step_ != clock.step) run_output();
  run_diagnostics();  // the last step's row (the writer skips a step it has one for)
  ctx.synchronize();
  compute_wall = seconds_since(start);
  drain_writes();
  for (auto& a : activities_) a->finish(*this);
  return 0;  // exit_ok
}

}  // namespace sim::run
