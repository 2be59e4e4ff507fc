// Verification of the fluid model through the Model interface: Taylor-Green decay (second
// order in space), the lid-driven cavity against Ghia, Ghia & Shin (1982), the pressure
// solvers agreeing, GPU/CPU agreement, divergence at the solver tolerance, and bit-identical
// restarts (including an outflow channel with an obstacle).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/runtime/error.hpp"
#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"
#include "tests/models/ghia1982.hpp"
#include "tests/support/backends.hpp"
#include "tests/support/model_values.hpp"
#include "core/runtime/tuning.hpp"

using namespace sim;

namespace fluid_test {

struct Sim {
  std::unique_ptr<io::Config> config;
  std::unique_ptr<Model> model;
  Model* operator->() const { return model.get(); }
};

/// The fluid model on n x m cells of [0, 1] x [0, L] with the lines given, initialized: lines
/// that set a face (default, x_lo, ..., y_hi and their _value) go under [boundary], the rest under [model].
inline Sim make(const Context& ctx, int n, int m, const std::string& lines, double ly = 1.0,
                const std::string& precision = "float64") {
  static const ModelRegistry registry = builtin_models();
  std::string model, boundary;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);) {
    const std::string key = line.substr(0, line.find(' '));
    const bool face = key.rfind("default", 0) == 0 || (key.size() >= 4 && key[1] == '_' && (key.compare(2, 2, "lo") == 0 ||
                                                                                            key.compare(2, 2, "hi") == 0));
    (face ? boundary : model) += line + "\n";
  }
  const std::string text = "[run]\nmodel = \"fluid\"\nsteps = 1\nprecision = \"" + precision + "\"\n[grid]\ncells = [" +
                           std::to_string(n) + ", " + std::to_string(m) + "]\nlength = [1.0, " + std::to_string(ly) +
                           "]\n[model]\n" + model + "[boundary]\n" + boundary;
  Sim s{std::make_unique<io::Config>(io::Config::parse(text, "test_fluid.toml")), nullptr};
  s.model = build_model(registry, ctx, *s.config);
  s.model->initialize();
  return s;
}

inline std::vector<double> field(Model& m, const std::string& name) { return sim_test::field_values(m, name); }
using sim_test::diagnostic;

/// Runs to time t_end with the model's adaptive dt at Courant number cfl; returns the steps.
inline int run_to(Model& m, double t_end, double cfl) {
  double t = 0;
  int steps = 0;
  while (t < t_end * (1 - 1e-12)) {
    const double dt = std::min(m.next_dt(cfl), t_end - t);
    m.step(dt);
    t += dt, ++steps;
  }
  return steps;
}

/// Linear interpolation of samples f at positions x (ascending) to position at.
inline double interp(const std::vector<double>& x, const std::vector<double>& f, double at) {
  if (at <= x.front()) return f.front();
  for (std::size_t k = 1; k < x.size(); ++k)
    if (at <= x[k]) return f[k - 1] + (f[k] - f[k - 1]) * (at - x[k - 1]) / (x[k] - x[k - 1]);
  return f.back();
}

/// Largest deviation of the cavity's centreline profiles from Ghia's table (n x n cells, even n).
inline double ghia_deviation(Model& m, int n, const ghia::Table& table, std::string* report) {
  const std::vector<double> u = field(m, "u_face"), v = field(m, "v_face");
  std::vector<double> pos(std::size_t(n) + 2), ul(pos.size()), vl(pos.size());
  pos.front() = 0, pos.back() = 1, ul.front() = 0, ul.back() = 1, vl.front() = 0, vl.back() = 0;  // walls and lid
  for (int k = 0; k < n; ++k) {
    pos[std::size_t(k) + 1] = (k + 0.5) / n;
    ul[std::size_t(k) + 1] = u[std::size_t((n / 2) * n + k)];  // faces i = n/2 lie on x = 0.5
    vl[std::size_t(k) + 1] = v[std::size_t(k * n + n / 2)];    // faces j = n/2 lie on y = 0.5
  }
  double worst = 0;
  for (const ghia::Point& p : table.u) {
    const double d = std::abs(interp(pos, ul, p.at) - p.value);
    worst = std::max(worst, d);
    if (report) *report += " u(" + std::to_string(p.at) + ")=" + std::to_string(interp(pos, ul, p.at));
  }
  for (const ghia::Point& p : table.v) worst = std::max(worst, std::abs(interp(pos, vl, p.at) - p.value));
  return worst;
}

}  // namespace fluid_test

using namespace fluid_test;

template <class B>
class Fluid : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(Fluid);

// u = sin(2 pi x) cos(2 pi y) e^{-8 pi^2 nu t}, v = -cos(2 pi x) sin(2 pi y) e^{-8 pi^2 nu t}.
TYPED_TEST(Fluid, TaylorGreenDecayIsSecondOrderInSpace) {
  const double nu = 0.05, t_end = 0.2;
  std::vector<double> errors;
  std::string table;
  for (int n : {16, 32, 64}) {
    Sim s = make(this->ctx, n, n,
                 "viscosity = 0.05\ndefault = \"periodic\"\n"
                 "init = \"taylor_green\"\npressure_tol = 1e-11\n");
    run_to(*s.model, t_end, 0.4);
    const std::vector<double> u = field(*s.model, "u_face"), v = field(*s.model, "v_face");
    const double decay = std::exp(-8 * M_PI * M_PI * nu * t_end), h = 1.0 / n;
    double err = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const double xf = i * h, xc = (i + 0.5) * h, yf = j * h, yc = (j + 0.5) * h;
        err = std::max(err, std::abs(u[std::size_t(i * n + j)] - std::sin(2 * M_PI * xf) * std::cos(2 * M_PI * yc) * decay));
        err = std::max(err, std::abs(v[std::size_t(i * n + j)] + std::cos(2 * M_PI * xc) * std::sin(2 * M_PI * yf) * decay));
      }
    errors.push_back(err);
    table += " " + std::to_string(n) + ":" + std::to_string(err);
    EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-7) << n;
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log2(errors[k - 1] / errors[k]);
    std::printf("[ Taylor-Green velocity error order %zu: %.3f (%s) ]\n", k, order, table.c_str());
    EXPECT_GE(order, 1.8) << table;
    EXPECT_LE(order, 2.2) << table;
  }
}

