#pragma once
// What the 3D fluid's tests share: a model built from a few config lines and initialized, a
// field set from host values, the face fields, the decaying ABC (Beltrami) flow on the faces of
// a periodic box, a restart from another run's checkpointed state, and the largest difference of the face velocities from a reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"
#include "tests/support/model_values.hpp"

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

/// A restart of `into` from `from`: the fields a checkpoint carries and the model's state.
inline void restore_checkpoint(sim::Model& from, sim::Model& into) {
  std::map<std::string, std::uint64_t> counters;
  std::map<std::string, double> reals;
  from.save_state(counters, reals);
  for (sim::FieldRef& f : from.fields()) {
    if (!f.checkpointed) continue;
    std::vector<double> host(std::size_t(f.size()));
    f.to_host(host.data());
    set_field(into, f.name, host);
  }
  into.load_state(counters, reals);
}

/// The face velocity fields of the 3D fluid, by component.
const char* const kFaceFields[3] = {"u_face", "v_face", "w_face"};

/// The n^3 face values of component c of f(x, y, z) (faces of the cells of [0, 2 pi)^3, row-major).
template <class F>
std::vector<double> on_faces(int c, int n, const F& f) {
  const double h = 2 * M_PI / n;
  std::vector<double> v(std::size_t(n) * n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        double x[3] = {(i + 0.5) * h, (j + 0.5) * h, (k + 0.5) * h};
        x[c] -= 0.5 * h;
        v[std::size_t((i * n + j) * n + k)] = f(x[0], x[1], x[2]);
      }
  return v;
}

/// The decaying ABC flow (A = B = C = 1, k = 1) on [0, 2 pi)^3: component c at (x, y, z), time t.
inline double abc(int c, double x, double y, double z, double nu, double t) {
  const double decay = std::exp(-nu * t);
  if (c == 0) return decay * (std::sin(z) + std::cos(y));
  if (c == 1) return decay * (std::sin(x) + std::cos(z));
  return decay * (std::sin(y) + std::cos(x));
}

/// Largest difference between the model's face velocities and `reference` (per component).
inline double max_difference(sim::Model& m, const std::vector<std::vector<double>>& reference) {
  double e = 0;
  for (int c = 0; c < 3; ++c) {
    const std::vector<double> u = field_values(m, kFaceFields[c]);
    for (std::size_t q = 0; q < u.size(); ++q) e = std::max(e, std::abs(u[q] - reference[std::size_t(c)][q]));
  }
  return e;
}

/// Runs `steps` steps of dt.
inline void run_steps(sim::Model& m, int steps, double dt) {
  for (int s = 0; s < steps; ++s) m.step(dt);
}

}  // namespace sim_test
