// The 3D fluid's upwind-blended advection and implicit viscosity, through the Model interface:
// upwind advection of the decaying Beltrami flow converges at first order in space; a flow that
// does not vary along a periodic z matches the 2D model's with upwind advection and with
// implicit viscosity (both schemes, the dye too); implicit viscosity decays a shear wave by its
// scheme's exact amplification factor at several times the explicit limit, so its error against
// the exact decay falls at the scheme's order; a channel past an obstacle (inflow, outflow)
// matches the 2D model's with implicit viscosity; restarts are bit for bit; the GPU gives the
// CPU's flow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

namespace fluid3d_schemes_test {

using Sim = sim_test::Fluid3dRun;
using sim_test::make_fluid3d;
using sim_test::restore_checkpoint;
using sim_test::set_field;

using sim_test::diagnostic;
using sim_test::field_values;

using sim_test::abc;
using sim_test::kFaceFields;
using sim_test::max_difference;
using sim_test::on_faces;
using sim_test::run_steps;

/// 2 pi, to the last digit (the box's spacing enters the exact decay factors).
inline std::string two_pi() {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", 2 * M_PI);
  return text;
}
const std::string kTwoPi = two_pi();
const std::string kBox = "[" + kTwoPi + ", " + kTwoPi + ", " + kTwoPi + "]";

}  // namespace fluid3d_schemes_test

using namespace fluid3d_schemes_test;

template <class B>
class Fluid3dSchemes : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(Fluid3dSchemes);

// Donor-cell advection adds a numerical viscosity |u| h / 2: the Beltrami flow's error falls
// at first order in h (central advection: second, test_fluid3d.cpp).
TYPED_TEST(Fluid3dSchemes, UpwindAdvectionIsFirstOrderInSpace) {
  const double nu = 0.1, t_end = 0.5;
  std::vector<double> errors;
  std::string table;
  for (int n : {16, 32, 64}) {
    Sim s = make_fluid3d(this->ctx, "[" + std::to_string(n) + ", " + std::to_string(n) + ", " + std::to_string(n) + "]", kBox,
                         "viscosity = 0.1\nadvection = \"upwind\"", "default = \"periodic\"");
    std::vector<std::vector<double>> exact;
    for (int c = 0; c < 3; ++c) {
      set_field(*s.model, kFaceFields[c], on_faces(c, n, [&](double x, double y, double z) { return abc(c, x, y, z, nu, 0); }));
      exact.push_back(on_faces(c, n, [&](double x, double y, double z) { return abc(c, x, y, z, nu, t_end); }));
    }
    run_steps(*s.model, n, t_end / n);
    errors.push_back(max_difference(*s.model, exact));
    table += " " + std::to_string(n) + ":" + std::to_string(errors.back());
    EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-10) << n;
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log2(errors[k - 1] / errors[k]);
    std::printf("[ upwind Beltrami velocity error order %zu: %.3f (%s) ]\n", k, order, table.c_str());
    EXPECT_GE(order, 0.85) << table;
    EXPECT_LE(order, 1.15) << table;
  }
}