// The explicit schemes' order in time on the decaying Taylor-Green vortex of a periodic 16^2
// box (cfl 0.5), against RK3 with dt / 32 on the same grid: 1 for euler, 2 for rk2, 3 for rk3.
TYPED_TEST(Fluid, ExplicitSchemesConvergeInTimeWithTheirOrder) {
  const double t_end = 0.5;
  const std::string lines =
      "viscosity = 0.01\ndefault = \"periodic\"\ninit = \"taylor_green\"\ninit_velocity = 0.5\ntime_scheme = \"";
  auto run = [&](const char* scheme, int steps) {
    Sim s = make(this->ctx, 16, 16, lines + scheme + "\"\n");
    for (int k = 0; k < steps; ++k) s->step(t_end / steps);
    return field(*s.model, "u_face");
  };
  const std::vector<double> reference = run("rk3", 512);
  for (const char* scheme : {"euler", "rk2", "rk3"}) {
    double error[2];
    for (int r = 0; r < 2; ++r) {
      const std::vector<double> u = run(scheme, 16 << r);
      error[r] = 0;
      for (std::size_t k = 0; k < u.size(); ++k) error[r] = std::max(error[r], std::abs(u[k] - reference[k]));
    }
    const double order = std::log2(error[0] / error[1]);
    const double expected = scheme[0] == 'e' ? 1.0 : scheme[2] == '2' ? 2.0 : 3.0;
    std::printf("[ Taylor-Green %s time order: %.3f (errors %.3e, %.3e) ]\n", scheme, order, error[0], error[1]);
    EXPECT_NEAR(order, expected, 0.2) << scheme;
  }
  EXPECT_THROW(make(this->ctx, 16, 16, "viscous_scheme = \"implicit\"\ntime_scheme = \"rk3\"\n"), io::ConfigError);
}

TYPED_TEST(Fluid, EveryPressureSolverGivesTheSameFlow) {
  std::vector<double> reference;
  for (const char* solver : {"mg_cg", "cg", "multigrid", "jacobi", "transform"}) {
    Sim s = make(this->ctx, 32, 32,
                 std::string("viscosity = 0.01\ny_hi_value = 1.0\npressure_tol = 1e-10\npressure_solver = \"") +
                     solver + "\"\n");
    for (int k = 0; k < 20; ++k) s->step(0.002);
    const bool exact = std::string(solver) == "transform";
    EXPECT_LT(diagnostic(*s.model, "max_divergence"), exact ? 1e-10 : 1e-6) << solver;
    EXPECT_LE(diagnostic(*s.model, "pressure_residual"), exact ? 1e-13 : 1e-10) << solver;
    if (exact) EXPECT_EQ(diagnostic(*s.model, "pressure_iterations"), 0) << solver;
    else EXPECT_GT(diagnostic(*s.model, "pressure_iterations"), 0) << solver;
    const std::vector<double> u = field(*s.model, "u_face");
    if (reference.empty()) {
      reference = u;
      continue;
    }
    double d = 0;
    for (std::size_t k = 0; k < u.size(); ++k) d = std::max(d, std::abs(u[k] - reference[k]));
    EXPECT_LT(d, 1e-8) << solver << " differs from mg_cg";
  }
}

// The default solver ("auto") is the exact transform solve on rectangles without obstacles
// (walls: DCT-II/III; periodic: the real DFT; an outflow: DCT-IV), leaving a divergence at
// rounding level (1e-12 of U / h), with implicit viscosity too; with an obstacle on one rank
// it is the same transforms with a capacitance correction, and the plan says so.
TYPED_TEST(Fluid, AutoSolverIsExactWithoutObstacles) {
  struct Case {
    const char* model;
    const char* transforms;
  } cases[] = {
      {"viscosity = 0.01\ny_hi_value = 1.0\n", "DCT-II/III x DCT-II/III"},
      {"viscosity = 0.01\ndefault = \"periodic\"\n"
       "init = \"taylor_green\"\n", "real DFT x real DFT"},
      {"viscosity = 0.02\nx_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ninflow_profile = \"parabolic\"\ninit = \"uniform\"\n",
       "DCT-IV x DCT-II/III"},
      {"viscosity = 0.02\ny_hi_value = 1.0\nviscous_scheme = \"implicit\"\n", "DCT-II/III x DCT-II/III"},
  };
  for (const Case& c : cases) {
    Sim s = make(this->ctx, 64, 32, c.model, 0.5);
    const std::vector<std::string> notes = s->plan_notes();
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("pressure solver transform"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find(c.transforms), std::string::npos) << notes[0];
    for (int k = 0; k < 10; ++k) s->step(s->next_dt(0.5));
    const double h = 1.0 / 64;
    EXPECT_LT(diagnostic(*s.model, "max_divergence") * h / 1.5, 1e-12) << c.model;
    EXPECT_LT(diagnostic(*s.model, "pressure_residual"), 1e-12) << c.model;
    // the same flow as mg_cg to mg_cg's tolerance
    Sim m = make(this->ctx, 64, 32, std::string(c.model) + "pressure_solver = \"mg_cg\"\npressure_tol = 1e-12\n", 0.5);
    for (int k = 0; k < 10; ++k) m->step(m->next_dt(0.5));
    const std::vector<double> ut = field(*s.model, "u_face"), um = field(*m.model, "u_face");
    double d = 0;
    for (std::size_t k = 0; k < ut.size(); ++k) d = std::max(d, std::abs(ut[k] - um[k]));
    EXPECT_LT(d, 1e-9) << c.model;
  }
  // with an obstacle: the box's transform solve with a capacitance correction, the plan says so
  Sim cyl = make(this->ctx, 64, 32,
                 "viscosity = 0.01\nx_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ninit = \"uniform\"\nobstacle = \"cylinder\"\n"
                 "obstacle_center = [0.3, 0.25]\nobstacle_radius = 0.06\n", 0.5);
  const std::vector<std::string> notes = cyl->plan_notes();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("pressure solver transform: auto: a cylinder"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("capacitance correction of"), std::string::npos) << notes[0];
}

