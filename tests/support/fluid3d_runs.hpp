#pragma once
// A 3D fluid model built from a few config lines and initialized, and a field set from host
// values: what the 3D fluid's tests share.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"

namespace sim_test {

/// A model and the config it was built from (which it refers to).
struct Fluid3dRun {
  std::unique_ptr<sim::io::Config> config;
  std::unique_ptr<sim::Model> model;
};

/// The fluid model on the grid `cells` (e.g. "[8, 8, 8]") of size `length`, with [model] lines
/// `model` and [boundary] lines `boundary`, in `precision`, initialized.
inline Fluid3dRun make_fluid3d(const sim::Context& ctx, const std::string& cells, const std::string& length,
                               const std::string& model, const std::string& boundary, const std::string& precision = "float64") {
  static const sim::ModelRegistry registry = sim::builtin_models();
  const std::string text = "[run]\nmodel = \"fluid\"\nsteps = 1\nprecision = \"" + precision + "\"\n[grid]\ncells = " + cells +
                           "\nlength = " + length + "\n[model]\n" + model + "\n[boundary]\n" + boundary + "\n";
  Fluid3dRun s{std::make_unique<sim::io::Config>(sim::io::Config::parse(text, "fluid3d_test.toml")), nullptr};
  s.model = sim::build_model(registry, ctx, *s.config);
  s.model->initialize();
  return s;
}

/// Sets field `name` of m from host values (row-major, doubles; rounded for a float32 field).
inline void set_field(sim::Model& m, const std::string& name, const std::vector<double>& values) {
  for (sim::FieldRef& f : m.fields()) {
    if (f.name != name) continue;
    if (f.is_double) return f.from_host(values.data());
    const std::vector<float> tmp(values.begin(), values.end());
    return f.from_host(tmp.data());
  }
  ADD_FAILURE() << "no field named " << name;
}

}  // namespace sim_test
