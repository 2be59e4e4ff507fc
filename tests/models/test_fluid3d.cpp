// Verification of the fluid model on 3D grids through the Model interface: the decaying
// Arnold-Beltrami-Childress flow (an exact Navier-Stokes solution) converges at second order
// in space and at the scheme's order in time; a flow that does not vary along a periodic z
// matches the 2D model (walls and a moving lid); the 3D Taylor-Green vortex starts with its
// known energy and stays divergence-free; restarts are bit for bit; what the 3D model does not
// do yet is refused at the config key. (Inflow, outflow, obstacles and the dye: fluid/test_fluid3d_obstacles.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/runtime/device_clock.hpp"
#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"
#include "tests/support/backends.hpp"
#include "tests/support/fluid3d_runs.hpp"
#include "tests/support/model_values.hpp"

using namespace sim;

namespace fluid3d_test {

using Sim = sim_test::Fluid3dRun;
using sim_test::make_fluid3d;
using sim_test::restore_checkpoint;
using sim_test::set_field;

using sim_test::diagnostic;
using sim_test::field_values;

using sim_test::abc;
using sim_test::kFaceFields;
using sim_test::max_difference;
using sim_test::run_steps;

/// The ABC flow at time t on the faces of n^3 cells, per component (row-major).
inline std::vector<double> abc_faces(int c, int n, double nu, double t) {
  return sim_test::on_faces(c, n, [&](double x, double y, double z) { return abc(c, x, y, z, nu, t); });
}

/// A periodic n^3 box holding the ABC flow at t = 0 (viscosity nu, time scheme scheme).
inline Sim abc_box(const Context& ctx, int n, double nu, const std::string& scheme) {
  const std::string len = std::to_string(2 * M_PI);
  Sim s = make_fluid3d(ctx, "[" + std::to_string(n) + ", " + std::to_string(n) + ", " + std::to_string(n) + "]",
                       "[" + len + ", " + len + ", " + len + "]",
                       "viscosity = " + std::to_string(nu) + "\ntime_scheme = \"" + scheme + "\"", "default = \"periodic\"");
  for (int c = 0; c < 3; ++c) set_field(*s.model, kFaceFields[c], abc_faces(c, n, nu, 0.0));
  return s;
}

}  // namespace fluid3d_test

using namespace fluid3d_test;

template <class B>
class Fluid3d : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(Fluid3d);

TYPED_TEST(Fluid3d, BeltramiFlowIsSecondOrderInSpace) {
  const double nu = 0.1, t_end = 0.5;
  std::vector<double> errors;
  std::string table;
  for (int n : {8, 16, 32}) {
    Sim s = abc_box(this->ctx, n, nu, "rk2");
    const int steps = n;  // dt = t_end / n, proportional to h
    run_steps(*s.model, steps, t_end / steps);
    std::vector<std::vector<double>> exact;
    for (int c = 0; c < 3; ++c) exact.push_back(abc_faces(c, n, nu, t_end));
    errors.push_back(max_difference(*s.model, exact));
    table += " " + std::to_string(n) + ":" + std::to_string(errors.back());
    EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-10) << n;
    EXPECT_LT(diagnostic(*s.model, "pressure_residual"), 1e-11) << n;
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log2(errors[k - 1] / errors[k]);
    std::printf("[ Beltrami velocity error order %zu: %.3f (%s) ]\n", k, order, table.c_str());
    EXPECT_GE(order, 1.8) << table;
    EXPECT_LE(order, 2.2) << table;
  }
}

TYPED_TEST(Fluid3d, BeltramiFlowHasTheSchemesOrderInTime) {
  const double nu = 0.1, t_end = 0.4;
  const int n = 12;
  Sim ref = abc_box(this->ctx, n, nu, "rk3");
  run_steps(*ref.model, 256, t_end / 256);
  std::vector<std::vector<double>> reference;
  for (int c = 0; c < 3; ++c) reference.push_back(field_values(*ref.model, kFaceFields[c]));
  for (const std::string scheme : {"euler", "rk2", "rk3"}) {
    double error[2];
    for (int r = 0; r < 2; ++r) {
      const int steps = 4 << r;
      Sim s = abc_box(this->ctx, n, nu, scheme);
      run_steps(*s.model, steps, t_end / steps);
      error[r] = max_difference(*s.model, reference);
    }
    const double order = std::log2(error[0] / error[1]), expected = scheme == "euler" ? 1.0 : scheme == "rk2" ? 2.0 : 3.0;
    std::printf("[ Beltrami %s time order: %.3f (errors %.3e, %.3e) ]\n", scheme.c_str(), order, error[0], error[1]);
    EXPECT_NEAR(order, expected, 0.2) << scheme;
  }
}