// Around an obstacle the exact solve (the box's transforms with a capacitance correction) gives
// mg_cg's flow to mg_cg's tolerance: a channel past a cylinder (an outflow: nonsingular) and a
// cavity with a box (walls all round: singular), float64 and float32, over 30 rk2 steps.
TYPED_TEST(Fluid, ObstacleTransformSolveGivesMgCgsFlow) {
  struct Case {
    std::string model;
    double ly;
  } cases[] = {
      {"viscosity = 0.002\nx_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ninit = \"uniform\"\nobstacle = \"cylinder\"\n"
       "obstacle_center = [0.25, 0.13]\nobstacle_radius = 0.04\n", 0.25},
      {"viscosity = 0.01\ny_hi_value = 1.0\nobstacle = \"box\"\nobstacle_center = [0.4, 0.3]\nobstacle_size = [0.2, 0.3]\n", 1.0}};
  for (const Case& c : cases)
    for (const char* precision : {"float64", "float32"}) {
      const bool f64 = std::string(precision) == "float64";
      const std::string tol = f64 ? "pressure_tol = 1e-11\n" : "pressure_tol = 1e-5\n";
      Sim t = make(this->ctx, 128, int(128 * c.ly), c.model + "pressure_solver = \"transform\"\n", c.ly, precision);
      Sim m = make(this->ctx, 128, int(128 * c.ly), c.model + "pressure_solver = \"mg_cg\"\n" + tol, c.ly, precision);
      const std::string what = c.model + precision;
      for (int k = 0; k < 30; ++k) {
        const double dt = m->next_dt(0.5);
        t->next_dt(0.5);
        t->step(dt), m->step(dt);
      }
      EXPECT_EQ(diagnostic(*t.model, "pressure_iterations"), 0) << what;
      EXPECT_LT(diagnostic(*t.model, "max_divergence") / 128, f64 ? 1e-12 : 1e-5) << what;
      const double et = diagnostic(*t.model, "kinetic_energy"), em = diagnostic(*m.model, "kinetic_energy");
      EXPECT_GT(et, 1e-6) << what;
      EXPECT_LT(std::abs(et - em) / em, f64 ? 1e-9 : 1e-5) << what;
      std::printf("[ %s, %s: kinetic energy %.10g with the transform solve, %.10g with mg_cg ]\n",
                  c.ly == 1.0 ? "cavity with a box" : "channel past a cylinder", precision, et, em);
      const std::vector<double> ut = field(*t.model, "u_face"), um = field(*m.model, "u_face");
      double d = 0;
      for (std::size_t k = 0; k < ut.size(); ++k) d = std::max(d, std::abs(ut[k] - um[k]));
      EXPECT_LT(d, f64 ? 1e-8 : 1e-4) << what;
    }
}

// With walls on every side the momentum stage's output goes to the projection unfilled: the
// same bits as filling it first, for both time schemes, with dye and a moving lid.
// A marked step (Model::marked_step) is the step: the same bits as step() and the replayed
// step, its phases one of each a stage (the fused solve inside the projection on one rank).
TYPED_TEST(Fluid, MarkedStepIsTheStepWithItsPhases) {
  const std::string lines = "time_scheme = \"rk2\"\ny_hi_value = 1.0\n";
  Sim plain = make(this->ctx, 32, 24, lines), marked = make(this->ctx, 32, 24, lines);
  const double dt = plain->next_dt(0.5);
  std::vector<std::pair<std::string, double>> phases;
  for (int k = 0; k < 3; ++k) plain->step(dt), phases = marked->marked_step(dt);
  marked->step(dt), plain->step(dt);
  for (const char* name : {"u_face", "v_face", "p"}) {
    const std::vector<double> a = field(*plain.model, name), b = field(*marked.model, name);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << name;
  }
  std::map<std::string, int> count;
  for (const auto& [label, ms] : phases) {
    ++count[label];
    EXPECT_GE(ms, 0.0) << label;
  }
  EXPECT_EQ(count, (std::map<std::string, int>{{"ghost fill and exchanges", 2}, {"momentum", 2}, {"projection", 2}}));
}

TYPED_TEST(Fluid, WalledStagesNeedNoFillBeforeTheirProjection) {
  for (const char* scheme : {"euler", "rk2"}) {
    const std::string lines = std::string("time_scheme = \"") + scheme + "\"\ndye = \"half\"\ny_hi_value = 1.0\n";
    std::vector<std::vector<double>> runs;
    for (const char* every : {"true", "false"}) {
      Sim s = make(this->ctx, 32, 24, lines + "fill_every_stage = " + every + "\n");
      for (int k = 0; k < 20; ++k) s->step(s->next_dt(0.5));
      std::vector<double> all;
      for (const char* name : {"u_face", "v_face", "p", "dye"}) {
        const std::vector<double> f = field(*s.model, name);
        all.insert(all.end(), f.begin(), f.end());
      }
      runs.push_back(all);
    }
    ASSERT_EQ(runs[0].size(), runs[1].size());
    std::size_t differ = 0;
    for (std::size_t k = 0; k < runs[0].size(); ++k) differ += std::memcmp(&runs[0][k], &runs[1][k], sizeof(double)) != 0;
    EXPECT_EQ(differ, 0u) << scheme;
    EXPECT_GT(std::abs(runs[1][runs[1].size() / 3]), 0.0) << scheme << ": the flow did not move";
  }
}