// A cavity with walls on x and y, a lid on y_hi moving along +x and a periodic z: the 3D model
// gives the 2D model's velocities (to rounding: the pressure transforms and the viscous CG's
// sums differ), w = 0, with upwind advection and with implicit viscosity under both schemes
// (with the dye).
TYPED_TEST(Fluid3dSchemes, FlowUniformAlongAPeriodicZMatchesThe2dModel) {
  const int n = 16, nz = 4, steps = 12;
  const double dt = 0.02;  // the explicit viscous limit at nu = 0.05 is h^2 / (4 nu) = 0.0195 in 2D
  for (const std::string scheme :
       {"advection = \"upwind\"\nupwind_weight = 0.75\ndye = \"half\"\ndye_diffusivity = 0.01\nviscosity = 0.01",
        "viscous_scheme = \"implicit\"\ntime_scheme = \"euler\"\nviscosity = 0.05",
        "viscous_scheme = \"implicit\"\nadvection = \"upwind\"\ndye = \"stripes\"\nviscosity = 0.05"}) {
    const std::string model = scheme + "\nviscous_tol = 1e-14\n";
    Sim s3 = make_fluid3d(this->ctx, "[16, 16, 4]", "[1.0, 1.0, 0.25]", model,
                          "default = \"wall\"\nz_lo = \"periodic\"\nz_hi = \"periodic\"\ny_hi_value = 1.0");
    Sim s2 = make_fluid3d(this->ctx, "[16, 16]", "[1.0, 1.0]", model, "default = \"wall\"\ny_hi_value = 1.0");
    run_steps(*s3.model, steps, dt);
    run_steps(*s2.model, steps, dt);
    const bool dye = scheme.find("dye") != std::string::npos;
    const std::vector<double> u3 = field_values(*s3.model, "u_face"), v3 = field_values(*s3.model, "v_face"),
                              w3 = field_values(*s3.model, "w_face"), d3 = dye ? field_values(*s3.model, "dye") : u3;
    const std::vector<double> u2 = field_values(*s2.model, "u_face"), v2 = field_values(*s2.model, "v_face"),
                              d2 = dye ? field_values(*s2.model, "dye") : u2;
    double du = 0, dv = 0, dd = 0, wmax = 0, umax = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < nz; ++k) {
          const std::size_t q3 = std::size_t((i * n + j) * nz + k), q2 = std::size_t(i * n + j);
          du = std::max(du, std::abs(u3[q3] - u2[q2])), dv = std::max(dv, std::abs(v3[q3] - v2[q2]));
          dd = std::max(dd, std::abs(d3[q3] - d2[q2]));
          wmax = std::max(wmax, std::abs(w3[q3])), umax = std::max(umax, std::abs(u2[q2]));
        }
    std::printf("[ z-uniform vs 2D: |du| %.2e |dv| %.2e |d dye| %.2e |w| %.2e ]\n", du, dv, dd, wmax);
    EXPECT_GT(umax, 0.1) << scheme;  // the lid has set the fluid moving
    EXPECT_LT(du, 1e-12) << scheme;
    EXPECT_LT(dv, 1e-12) << scheme;
    EXPECT_LT(dd, 1e-12) << scheme;
    EXPECT_LT(wmax, 1e-14) << scheme;
    EXPECT_LT(diagnostic(*s3.model, "max_divergence"), 1e-10) << scheme;
  }
}