// A cavity with walls on x and y, a lid on y_hi moving along +x and a periodic z: a flow that
// does not vary along z, so the 3D model must give the 2D model's velocities (to rounding: the
// two solve the pressure with different transforms), with w = 0.
TYPED_TEST(Fluid3d, FlowUniformAlongAPeriodicZMatchesThe2dModel) {
  const int n = 16, steps = 20;
  const double dt = 0.01;
  Sim s3 = make_fluid3d(this->ctx, "[16, 16, 4]", "[1.0, 1.0, 0.25]", "viscosity = 0.01\ntime_scheme = \"rk2\"",
                        "default = \"wall\"\nz_lo = \"periodic\"\nz_hi = \"periodic\"\ny_hi_value = 1.0");
  Sim s2 = make_fluid3d(this->ctx, "[16, 16]", "[1.0, 1.0]", "viscosity = 0.01\ntime_scheme = \"rk2\"", "default = \"wall\"\ny_hi_value = 1.0");
  run_steps(*s3.model, steps, dt);
  run_steps(*s2.model, steps, dt);
  const std::vector<double> u3 = field_values(*s3.model, "u_face"), v3 = field_values(*s3.model, "v_face"),
                            w3 = field_values(*s3.model, "w_face");
  const std::vector<double> u2 = field_values(*s2.model, "u_face"), v2 = field_values(*s2.model, "v_face");
  double du = 0, dv = 0, wmax = 0, umax = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < 4; ++k) {
        const std::size_t q3 = std::size_t((i * n + j) * 4 + k), q2 = std::size_t(i * n + j);
        du = std::max(du, std::abs(u3[q3] - u2[q2])), dv = std::max(dv, std::abs(v3[q3] - v2[q2]));
        wmax = std::max(wmax, std::abs(w3[q3])), umax = std::max(umax, std::abs(u2[q2]));
      }
  EXPECT_GT(umax, 0.1);  // the lid has set the fluid moving
  EXPECT_LT(du, 1e-12);
  EXPECT_LT(dv, 1e-12);
  EXPECT_LT(wmax, 1e-14);
  EXPECT_LT(diagnostic(*s3.model, "max_divergence"), 1e-10);
}

// The 3D Taylor-Green vortex on [0, 2 pi)^3: mean kinetic energy 1/8 at the start (to the
// grid's sampling), divergence-free, and decaying.
TYPED_TEST(Fluid3d, TaylorGreenStartsWithItsEnergyAndDecays) {
  const std::string len = std::to_string(2 * M_PI);
  for (const std::string precision : {"float64", "float32"}) {
    Sim s = make_fluid3d(this->ctx, "[16, 16, 16]", "[" + len + ", " + len + ", " + len + "]",
                         "viscosity = 0.01\ninit = \"taylor_green\"", "default = \"periodic\"", precision);
    const double k0 = diagnostic(*s.model, "mean_kinetic_energy");
    EXPECT_NEAR(k0, 0.125, 0.125 * 0.01) << precision;
    double t = 0;
    while (t < 0.5) {
      const double dt = s.model->next_dt(0.5);
      s.model->step(dt);
      t += dt;
    }
    const double k1 = diagnostic(*s.model, "mean_kinetic_energy");
    EXPECT_LT(k1, k0) << precision;
    EXPECT_GT(k1, 0.9 * k0) << precision;
    EXPECT_GT(diagnostic(*s.model, "dissipation"), 0) << precision;
    EXPECT_LT(diagnostic(*s.model, "max_divergence"), precision == "float64" ? 1e-10 : 1e-3) << precision;
  }
}