// Steps whose dt the device chooses (run_device_steps: the run's batches) give the bits of
// next_dt() and step() one at a time, for both explicit schemes and both precisions, through
// a batch cut short by its horizon time and one that lands on the end time (together an odd
// number of steps for one of them: both starting parities' loops run). With a box in the
// cavity the steps take the obstacle transform solve (its fluid mean reduced on the device).
TYPED_TEST(Fluid, DeviceClockedStepsAreTheHostStepsBitForBit) {
  for (const char* obstacle : {"", "obstacle = \"box\"\nobstacle_center = [0.5, 0.4]\nobstacle_size = [0.25, 0.3]\n"})
  for (const char* precision : {"float64", "float32"})
    for (const char* scheme : {"euler", "rk2", "rk3"}) {
      const std::string lines = std::string("time_scheme = \"") + scheme + "\"\ndye = \"half\"\ny_hi_value = 1.0\n" + obstacle;
      const std::string what = std::string(precision) + " " + scheme + (*obstacle ? " with a box" : "");
      const double end = 0.3, cfl = 0.7;
      Sim host = make(this->ctx, 32, 24, lines, 1.0, precision);
      double t = 0, dt = 0;
      int steps = 0;
      while (!reached(t, end)) {  // the run's TimeStepper
        dt = host->next_dt(cfl);
        const bool last = reached(t + dt, end);
        host->step(last ? end - t : dt);
        t = last ? end : t + dt, ++steps;
      }
      Sim dev = make(this->ctx, 32, 24, lines, 1.0, precision);
      DeviceClock clock(this->ctx);
      ClockState s;
      s.end_time = end, s.horizon_step = 3;  // an odd batch: the next loop starts from the other parity
      clock.start(s);
      const std::int64_t first = dev->run_device_steps(clock, cfl);
      EXPECT_EQ(first, 3) << what;
      ClockState next = clock.host();
      next.horizon_step = ClockState{}.horizon_step, next.horizon_time = 0.1, next.running = 1;
      clock.start(next);
      const std::int64_t second = dev->run_device_steps(clock, cfl);
      ASSERT_GT(second, 0) << what;
      EXPECT_TRUE(reached(clock.host().time, 0.1) && !reached(clock.host().time - clock.host().dt, 0.1)) << what;
      ClockState rest = clock.host();
      rest.horizon_time = ClockState{}.horizon_time, rest.running = 1;
      clock.start(rest);
      const std::int64_t third = dev->run_device_steps(clock, cfl);
      EXPECT_EQ(first + second + third, steps) << what;
      EXPECT_EQ(clock.host().time, end) << what;
      EXPECT_EQ(clock.host().dt_chosen, dt) << what;
      dev->step(dev->next_dt(cfl)), host->step(host->next_dt(cfl));  // and the host steps go on from there
      for (const char* name : {"u_face", "v_face", "p", "dye"}) {
        const std::vector<double> a = field(*host.model, name), b = field(*dev.model, name);
        ASSERT_EQ(a.size(), b.size());
        std::size_t differ = 0;
        for (std::size_t k = 0; k < a.size(); ++k) differ += std::memcmp(&a[k], &b[k], sizeof(double)) != 0;
        EXPECT_EQ(differ, 0u) << what << ": " << name;
      }
      EXPECT_EQ(diagnostic(*host.model, "cfl"), diagnostic(*dev.model, "cfl")) << what;
    }
}

TYPED_TEST(Fluid, RestartIsBitIdentical) {
  const std::string cases[] = {
      "viscosity = 0.01\ny_hi_value = 1.0\ndye = \"half\"\n",
      "viscosity = 0.005\nx_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ninflow_profile = \"parabolic\"\ninit = \"uniform\"\n"
      "obstacle = \"cylinder\"\nobstacle_center = [0.3, 0.25]\nobstacle_radius = 0.06\ndye = \"stripes\"\nadvection = \"upwind\"\n",
      "viscosity = 0.02\ny_hi_value = 1.0\nviscous_scheme = \"implicit\"\ndye = \"half\"\n",
      // Euler with mg_cg: the pressure guess extrapolated from the history the checkpoint keeps
      "viscosity = 0.01\ny_hi_value = 1.0\ntime_scheme = \"euler\"\npressure_solver = \"mg_cg\"\n",
      "viscosity = 0.01\ny_hi_value = 1.0\ntime_scheme = \"euler\"\npressure_solver = \"mg_cg\"\npressure_tol = 1e-5\n",  // a line
      "viscosity = 0.02\ny_hi_value = 1.0\ntime_scheme = \"euler\"\nviscous_scheme = \"implicit\"\npressure_solver = \"mg_cg\"\n"};
  for (const std::string& model : cases) {
    Sim a = make(this->ctx, 64, 32, model, 0.5);
    for (int k = 0; k < 10; ++k) a->step(a->next_dt(0.5));
    std::vector<std::vector<unsigned char>> saved;
    std::vector<FieldRef> fa = a->fields();
    for (FieldRef& f : fa)
      if (f.checkpointed) saved.emplace_back(std::size_t(f.size()) * (f.is_double ? 8 : 4)), f.to_host(saved.back().data());
    std::map<std::string, std::uint64_t> counters;
    std::map<std::string, double> reals;
    a->save_state(counters, reals);
    for (int k = 0; k < 10; ++k) a->step(a->next_dt(0.5));

    Sim b = make(this->ctx, 64, 32, model, 0.5);
    std::vector<FieldRef> fb = b->fields();
    std::size_t n = 0;
    for (FieldRef& f : fb)
      if (f.checkpointed) f.from_host(saved[n++].data());
    b->load_state(counters, reals);
    for (int k = 0; k < 10; ++k) b->step(b->next_dt(0.5));
    a->prepare_output(), b->prepare_output();
    fa = a->fields(), fb = b->fields();
    for (std::size_t k = 0; k < fa.size(); ++k) {
      std::vector<unsigned char> x(std::size_t(fa[k].size()) * 8), y(x.size());
      fa[k].to_host(x.data()), fb[k].to_host(y.data());
      EXPECT_TRUE(x == y) << fa[k].name << " differs after the restart: " << model;
    }
  }
}

