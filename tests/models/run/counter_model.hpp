#pragma once
// A model for the run's tests: one 1-D field u of 8 host doubles, each step adds dt to every
// cell; at step nan_at (if > 0) cell 3 becomes NaN. No kernels: it runs anywhere.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "models/model.hpp"

namespace sim::run::testing {

/// u += dt per step; cell 3 turns NaN at step nan_at.
struct CounterModel : Model {
  std::vector<double> u = std::vector<double>(8);
  std::int64_t steps = 0, nan_at = 0;
  CounterModel() { initialize(); }
  std::vector<FieldRef> fields() override {
    FieldRef r;
    r.name = "u", r.unit = "K", r.is_double = true, r.shape = {8};
    r.to_host = [this](void* h) { std::memcpy(h, u.data(), 8 * sizeof(double)); };
    r.from_host = [this](const void* h) { std::memcpy(u.data(), h, 8 * sizeof(double)); };
    r.sum = [this] {
      double s = 0;
      for (double v : u) s += v;
      return s;
    };
    return {r};
  }
  void initialize() override {
    for (int i = 0; i < 8; ++i) u[std::size_t(i)] = i;
  }
  void step(double dt) override {
    ++steps;
    for (double& v : u) v += dt;
    if (steps == nan_at) u[3] = std::numeric_limits<double>::quiet_NaN();
  }
  std::vector<Diagnostic> diagnostics() override { return {{"total", "K", fields()[0].sum()}}; }
  double cell_updates_per_step() const override { return 8; }
  void save_state(std::map<std::string, std::uint64_t>& counters, std::map<std::string, double>&) const override {
    counters["model_steps"] = std::uint64_t(steps);
  }
  void load_state(const std::map<std::string, std::uint64_t>& counters, const std::map<std::string, double>&) override {
    steps = std::int64_t(counters.at("model_steps"));
  }
};

/// The counter model with an adaptive dt that depends on the state (dt = cfl / (1 + u[0]/4)),
/// chosen on the host (next_dt) or, like a GPU model's, from a DeviceClock (run_device_steps:
/// the host-memory clock of a cpu context, the steps stopping at its horizon).
struct ClockedCounterModel : CounterModel {
  std::int64_t batches = 0;
  bool adaptive_dt() const override { return true; }
  double next_dt(double cfl) override { return Choice{&u[0], cfl}(); }
  std::int64_t run_device_steps(DeviceClock& clock, double cfl) override {
    ++batches;
    ClockState* c = clock.state();
    const std::int64_t first = c->step;
    BeginClockStep<Choice>{c, Choice{&u[0], cfl}}(0);
    while (c->running) {
      step(c->dt);
      EndClockStep<Choice>{c, Choice{&u[0], cfl}}(0);
    }
    return clock.read().step - first;
  }

 private:
  struct Choice {
    const double* u0;
    double cfl;
    double operator()() const { return cfl / (1 + *u0 / 4); }
  };
};

/// The counter model as a registry entry ("counter", [model] nan_at).
inline ModelInfo counter_model_info() {
  ModelInfo m;
  m.name = "counter";
  m.doc = "test model";
  m.ranks = {1};
  m.schema.section = "model";
  m.schema.params.push_back(io::Param::integer("nan_at", 0).range(0, 1e9).says("step of the NaN"));
  m.create = [](const ModelSetup& s) -> std::unique_ptr<Model> {
    auto model = std::make_unique<CounterModel>();
    model->nan_at = s.config->integer("model", "nan_at");
    return model;
  };
  return m;
}

}  // namespace sim::run::testing