// In the box periodic all round the projection writes the faces' periodic copies into the ghost
// layers and the next stage reads them without a fill; a passive dye keeps the fill before
// every stage (its ghosts). The dye does not act on the flow, so both give the same velocity
// bit for bit: the copies are what the fill makes (uneven sides, each scheme, both precisions).
TYPED_TEST(Fluid3d, ProjectionsGhostCopiesAreTheGhostFill) {
  const std::string len = std::to_string(2 * M_PI);
  for (const std::string precision : {"float64", "float32"})
    for (const char* scheme : {"euler", "rk2", "rk3"}) {
      auto box = [&](const char* dye) {
        return make_fluid3d(this->ctx, "[8, 12, 6]", "[" + len + ", " + len + ", " + len + "]",
                            std::string("viscosity = 0.02\ninit = \"taylor_green\"\ntime_scheme = \"") + scheme +
                                "\"\ndye = \"" + dye + "\"",
                            "default = \"periodic\"", precision);
      };
      Sim filled = box("half"), copied = box("none");
      for (int step = 0; step < 6; ++step) {
        const double dt = copied.model->next_dt(0.5);
        filled.model->step(dt), copied.model->step(dt);
      }
      for (const char* name : kFaceFields) {
        const std::vector<double> a = field_values(*filled.model, name), b = field_values(*copied.model, name);
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << precision << ", " << scheme << ": " << name;
      }
      EXPECT_GT(diagnostic(*copied.model, "mean_kinetic_energy"), 0.1) << precision << ", " << scheme;
    }
}

// A checkpoint's fields (the face velocities and p) and state restore a run bit for bit: walls on
// y with a moving one (the per-axis transforms), and the box periodic all round (the fused
// solve, p kept in its buffers), with Heun and with RK3.
TYPED_TEST(Fluid3d, RestartIsBitForBit) {
  const std::string len = std::to_string(2 * M_PI);
  for (const char* sides : {"default = \"periodic\"\ny_lo = \"wall\"\ny_hi = \"wall\"\ny_hi_value = 0.5", "default = \"periodic\""})
    for (const char* scheme : {"rk2", "rk3"}) {
      auto box = [&] {
        return make_fluid3d(this->ctx, "[8, 12, 10]", "[" + len + ", " + len + ", " + len + "]",
                            std::string("viscosity = 0.02\ninit = \"taylor_green\"\ntime_scheme = \"") + scheme + "\"", sides);
      };
      Sim whole = box(), first = box();
      auto advance = [](Model& m, int steps) {
        for (int s = 0; s < steps; ++s) m.step(m.next_dt(0.5));
      };
      advance(*whole.model, 7);
      advance(*first.model, 3);
      Sim second = box();
      restore_checkpoint(*first.model, *second.model);
      advance(*second.model, 4);
      for (const char* name : {"u_face", "v_face", "w_face", "p"}) {
        const std::vector<double> a = field_values(*whole.model, name), b = field_values(*second.model, name);
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << sides << ", " << scheme << ": " << name;
      }
    }
}

// Steps whose dt the device chooses (run_device_steps: the run's batches, CflDt3 on the
// device) give the bits of next_dt() and step() one at a time: the Taylor-Green box (the fused
// periodic solve) and in a walled box with a lid (the per-axis transforms), Euler, Heun and RK3, both
// precisions, through an odd batch cut at a horizon step, one cut at a horizon time and one
// that lands on the end time. The obstacle's and mg_cg's steps stay host-clocked.
// A marked step (Model::marked_step: queued as it goes, a mark between its phases) is the
// step: the same bits as step() and as the replayed step, and its phases those of the path the
// box takes (one rank: the fused solve of a box periodic all round, else the ghost fill and the
// projection with its solve), one of each a stage.
TYPED_TEST(Fluid3d, MarkedStepIsTheStepWithItsPhases) {
  const std::string len = std::to_string(2 * M_PI), cube = "[" + len + ", " + len + ", " + len + "]";
  const std::string model = "viscosity = 0.02\ntime_scheme = \"rk2\"\ninit = \"taylor_green\"";
  for (const bool periodic : {true, false}) {
    const char* sides = periodic ? "default = \"periodic\"" : "default = \"wall\"\ny_hi_value = 1.0";
    Sim plain = make_fluid3d(this->ctx, "[8, 10, 6]", cube, model, sides, "float64");
    Sim marked = make_fluid3d(this->ctx, "[8, 10, 6]", cube, model, sides, "float64");
    const double dt = plain.model->next_dt(0.6);
    std::vector<std::pair<std::string, double>> phases;
    for (int k = 0; k < 3; ++k) plain.model->step(dt), phases = marked.model->marked_step(dt);
    marked.model->step(dt), plain.model->step(dt);  // (the replayed step goes on from a marked one)
    for (const char* name : {"u_face", "v_face", "w_face", "p"}) {
      const std::vector<double> a = field_values(*plain.model, name), b = field_values(*marked.model, name);
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << sides << ": " << name;
    }
    std::map<std::string, int> count;
    for (const auto& [label, ms] : phases) {
      ++count[label];
      EXPECT_GE(ms, 0.0) << label;
    }
    const std::map<std::string, int> expected =
        periodic ? std::map<std::string, int>{{"momentum", 2}, {"pressure rhs", 2}, {"pressure solve", 2}, {"projection", 2}}
                 : std::map<std::string, int>{{"ghost fill and exchanges", 2}, {"momentum", 2}, {"projection", 2}};
    EXPECT_EQ(count, expected) << sides;
  }
}