TYPED_TEST(Fluid, ChannelPastACylinderConservesMassAndStaysBounded) {
  Sim s = make(this->ctx, 128, 32,
               "viscosity = 0.002\nx_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ninit = \"uniform\"\nobstacle = \"cylinder\"\n"
               "obstacle_center = [0.25, 0.125]\nobstacle_radius = 0.04\ndye = \"stripes\"\n",
               0.25);
  run_to(*s.model, 0.5, 0.5);
  EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-5);
  const std::vector<double> u = field(*s.model, "u_face"), d = field(*s.model, "dye");
  // The outflow carries what the inflow brings: the mean u on the last face column is 1.
  double mean_out = 0;
  for (int j = 0; j < 32; ++j) mean_out += u[std::size_t(127 * 32 + j)] / 32;
  EXPECT_NEAR(mean_out, 1.0, 0.05);
  for (double x : d) {
    EXPECT_GE(x, -1e-6);  // bounded up to the divergence left by the solver tolerance
    EXPECT_LE(x, 1 + 1e-6);
  }
  // No flow through the obstacle: the face at its centre is closed.
  const int ic = int(0.25 * 128), jc = int(0.125 * 128);
  EXPECT_EQ(u[std::size_t(ic * 32 + jc)], 0.0);
}

// rk2's second stage solves for about half the first stage's pressure (its dt F(u) is weighted
// 1/2): each solve starts from the previous stage's pressure rescaled by the ratio of the
// weights, a guess good to O(dt). Without the rescaling the cylinder's mg_cg took about twice
// the iterations (model.pressure_guess_scale = false turns it off).
TYPED_TEST(Fluid, RescaledPressureGuessSavesIterations) {
  auto iterations = [&](const char* scale) {
    Sim s = make(this->ctx, 128, 32,
                 std::string("pressure_guess_scale = ") + scale + "\n" +
                 "viscosity = 0.002\nx_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ninit = \"uniform\"\n"
                 "obstacle = \"cylinder\"\nobstacle_center = [0.25, 0.125]\nobstacle_radius = 0.04\npressure_tol = 1e-5\n"
                 "pressure_solver = \"mg_cg\"\ntime_scheme = \"rk2\"\n",
                 0.25, "float32");
    double total = 0;
    for (int k = 0; k < 40; ++k) {
      s->step(s->next_dt(0.5));
      total += diagnostic(*s.model, "pressure_iterations");
    }
    EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-3) << scale;
    return total;
  };
  const double scaled = iterations("true"), plain = iterations("false");
  std::printf("[ mg_cg iterations over 40 rk2 steps past a cylinder: %g with the rescaled guess, %g without ]\n", scaled, plain);
  EXPECT_LT(scaled, 0.75 * plain);
}

// An Euler step's pressure solve starts from the pressure extrapolated in time through the last
// four steps' (a cubic; model.pressure_guess_order = "last" takes the last pressure as it is): fewer
// iterations, the same flow to the solver's tolerance, and no constant building up in the
// pressure of the walled (singular) cavity, whose history is kept mean-free.
TYPED_TEST(Fluid, ExtrapolatedPressureGuessSavesIterations) {
  auto run = [&](const char* order, double* iterations, std::vector<double>* u, std::vector<double>* p) {
    Sim s = make(this->ctx, 64, 64,
                 "viscosity = 0.001\ny_hi_value = 1.0\ntime_scheme = \"euler\"\npressure_solver = \"mg_cg\"\n"
                 "pressure_guess_order = \"" + std::string(order) + "\"\n");
    *iterations = 0;
    for (int k = 0; k < 300; ++k) {
      s->step(s->next_dt(0.5));
      if (k >= 100) *iterations += diagnostic(*s.model, "pressure_iterations");
    }
    EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-5) << order;
    *u = field(*s.model, "u_face"), *p = field(*s.model, "p");
  };
  double cubic = 0, plain = 0;
  std::vector<double> uc, up, pc, pp;
  run("cubic", &cubic, &uc, &pc);
  run("last", &plain, &up, &pp);
  std::printf("[ mg_cg iterations over Euler steps 100-300 of a 64^2 cavity: %g with the cubic guess, %g with the last pressure ]\n",
              cubic, plain);
  EXPECT_LT(cubic, 0.75 * plain);
  double du = 0;
  for (std::size_t k = 0; k < uc.size(); ++k) du = std::max(du, std::abs(uc[k] - up[k]));
  EXPECT_LT(du, 1e-6);
  double mean = 0, lo = pc[0], hi = pc[0];
  for (double x : pc) mean += x / double(pc.size()), lo = std::min(lo, x), hi = std::max(hi, x);
  EXPECT_LT(std::abs(mean), 1e-6 * (hi - lo)) << "the pressure's mean drifts";
}

