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