TYPED_TEST(Fluid3d, DeviceClockedStepsAreTheHostStepsBitForBit) {
  const std::string len = std::to_string(2 * M_PI), cube = "[" + len + ", " + len + ", " + len + "]";
  const std::pair<const char*, const char*> boxes[2] = {{"init = \"taylor_green\"", "default = \"periodic\""},
                                                        {"init = \"taylor_green\"", "default = \"wall\"\ny_hi_value = 1.0"}};
  for (const auto& [init, sides] : boxes)
    for (const char* precision : {"float64", "float32"})
      for (const char* scheme : {"euler", "rk2", "rk3"}) {
        const std::string model = std::string("viscosity = 0.02\ntime_scheme = \"") + scheme + "\"\n" + init;
        const std::string what = std::string(sides) + " " + precision + " " + scheme;
        const double end = 2.4, cfl = 0.6;
        Sim host = make_fluid3d(this->ctx, "[8, 10, 6]", cube, model, sides, precision);
        double t = 0, dt = 0;
        int steps = 0;
        while (!reached(t, end)) {  // the run's TimeStepper
          dt = host.model->next_dt(cfl);
          const bool last = reached(t + dt, end);
          host.model->step(last ? end - t : dt);
          t = last ? end : t + dt, ++steps;
        }
        Sim dev = make_fluid3d(this->ctx, "[8, 10, 6]", cube, model, sides, precision);
        DeviceClock clock(this->ctx);
        ClockState s;
        s.end_time = end, s.horizon_step = 3;  // an odd batch: the next loop starts from the other parity
        clock.start(s);
        const std::int64_t first = dev.model->run_device_steps(clock, cfl);
        ASSERT_EQ(first, 3) << what;
        ClockState next = clock.host();
        next.horizon_step = ClockState{}.horizon_step, next.horizon_time = 0.9, next.running = 1;
        clock.start(next);
        const std::int64_t second = dev.model->run_device_steps(clock, cfl);
        ASSERT_GT(second, 0) << what;
        EXPECT_TRUE(reached(clock.host().time, 0.9) && !reached(clock.host().time - clock.host().dt, 0.9)) << what;
        ClockState rest = clock.host();
        rest.horizon_time = ClockState{}.horizon_time, rest.running = 1;
        clock.start(rest);
        const std::int64_t third = dev.model->run_device_steps(clock, cfl);
        EXPECT_GT(steps, 6) << what;
        EXPECT_EQ(first + second + third, steps) << what;
        EXPECT_EQ(clock.host().time, end) << what;
        EXPECT_EQ(clock.host().dt_chosen, dt) << what;
        dev.model->step(dev.model->next_dt(cfl)), host.model->step(host.model->next_dt(cfl));  // the host steps go on from there
        for (const char* name : {"u_face", "v_face", "w_face", "p"}) {
          const std::vector<double> a = field_values(*host.model, name), b = field_values(*dev.model, name);
          ASSERT_EQ(a.size(), b.size());
          EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << what << ": " << name;
        }
        EXPECT_EQ(diagnostic(*host.model, "cfl"), diagnostic(*dev.model, "cfl")) << what;
      }
  Sim cg = make_fluid3d(this->ctx, "[8, 8, 8]", "[1.0, 1.0, 1.0]", "pressure_solver = \"mg_cg\"", "default = \"wall\"");
  DeviceClock clock(this->ctx);
  clock.start(ClockState{});
  EXPECT_EQ(cg.model->run_device_steps(clock, 0.5), -1);
}

/// The ConfigError message of building a 3D fluid with these [model] / [boundary] lines, or "" if it builds.
inline std::string config_error(const Context& ctx, const std::string& model, const std::string& boundary) {
  try {
    make_fluid3d(ctx, "[8, 8, 8]", "[1.0, 1.0, 1.0]", model, boundary);
  } catch (const io::ConfigError& e) {
    return e.what();
  }
  return "";
}