// A shear wave u_c = sin(x_e) (e the next dimension) in a periodic box: no advection (the
// carrier of every flux is 0 or constant along the flow), no pressure, so the discrete flow
// decays by the viscous scheme's amplification factor per step, g = 1 / (1 + a) for backward
// Euler and (1 - a/2) / (1 + a/2) for the trapezoidal rule, a = nu dt lambda, lambda = (2 - 2
// cos h) / h^2 the 3-point Laplacian's eigenvalue. At 4 and 8 times the explicit limit the
// flow is g^N u0 to the solve's tolerance, and its error against the exact decay exp(-nu
// lambda t) falls at the scheme's order (1, 2) as dt halves. Each component in turn.
TYPED_TEST(Fluid3dSchemes, ImplicitViscosityDecaysAShearWaveByItsSchemesFactor) {
  const int n = 12;
  const double nu = 1.0, h = 2 * M_PI / n, lambda = (2 - 2 * std::cos(h)) / (h * h), t_end = 0.8;
  const double explicit_limit = h * h / (6 * nu);
  for (const std::string scheme : {"euler", "rk2"})
    for (int c = 0; c < 3; ++c) {
      const int e = (c + 1) % 3;
      double error[2];
      for (int r = 0; r < 2; ++r) {
        const int steps = 2 << r;
        const double dt = t_end / steps, a = nu * dt * lambda;
        ASSERT_GT(dt, 4 * explicit_limit);
        Sim s = make_fluid3d(this->ctx, "[12, 12, 12]", kBox,
                             "viscosity = 1.0\nviscous_scheme = \"implicit\"\nviscous_tol = 1e-14\ntime_scheme = \"" + scheme + "\"",
                             "default = \"periodic\"");
        auto wave = [&](double x, double y, double z) {
          const double p[3] = {x, y, z};
          return std::sin(p[e]);
        };
        for (int k = 0; k < 3; ++k)
          set_field(*s.model, kFaceFields[k], k == c ? on_faces(c, n, wave) : std::vector<double>(std::size_t(n * n * n), 0.0));
        run_steps(*s.model, steps, dt);
        const double g = scheme == "euler" ? 1 / (1 + a) : (1 - a / 2) / (1 + a / 2);
        const std::vector<double> u0 = on_faces(c, n, wave), u = field_values(*s.model, kFaceFields[c]);
        double off = 0, err = 0;
        for (std::size_t q = 0; q < u.size(); ++q) {
          off = std::max(off, std::abs(u[q] - std::pow(g, steps) * u0[q]));
          err = std::max(err, std::abs(u[q] - std::exp(-nu * lambda * t_end) * u0[q]));
        }
        for (int k = 0; k < 3; ++k) {  // the other components stay 0
          if (k == c) continue;
          double other = 0;
          for (double x : field_values(*s.model, kFaceFields[k])) other = std::max(other, std::abs(x));
          EXPECT_LT(other, 1e-13) << scheme << " component " << k;
        }
        EXPECT_LT(off, 1e-12) << scheme << " component " << c << " steps " << steps;
        EXPECT_GT(diagnostic(*s.model, "viscous_iterations"), 0);
        error[r] = err;
      }
      const double order = std::log2(error[0] / error[1]), expected = scheme == "euler" ? 1.0 : 2.0;
      std::printf("[ shear wave, implicit %s, component %d: time order %.3f (errors %.3e, %.3e) ]\n", scheme.c_str(), c, order,
                  error[0], error[1]);
      EXPECT_NEAR(order, expected, 0.25) << scheme << " component " << c;
    }
}

// The Beltrami flow under implicit viscosity, with advection and pressure at work: its time
// error against a run with dt / 32 falls at the scheme's order.
TYPED_TEST(Fluid3dSchemes, ImplicitViscosityHasTheSchemesOrderInTimeOnTheBeltramiFlow) {
  const int n = 12;
  const double nu = 0.5, t_end = 0.8;
  auto run = [&](const std::string& scheme, int steps) {
    Sim s = make_fluid3d(this->ctx, "[12, 12, 12]", kBox,
                         "viscosity = 0.5\nviscous_scheme = \"implicit\"\nviscous_tol = 1e-13\ntime_scheme = \"" + scheme + "\"",
                         "default = \"periodic\"");
    for (int c = 0; c < 3; ++c)
      set_field(*s.model, kFaceFields[c], on_faces(c, n, [&](double x, double y, double z) { return abc(c, x, y, z, nu, 0); }));
    run_steps(*s.model, steps, t_end / steps);
    std::vector<std::vector<double>> u;
    for (int c = 0; c < 3; ++c) u.push_back(field_values(*s.model, kFaceFields[c]));
    return std::make_pair(std::move(s), u);
  };
  for (const std::string scheme : {"euler", "rk2"}) {
    const std::vector<std::vector<double>> reference = run(scheme, 128).second;
    double error[2];
    for (int r = 0; r < 2; ++r) error[r] = max_difference(*run(scheme, 4 << r).first.model, reference);
    const double order = std::log2(error[0] / error[1]), expected = scheme == "euler" ? 1.0 : 2.0;
    std::printf("[ Beltrami, implicit %s: time order %.3f (errors %.3e, %.3e) ]\n", scheme.c_str(), order, error[0], error[1]);
    EXPECT_NEAR(order, expected, 0.25) << scheme;
  }
}

