// The 3D fluid with pressure_solver = "mg_cg" (solvers/multigrid3.hpp): the Taylor-Green box
// (periodic) and a lid-driven box (walls) follow the exact transform solver's run over a few
// steps to the pressure tolerance, in both precisions; the plan note names mg_cg and its
// levels; restarts are bit for bit; a grid that does not halve far enough is refused at the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"
#include "tests/support/backends.hpp"
#include "tests/support/fluid3d_runs.hpp"
#include "tests/support/model_values.hpp"

using namespace sim;

namespace {

using Sim = sim_test::Fluid3dRun;
using sim_test::make_fluid3d;
using sim_test::restore_checkpoint;

using sim_test::kFaceFields;

/// Runs the same case with the transform solver and with mg_cg for `steps` steps of the first
/// run's adaptive dt; expects the kinetic energies within energy_tol (relative) and the face
/// velocities within velocity_tol of the largest speed.
void compare_solvers(const Context& ctx, const std::string& cells, const std::string& length, const std::string& model,
                     const std::string& boundary, const std::string& precision, const std::string& tol, int steps,
                     double energy_tol, double velocity_tol) {
  const std::string mg_model = model + "\npressure_solver = \"mg_cg\"\npressure_tol = " + tol;
  Sim t = make_fluid3d(ctx, cells, length, model + "\npressure_solver = \"transform\"", boundary, precision);
  Sim m = make_fluid3d(ctx, cells, length, mg_model, boundary, precision);
  const std::vector<std::string> notes = m.model->plan_notes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("pressure solver mg_cg"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("levels"), std::string::npos) << notes[0];
  for (int s = 0; s < steps; ++s) {
    const double dt = t.model->next_dt(0.5);
    t.model->step(dt);
    m.model->step(dt);
  }
  const double et = sim_test::diagnostic(*t.model, "mean_kinetic_energy"), em = sim_test::diagnostic(*m.model, "mean_kinetic_energy");
  EXPECT_NEAR(em, et, energy_tol * et) << precision << " " << boundary;
  EXPECT_LT(sim_test::diagnostic(*m.model, "pressure_residual"), 10 * std::stod(tol)) << precision << " " << boundary;
  double top = 0, worst = 0;
  for (const char* name : kFaceFields) {
    const std::vector<double> a = sim_test::field_values(*t.model, name), b = sim_test::field_values(*m.model, name);
    for (std::size_t q = 0; q < a.size(); ++q) top = std::max(top, std::abs(a[q])), worst = std::max(worst, std::abs(a[q] - b[q]));
  }
  EXPECT_LT(worst, velocity_tol * top) << precision << " " << boundary;
}

template <class B>
class Fluid3dMgCg : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(Fluid3dMgCg);

TYPED_TEST(Fluid3dMgCg, TaylorGreenBoxFollowsTheTransformSolver) {
  const std::string len = std::to_string(2 * M_PI), box = "[" + len + ", " + len + ", " + len + "]";
  const std::string model = "viscosity = 0.01\ninit = \"taylor_green\"";
  compare_solvers(this->ctx, "[16, 16, 16]", box, model, "default = \"periodic\"", "float64", "1e-10", 6, 1e-9, 1e-8);
  compare_solvers(this->ctx, "[16, 16, 16]", box, model, "default = \"periodic\"", "float32", "1e-5", 6, 1e-5, 1e-4);
}

TYPED_TEST(Fluid3dMgCg, LidDrivenBoxFollowsTheTransformSolver) {
  const std::string model = "viscosity = 0.01\ntime_scheme = \"euler\"";
  const std::string walls = "default = \"wall\"\ny_hi_value = 1.0";
  compare_solvers(this->ctx, "[16, 8, 12]", "[1.0, 0.5, 0.75]", model, walls, "float64", "1e-10", 5, 1e-8, 1e-7);
}

// A checkpoint's fields (the face velocities and p, the next solve's guess) and state restore
// an mg_cg run bit for bit.
TYPED_TEST(Fluid3dMgCg, RestartIsBitForBit) {
  auto box = [&] {
    return make_fluid3d(this->ctx, "[8, 12, 10]", "[1.0, 1.5, 1.25]", "viscosity = 0.02\npressure_solver = \"mg_cg\"\npressure_tol = 1e-9",
                        "default = \"periodic\"\ny_lo = \"wall\"\ny_hi = \"wall\"\ny_hi_value = 0.5", "float64");
  };
  Sim whole = box(), first = box();
  auto advance = [](Model& m, int steps) {
    for (int s = 0; s < steps; ++s) m.step(m.next_dt(0.5));
  };
  advance(*whole.model, 6);
  advance(*first.model, 3);
  Sim second = box();
  restore_checkpoint(*first.model, *second.model);
  advance(*second.model, 3);
  for (const char* name : {"u_face", "v_face", "w_face", "p"}) {
    const std::vector<double> a = sim_test::field_values(*whole.model, name), b = sim_test::field_values(*second.model, name);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << name;
  }
  const std::vector<double> u = sim_test::field_values(*whole.model, "u_face");
  EXPECT_GT(*std::max_element(u.begin(), u.end()), 0.01);  // the lid has moved the flow
}

TYPED_TEST(Fluid3dMgCg, AGridThatDoesNotHalveIsRefusedAtTheKey) {
  try {
    make_fluid3d(this->ctx, "[22, 22, 22]", "[1.0, 1.0, 1.0]", "pressure_solver = \"mg_cg\"", "default = \"wall\"", "float64");
    ADD_FAILURE() << "22^3 (11^3 at the coarsest) was taken";
  } catch (const io::ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("pressure_solver"), std::string::npos) << msg;
    EXPECT_NE(msg.find("11x11x11"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fluid3d_test.toml:"), std::string::npos) << msg;
  }
}

}  // namespace