TYPED_TEST(Fluid3d, WhatIsNotDoneIn3dIsRefusedAtItsKey) {
  const struct {
    const char* model;
    const char* boundary;
    const char* key;
  } cases[] = {{"pressure_solver = \"jacobi\"", "", "pressure_solver"},
               {"pressure_solver = \"multigrid\"", "", "pressure_solver"}};
  for (const auto& c : cases) {
    const std::string msg = config_error(this->ctx, c.model, c.boundary);
    EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
    EXPECT_NE(msg.find("not available on 3D grids"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fluid3d_test.toml:"), std::string::npos) << msg;
  }
  EXPECT_EQ(config_error(this->ctx, "pressure_solver = \"transform\"", "default = \"wall\""), "");
  EXPECT_EQ(config_error(this->ctx, "viscous_scheme = \"implicit\"\nadvection = \"upwind\"", "default = \"wall\""), "");
  const std::string rk3 = config_error(this->ctx, "viscous_scheme = \"implicit\"\ntime_scheme = \"rk3\"", "default = \"wall\"");
  EXPECT_NE(rk3.find("time_scheme"), std::string::npos) << rk3;
  EXPECT_NE(rk3.find("explicit viscosity"), std::string::npos) << rk3;
}

// The lid-driven cubic cavity (walls on all six faces, the y_hi lid along +x): the flow is
// mirror-symmetric about the mid-plane z = 1/2 (u, v even, w odd), it is truly 3D (w != 0
// near the side walls), and it stays divergence-free.
TYPED_TEST(Fluid3d, CubicCavityIsSymmetricAboutItsMidPlane) {
  const int n = 12;
  Sim s = make_fluid3d(this->ctx, "[12, 12, 12]", "[1.0, 1.0, 1.0]", "viscosity = 0.01", "default = \"wall\"\ny_hi_value = 1.0");
  run_steps(*s.model, 30, 0.005);
  const std::vector<double> u = field_values(*s.model, "u_face"), v = field_values(*s.model, "v_face"),
                            w = field_values(*s.model, "w_face");
  auto at = [&](int i, int j, int k) { return std::size_t((i * n + j) * n + k); };
  double asym = 0, wmax = 0, umax = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        asym = std::max({asym, std::abs(u[at(i, j, k)] - u[at(i, j, n - 1 - k)]), std::abs(v[at(i, j, k)] - v[at(i, j, n - 1 - k)])});
        if (k > 0) asym = std::max(asym, std::abs(w[at(i, j, k)] + w[at(i, j, n - k)]));  // w on z-faces: face k mirrors n - k
        wmax = std::max(wmax, std::abs(w[at(i, j, k)])), umax = std::max(umax, std::abs(u[at(i, j, k)]));
      }
  EXPECT_GT(umax, 0.2);
  EXPECT_GT(wmax, 1e-4);
  EXPECT_LT(asym, 1e-12);
  EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-10);
}

// The GPU's steps give the CPU's flow (to rounding: the FFTs and the fused multiply-adds differ),
// periodic (one 3D FFT) and walled (per-axis transforms). Skips without a GPU.
TEST(Fluid3dBackends, GpuMatchesCpu) {
  SIM_REQUIRE_GPU();
  const Context cpu = Context::create(BackendRequest::cpu, ContextOptions{0, 1});
  const Context gpu = Context::create(BackendRequest::cuda, ContextOptions{0, 1});
  const std::string len = std::to_string(2 * M_PI);
  for (const std::string boundary : {"default = \"periodic\"", "default = \"wall\"\ny_hi_value = 1.0\nz_lo = \"periodic\"\nz_hi = \"periodic\""})
    for (const std::string precision : {"float64", "float32"}) {
      Sim a = make_fluid3d(cpu, "[16, 12, 10]", "[" + len + ", " + len + ", " + len + "]", "viscosity = 0.02\ninit = \"taylor_green\"",
                           boundary, precision);
      Sim b = make_fluid3d(gpu, "[16, 12, 10]", "[" + len + ", " + len + ", " + len + "]", "viscosity = 0.02\ninit = \"taylor_green\"",
                           boundary, precision);
      for (int s = 0; s < 10; ++s) {
        const double dt = a.model->next_dt(0.5);
        a.model->step(dt), b.model->step(dt);
      }
      const double tol = precision == "float64" ? 1e-12 : 1e-5;
      for (const char* name : kFaceFields) {
        const std::vector<double> x = field_values(*a.model, name), y = field_values(*b.model, name);
        double d = 0;
        for (std::size_t q = 0; q < x.size(); ++q) d = std::max(d, std::abs(x[q] - y[q]));
        EXPECT_LT(d, tol) << name << " " << precision << " " << boundary;
      }
    }
}