// A checkpoint's fields (the face velocities, p, the dye) and state restore a run bit for bit,
// with implicit viscosity (p carries over: the incremental pressure form; in a channel past an
// obstacle too) and upwind advection.
TYPED_TEST(Fluid3dSchemes, RestartIsBitForBit) {
  const std::string walls = "default = \"periodic\"\ny_lo = \"wall\"\ny_hi = \"wall\"\ny_hi_value = 0.5";
  const std::string channel = "x_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ny_lo = \"wall\"\ny_hi = \"wall\"\n"
                              "z_lo = \"wall\"\nz_hi = \"wall\"";
  const struct {
    std::string model, boundary;
  } cases[] = {{"init = \"taylor_green\"\nviscous_scheme = \"implicit\"\ndye = \"half\"", walls},
               {"init = \"taylor_green\"\nviscous_scheme = \"implicit\"\ntime_scheme = \"euler\"", walls},
               {"init = \"taylor_green\"\nadvection = \"upwind\"\nupwind_weight = 0.5\ndye = \"stripes\"", walls},
               {"viscous_scheme = \"implicit\"\nobstacle = \"sphere\"\nobstacle_center = [2.5, 3.0, 3.0]\nobstacle_radius = 1.2\n"
                "dye = \"stripes\"",
                channel}};
  for (const auto& c : cases) {
    const std::string& model = c.model;
    auto box = [&] { return make_fluid3d(this->ctx, "[8, 12, 10]", kBox, "viscosity = 0.05\n" + model, c.boundary); };
    Sim whole = box(), first = box();
    auto advance = [](Model& m, int steps) {
      for (int s = 0; s < steps; ++s) m.step(m.next_dt(0.5));
    };
    advance(*whole.model, 7);
    advance(*first.model, 3);
    Sim second = box();
    restore_checkpoint(*first.model, *second.model);
    advance(*second.model, 4);
    for (const char* name : {"u_face", "v_face", "w_face", "p", "dye"}) {
      if (std::string(name) == "dye" && model.find("dye") == std::string::npos) continue;
      const std::vector<double> a = field_values(*whole.model, name), b = field_values(*second.model, name);
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << name << ": " << model;
    }
  }
}