// The fluid's algorithmic choices have a [model] key as well as a knob: the key wins where the
// file sets it, the knob applies where it does not. Bits compared: the pressure guess and the
// multigrid's sweeps change the iterates (to the solver's tolerance), so a choice that was not
// taken shows as a difference.
TYPED_TEST(Fluid, ConfigKeysWinOverTheTuningKnobs) {
  const std::string base = "viscosity = 0.01\ny_hi_value = 1.0\ntime_scheme = \"euler\"\npressure_solver = \"mg_cg\"\n"
                           "pressure_tol = 1e-7\n";
  auto pressure = [&](const std::string& lines) {
    Sim s = make(this->ctx, 32, 32, base + lines);
    for (int k = 0; k < 12; ++k) s->step(s->next_dt(0.5));
    return field(*s.model, "p");
  };
  auto same_bits = [](const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  };
  const std::vector<double> cubic = pressure("pressure_guess_order = \"cubic\"\n");
  const std::vector<double> last = pressure("pressure_guess_order = \"last\"\n");
  ASSERT_FALSE(same_bits(cubic, last)) << "the guess order does not change the iterates: the test cannot tell";
  const std::vector<double> sweeps_3 = pressure("pressure_mg_smooth = [3, 3]\n");
  ASSERT_FALSE(same_bits(sweeps_3, pressure(""))) << "the sweeps do not change the iterates: the test cannot tell";
  {
    const tuning::Scoped order("SIMKIT_FLUID_GUESS_ORDER", "0");
    EXPECT_TRUE(same_bits(pressure("pressure_guess_order = \"cubic\"\n"), cubic)) << "the file's key must win over the knob";
    EXPECT_TRUE(same_bits(pressure("pressure_guess_order = \"last\"\n"), last));
    // where the file sets no key, the knob applies
    EXPECT_TRUE(same_bits(pressure(""), last)) << "SIMKIT_FLUID_GUESS_ORDER=0 is the guess order \"last\"";
  }
  {
    const tuning::Scoped smooth("SIMKIT_MG_SMOOTH", "1,1");
    EXPECT_TRUE(same_bits(pressure("pressure_mg_smooth = [3, 3]\n"), sweeps_3)) << "the file's sweeps must win";
  }
  {
    const tuning::Scoped smooth("SIMKIT_MG_SMOOTH", "3,3");
    EXPECT_TRUE(same_bits(pressure(""), sweeps_3)) << "SIMKIT_MG_SMOOTH=3,3 is pressure_mg_smooth = [3, 3]";
    EXPECT_FALSE(same_bits(pressure("pressure_mg_smooth = [1, 1]\n"), sweeps_3)) << "the file's sweeps must win";
  }
}

// The keys of the 2D fluid's pressure guess, fills and multigrid are validated like every key,
// and refused on a 3D grid (whose fluid does not have those choices) rather than ignored.
TYPED_TEST(Fluid, GuessAndSmoothingKeysAreValidated) {
  EXPECT_THROW(make(this->ctx, 16, 16, "pressure_guess_order = \"quadratic\"\n"), io::ConfigError);
  EXPECT_THROW(make(this->ctx, 16, 16, "pressure_mg_smooth = [2]\n"), io::ConfigError);
  EXPECT_THROW(make(this->ctx, 16, 16, "pressure_mg_smooth = [1, -1]\n"), io::ConfigError);
  EXPECT_THROW(make(this->ctx, 16, 16, "fill_every_stage = 1\n"), io::ConfigError);
  static const ModelRegistry registry = builtin_models();
  for (const char* key : {"pressure_guess_order = \"linear\"", "pressure_guess_scale = false", "fill_every_stage = true",
                          "pressure_mg_smooth = [2, 2]"}) {
    const std::string text = std::string("[run]\nmodel = \"fluid\"\nsteps = 1\n[grid]\ncells = [8, 8, 8]\n[model]\n") + key + "\n";
    io::Config config = io::Config::parse(text, "fluid3d.toml");
    try {
      build_model(registry, this->ctx, config);
      ADD_FAILURE() << key << ": accepted on a 3D grid";
    } catch (const io::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("2D fluid only"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("fluid3d.toml"), std::string::npos) << e.what();
    }
  }
}

// Taylor-Green at 4x the explicit viscous limit and beyond: the time error (against a run
// with dt / 16 on the same grid) falls with order 2 for rk2 (IMEX Heun + trapezoidal) and
// order 1 for euler (backward Euler viscosity).
TYPED_TEST(Fluid, ImplicitViscosityConvergesInTimeWithTheSchemesOrder) {
  const double t_end = 0.2, dt0 = 0.01;  // the explicit viscous limit here is h^2 / (4 nu) = 0.0024
  for (const char* scheme : {"rk2", "euler"}) {
    auto run = [&](double dt) {
      Sim s = make(this->ctx, 32, 32,
                   std::string("viscosity = 0.1\ndefault = \"periodic\"\n"
                               "init = \"taylor_green\"\npressure_tol = 1e-12\nviscous_tol = 1e-13\n"
                               "viscous_scheme = \"implicit\"\ntime_scheme = \"") + scheme + "\"\n");
      const int steps = int(std::lround(t_end / dt));
      for (int k = 0; k < steps; ++k) s->step(dt);
      EXPECT_GT(diagnostic(*s.model, "viscous_iterations"), 0);
      return field(*s.model, "u_face");
    };
    const std::vector<double> reference = run(dt0 / 16);
    std::vector<double> errors;
    for (double dt : {dt0, dt0 / 2, dt0 / 4}) {
      const std::vector<double> u = run(dt);
      double e = 0;
      for (std::size_t k = 0; k < u.size(); ++k) e = std::max(e, std::abs(u[k] - reference[k]));
      errors.push_back(e);
    }
    const double expected = std::string(scheme) == "rk2" ? 2.0 : 1.0;
    for (std::size_t k = 1; k < errors.size(); ++k) {
      const double order = std::log2(errors[k - 1] / errors[k]);
      std::printf("[ implicit viscosity, %s: time order %.3f (errors %.3g, %.3g) ]\n", scheme, order, errors[k - 1], errors[k]);
      EXPECT_NEAR(order, expected, 0.25) << scheme;
    }
  }
}

