#pragma once
// Host copies of what a model exposes (fields, diagnostics), for model tests.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/model.hpp"

namespace sim_test {

/// The interior of field `name`, row-major, as doubles.
inline std::vector<double> field_values(sim::Model& m, const std::string& name) {
  for (sim::FieldRef& f : m.fields()) {
    if (f.name != name) continue;
    if (f.is_double) {
      std::vector<double> out(std::size_t(f.size()));
      f.to_host(out.data());
      return out;
    }
    std::vector<float> tmp(std::size_t(f.size()));
    f.to_host(tmp.data());
    return std::vector<double>(tmp.begin(), tmp.end());
  }
  ADD_FAILURE() << "no field named " << name;
  return {};
}

/// The value of diagnostic `name`.
inline double diagnostic(sim::Model& m, const std::string& name) {
  for (const sim::Diagnostic& d : m.diagnostics())
    if (d.name == name) return d.value;
  ADD_FAILURE() << "no diagnostic named " << name;
  return NAN;
}

}  // namespace sim_test