// A channel with a box spanning the periodic z (the inflow on x_lo, the outflow on x_hi, walls
// on y, dye streaming in): with implicit viscosity under both schemes the 3D model gives the 2D
// model's velocities and dye (the outflow's rules in the incremental pressure form, the
// obstacle's closed faces in the viscous solve), w = 0.
TYPED_TEST(Fluid3dSchemes, ImplicitChannelPastABoxAcrossAPeriodicZMatchesThe2dModel) {
  for (const std::string scheme : {"euler", "rk2"}) {
    const std::string common = "viscosity = 0.05\npressure_tol = 1e-13\nviscous_tol = 1e-14\nobstacle = \"box\"\ndye = \"stripes\"\n"
                               "viscous_scheme = \"implicit\"\nadvection = \"upwind\"\nupwind_weight = 0.5\ntime_scheme = \"" +
                               scheme + "\"\n";
    Sim s3 = make_fluid3d(this->ctx, "[24, 12, 3]", "[2.0, 1.0, 0.25]", common + "obstacle_center = [0.6, 0.55, 0.125]\nobstacle_size = [0.25, 0.3, 1.0]",
                          "x_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ny_lo = \"wall\"\ny_hi = \"wall\"\nz_lo = \"periodic\"\n"
                          "z_hi = \"periodic\"");
    Sim s2 = make_fluid3d(this->ctx, "[24, 12]", "[2.0, 1.0]",
                          common + "pressure_solver = \"cg\"\nobstacle_center = [0.6, 0.55]\nobstacle_size = [0.25, 0.3]",
                          "x_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ny_lo = \"wall\"\ny_hi = \"wall\"");
    for (int s = 0; s < 12; ++s) {
      const double dt = 0.04;  // twice the explicit viscous limit h^2 / (4 nu) = 0.0174
      s3.model->step(dt), s2.model->step(dt);
    }
    const std::vector<double> u3 = field_values(*s3.model, "u_face"), v3 = field_values(*s3.model, "v_face"),
                              w3 = field_values(*s3.model, "w_face"), d3 = field_values(*s3.model, "dye");
    const std::vector<double> u2 = field_values(*s2.model, "u_face"), v2 = field_values(*s2.model, "v_face"),
                              d2 = field_values(*s2.model, "dye");
    double du = 0, dv = 0, wmax = 0, dd = 0, vmax = 0;
    for (int i = 0; i < 24; ++i)
      for (int j = 0; j < 12; ++j)
        for (int k = 0; k < 3; ++k) {
          const std::size_t q3 = std::size_t((i * 12 + j) * 3 + k), q2 = std::size_t(i * 12 + j);
          du = std::max(du, std::abs(u3[q3] - u2[q2])), dv = std::max(dv, std::abs(v3[q3] - v2[q2]));
          wmax = std::max(wmax, std::abs(w3[q3])), dd = std::max(dd, std::abs(d3[q3] - d2[q2]));
          vmax = std::max(vmax, std::abs(v2[q2]));
        }
    std::printf("[ implicit %s channel past a box, z-uniform vs 2D: |du| %.2e |dv| %.2e |d dye| %.2e |w| %.2e ]\n", scheme.c_str(),
                du, dv, dd, wmax);
    EXPECT_GT(vmax, 0.1) << scheme;  // the flow turns around the box
    EXPECT_LT(du, 1e-10) << scheme;
    EXPECT_LT(dv, 1e-10) << scheme;
    EXPECT_LT(dd, 1e-10) << scheme;
    EXPECT_LT(wmax, 1e-12) << scheme;
    EXPECT_GT(diagnostic(*s3.model, "viscous_iterations"), 0) << scheme;
    EXPECT_LT(diagnostic(*s3.model, "max_divergence"), 1e-9) << scheme;
  }
}

// The GPU's steps give the CPU's flow (to rounding) with upwind advection and implicit
// viscosity, walled and periodic. Skips without a GPU.
TEST(Fluid3dSchemesBackends, GpuMatchesCpu) {
  SIM_REQUIRE_GPU();
  const Context cpu = Context::create(BackendRequest::cpu, ContextOptions{0, 1});
  const Context gpu = Context::create(BackendRequest::cuda, ContextOptions{0, 1});
  for (const std::string model : {"advection = \"upwind\"\ndye = \"half\"", "viscous_scheme = \"implicit\"\ndye = \"half\"",
                                  "viscous_scheme = \"implicit\"\ntime_scheme = \"euler\"\nadvection = \"upwind\""}) {
    const std::string boundary = "default = \"wall\"\ny_hi_value = 1.0\nz_lo = \"periodic\"\nz_hi = \"periodic\"";
    Sim a = make_fluid3d(cpu, "[16, 12, 10]", kBox, "viscosity = 0.02\ninit = \"taylor_green\"\nviscous_tol = 1e-13\n" + model, boundary);
    Sim b = make_fluid3d(gpu, "[16, 12, 10]", kBox, "viscosity = 0.02\ninit = \"taylor_green\"\nviscous_tol = 1e-13\n" + model, boundary);
    for (int s = 0; s < 10; ++s) {
      const double dt = a.model->next_dt(0.5);
      a.model->step(dt), b.model->step(dt);
    }
    for (const char* name : {"u_face", "v_face", "w_face", "dye"}) {
      if (std::string(name) == "dye" && model.find("dye") == std::string::npos) continue;  // (the third run has none)
      const std::vector<double> x = field_values(*a.model, name), y = field_values(*b.model, name);
      double d = 0;
      for (std::size_t q = 0; q < x.size(); ++q) d = std::max(d, std::abs(x[q] - y[q]));
      EXPECT_LT(d, 1e-11) << name << " " << model;
    }
  }
}