// A steady state does not depend on how the viscous term is stepped: explicit and implicit
// viscosity reach the same discrete steady flow in a lid-driven cavity (the implicit one at
// 4x the explicit stability limit), and in a channel with an inflow, an outflow and a box
// obstacle (every kind of fixed face in the solve). The channel runs both at the same dt:
// the projection's outflow condition, zero-gradient predictor then p = 0, leaves an O(dt)
// term in any scheme's steady state there (grad p differs between the last two faces).
TYPED_TEST(Fluid, ImplicitAndExplicitViscosityReachTheSameSteadyState) {
  struct Case {
    std::string model;
    double implicit_dt;
  };
  const double explicit_dt = 0.004;  // the explicit viscous limit is h^2 / (4 nu) = 0.0049
  const Case cases[] = {
      {"viscosity = 0.05\ny_hi_value = 1.0\n", 0.02},
      {"viscosity = 0.05\nx_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ninflow_profile = \"parabolic\"\n"
       "obstacle = \"box\"\nobstacle_center = [0.35, 0.3]\nobstacle_size = [0.1, 0.2]\n",
       explicit_dt}};
  for (const Case& c : cases) {
    std::vector<double> steady[2];
    for (int implicit = 0; implicit < 2; ++implicit) {
      Sim s = make(this->ctx, 32, 16,
                   c.model + "time_scheme = \"euler\"\npressure_tol = 1e-11\nviscous_tol = 1e-13\nviscous_scheme = \"" +
                       (implicit ? "implicit" : "explicit") + "\"\n",
                   0.5);
      const double dt = implicit ? c.implicit_dt : explicit_dt;
      for (int k = 0; k < int(std::lround(8.0 / dt)); ++k) s->step(dt);
      steady[implicit] = field(*s.model, "u_face");
      const std::vector<double> v = field(*s.model, "v_face");
      steady[implicit].insert(steady[implicit].end(), v.begin(), v.end());
    }
    double d = 0, scale = 0;
    for (std::size_t k = 0; k < steady[0].size(); ++k)
      d = std::max(d, std::abs(steady[0][k] - steady[1][k])), scale = std::max(scale, std::abs(steady[0][k]));
    std::printf("[ steady states, explicit vs implicit viscosity: largest difference %.2e ]\n", d);
    EXPECT_GT(scale, 0.5) << c.model;
    EXPECT_LT(d, 1e-8) << c.model;
  }
}

// Plane Poiseuille flow: a parabolic inflow between walls stays the same parabola down the
// channel; with implicit viscosity the outflow profile matches it to O(h^2).
TYPED_TEST(Fluid, ImplicitViscosityKeepsPoiseuilleFlow) {
  const int nx = 64, ny = 16;
  Sim s = make(this->ctx, nx, ny,
               "viscosity = 0.02\nx_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ninflow_profile = \"parabolic\"\n"
               "init = \"rest\"\nviscous_scheme = \"implicit\"\ntime_scheme = \"euler\"\npressure_tol = 1e-10\n",
               0.25);
  run_to(*s.model, 4.0, 0.8);
  const std::vector<double> u = field(*s.model, "u_face");
  double worst = 0;
  for (int j = 0; j < ny; ++j) {
    const double y = (j + 0.5) / ny;
    worst = std::max(worst, std::abs(u[std::size_t((nx - 1) * ny + j)] - 6 * y * (1 - y)));
  }
  std::printf("[ Poiseuille outflow profile, largest deviation: %.2e ]\n", worst);
  EXPECT_LT(worst, 0.02);
}

// A pressure_tol below float32's floor: multigrid stops once its residual stops falling and
// the run fails with a message that says so (not "raise pressure_max_iterations").
TYPED_TEST(Fluid, PressureToleranceBelowTheFloat32FloorIsReportedAsAStall) {
  Sim s = make(this->ctx, 64, 64, "viscosity = 0.01\ny_hi_value = 1.0\npressure_solver = \"multigrid\"\npressure_tol = 1e-12\n",
               1.0, "float32");
  std::string message;
  try {
    s->step(s->next_dt(0.5));
  } catch (const Error& e) {
    message = e.what();
  }
  std::printf("[ %s ]\n", message.c_str());
  EXPECT_NE(message.find("stalled at relative residual"), std::string::npos) << message;
  EXPECT_NE(message.find("floor of float32"), std::string::npos) << message;
  EXPECT_NE(message.find("run.precision = \"float64\""), std::string::npos) << message;
}

/// The ConfigError message of building the fluid from lines (make's split), or "" if it builds.
inline std::string config_error(const Context& ctx, const std::string& lines) {
  try {
    make(ctx, 16, 16, lines);
  } catch (const io::ConfigError& e) {
    return e.what();
  }
  return "";
}

// Boundaries are one [boundary] section for every model; the fluid's former [model] side keys
// are refused with the key that replaced them.
TYPED_TEST(Fluid, FormerSideKeysAreRefusedNamingTheBoundaryKeys) {
  const struct {
    const char* line;
    const char* names;
  } cases[] = {{"left = \"inflow\"", "[boundary] x_lo"},          {"right = \"outflow\"", "[boundary] x_hi"},
               {"bottom = \"wall\"", "[boundary] y_lo"},          {"top = \"periodic\"", "[boundary] y_hi"},
               {"lid_velocity = 1.0", "[boundary] y_hi_value"}, {"inflow_velocity = 2.0", "[boundary] x_lo_value"}};
  for (const auto& c : cases) {
    const std::string msg = config_error(this->ctx, std::string("viscosity = 0.01\n") + c.line + "\n");
    EXPECT_NE(msg.find("[model] " + std::string(c.line).substr(0, std::string(c.line).find(' ')) + " was replaced by"),
              std::string::npos) << msg;
    EXPECT_NE(msg.find(c.names), std::string::npos) << msg;
    EXPECT_NE(msg.find("test_fluid.toml:"), std::string::npos) << msg;  // file and line
  }
}

TYPED_TEST(Fluid, BoundaryTakesTheFluidsKindsOnly) {
  std::string msg = config_error(this->ctx, "x_lo = \"inflw\"\nx_lo_value = 1.0\nx_hi = \"outflow\"");
  EXPECT_NE(msg.find("did you mean \"inflow\""), std::string::npos) << msg;
  msg = config_error(this->ctx, "y_hi = \"dirichlet\"");  // a scalar field's kind
  EXPECT_NE(msg.find("[boundary] y_hi"), std::string::npos) << msg;
  EXPECT_NE(msg.find("\"wall\""), std::string::npos) << msg;
  msg = config_error(this->ctx, "x_lo = \"periodic\"");
  EXPECT_NE(msg.find("x_hi = \"periodic\""), std::string::npos) << msg;
  msg = config_error(this->ctx, "y_hi = \"inflow\"\ny_hi_value = 1.0");
  EXPECT_NE(msg.find("inflow is supported on x_lo only"), std::string::npos) << msg;
  msg = config_error(this->ctx, "x_lo = \"inflow\"\nx_hi = \"outflow\"");
  EXPECT_NE(msg.find("set x_lo_value"), std::string::npos) << msg;
}

// A moving wall on any face: the lid on y_hi (along +x) and the same lid on x_lo (along +y)
// give the same flow turned by a quarter.
TYPED_TEST(Fluid, AWallOnAnyFaceCanMove) {
  Sim top = make(this->ctx, 16, 16, "viscosity = 0.05\ny_hi_value = 1.0\npressure_tol = 1e-12\n");
  Sim left = make(this->ctx, 16, 16, "viscosity = 0.05\nx_lo_value = 1.0\npressure_tol = 1e-12\n");
  for (int k = 0; k < 20; ++k) top->step(0.005), left->step(0.005);
  const std::vector<double> u = field(*top.model, "u_face"), v = field(*left.model, "v_face");
  ASSERT_EQ(u.size(), v.size());
  double umax = 0, d = 0;  // u(i, j) at the top equals v(n-1-j, i) at the left, sign for sign
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      const double a = u[std::size_t(i * 16 + j)], b = v[std::size_t((15 - j) * 16 + i)];
      umax = std::max(umax, std::abs(a)), d = std::max(d, std::abs(a - b));
    }
  EXPECT_GT(umax, 0.1);
  EXPECT_LT(d, 1e-8 * umax + 1e-12);
}

TEST(FluidGpu, AgreesWithCpuToSolverTolerance) {
  SIM_REQUIRE_GPU();
  for (const char* viscous : {"explicit", "implicit"}) {
    const std::string model = "viscosity = 0.01\ny_hi_value = 1.0\npressure_tol = 1e-12\nviscous_tol = 1e-13\ndye = \"half\"\n"
                              "viscous_scheme = \"" + std::string(viscous) + "\"\n";
    Context cpu = Context::create(BackendRequest::cpu), gpu = Context::create(BackendRequest::cuda);
    Sim a = make(cpu, 64, 64, model), b = make(gpu, 64, 64, model);
    for (int k = 0; k < 50; ++k) a->step(0.002), b->step(0.002);
    for (const char* name : {"u_face", "v_face", "dye"}) {
      const std::vector<double> x = field(*a.model, name), y = field(*b.model, name);
      double d = 0;
      for (std::size_t k = 0; k < x.size(); ++k) d = std::max(d, std::abs(x[k] - y[k]));
      EXPECT_LT(d, 1e-10) << name << ", " << viscous << " viscosity";
    }
  }
}

TEST(FluidCavity, Re100MatchesGhia1982) {
  // Steady state at Re 100 on 128^2; Euler and a 1e-6 pressure tolerance reach the same
  // steady state as RK2 at a tighter one, in half the time (the CPU runs this in CI).
  Context ctx = sim_test::gpu_skip_reason().empty() ? Context::create(BackendRequest::cuda) : Context::create(BackendRequest::cpu);
  Sim s = make(ctx, 128, 128, "viscosity = 0.01\ny_hi_value = 1.0\ntime_scheme = \"euler\"\npressure_tol = 1e-6\n");
  run_to(*s.model, 12.0, 0.9);
  std::string report;
  const double dev = ghia_deviation(*s.model, 128, ghia::re100, &report);
  std::printf("[ Re 100, 128^2 (%s): largest deviation from Ghia 1982: %.4f ]\n", ctx.device_name().c_str(), dev);
  EXPECT_LT(dev, 0.02) << report;
}

TEST(FluidCavity, Re1000MatchesGhia1982OnTheGpu) {
  SIM_REQUIRE_GPU();
  Context ctx = Context::create(BackendRequest::cuda);
  Sim s = make(ctx, 256, 256, "viscosity = 0.001\ny_hi_value = 1.0\ntime_scheme = \"euler\"\npressure_tol = 1e-6\n");
  run_to(*s.model, 60.0, 0.9);
  std::string report;
  const double dev = ghia_deviation(*s.model, 256, ghia::re1000, &report);
  std::printf("[ Re 1000, 256^2: largest deviation from Ghia 1982: %.4f ]\n", dev);
  EXPECT_LT(dev, 0.03) << report;
}
