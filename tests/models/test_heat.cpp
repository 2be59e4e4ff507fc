// Verification of the heat model through the Model interface only: convergence orders in
// space and time against exact solutions, conservation, sources, stability limits, steady
// states, GPU/CPU agreement and bit-identical restarts. All checks read host copies of the
// fields (no device lambdas here: test bodies are compiled by nvcc in CUDA builds).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"
#include "tests/support/backends.hpp"
#include "tests/support/model_values.hpp"

using namespace sim;

namespace heat_test {

/// A model together with the config it was built from (kept alive for the model's lifetime).
struct Sim {
  std::unique_ptr<io::Config> config;
  std::unique_ptr<Model> model;
  Model* operator->() const { return model.get(); }
};

/// Builds the heat model from TOML sections (grid, model, boundary) on ctx, initialized.
inline Sim make(const Context& ctx, const std::string& grid, const std::string& model, const std::string& boundary,
                const std::string& precision = "float64") {
  static const ModelRegistry registry = builtin_models();
  const std::string text = "[run]\nmodel = \"heat\"\nsteps = 1\nprecision = \"" + precision + "\"\n[grid]\n" + grid +
                           "\n[model]\n" + model + "\n[boundary]\n" + boundary + "\n";
  Sim s{std::make_unique<io::Config>(io::Config::parse(text, "test_heat.toml")), nullptr};
  s.model = build_model(registry, ctx, *s.config);
  s.model->initialize();
  return s;
}

/// Takes `steps` steps of size dt.
inline void advance(Model& m, double dt, int steps) {
  for (int n = 0; n < steps; ++n) m.step(dt);
}

/// The interior of field `name` ("u" by default), row-major, as doubles.
inline std::vector<double> field(Model& m, const std::string& name = "u") { return sim_test::field_values(m, name); }

/// The raw bytes of every field, in fields() order (for bit-identity checks).
inline std::vector<std::vector<unsigned char>> raw_fields(Model& m) {
  std::vector<std::vector<unsigned char>> out;
  for (FieldRef& f : m.fields()) {
    out.emplace_back(std::size_t(f.size()) * (f.is_double ? 8 : 4));
    f.to_host(out.back().data());
  }
  return out;
}

using sim_test::diagnostic;

/// Largest |v|.
inline double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

/// Root-mean-square of a - b.
inline double rms_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(s / double(a.size()));
}

/// A sine mode prod_d sin(k_d pi (x_d - o_d) / L_d) on a cell-centred grid of rank d.
struct Mode {
  int rank;
  int n[3], k[3];
  double length[3], origin[3];
  /// TOML [grid] section.
  std::string grid_toml() const {
    std::string c = "cells = [", l = "length = [", o = "origin = [";
    for (int d = 0; d < rank; ++d) {
      const char* sep = d ? ", " : "";
      c += sep + std::to_string(n[d]);
      l += sep + std::to_string(length[d]);
      o += sep + std::to_string(origin[d]);
    }
    return c + "]\n" + l + "]\n" + o + "]";
  }
  /// TOML `modes = [...]`.
  std::string modes_toml() const {
    std::string m = "modes = [";
    for (int d = 0; d < rank; ++d) m += (d ? ", " : "") + std::to_string(k[d]);
    return m + "]";
  }
  /// Continuous eigenvalue -sum (k pi / L)^2.
  double lambda() const {
    double s = 0;
    for (int d = 0; d < rank; ++d) s += std::pow(k[d] * M_PI / length[d], 2);
    return -s;
  }
  /// Eigenvalue of the discrete Laplacian for this mode: -sum (4/dx^2) sin^2(k pi dx / 2L).
  double lambda_h() const {
    double s = 0;
    for (int d = 0; d < rank; ++d) {
      const double dx = length[d] / n[d];
      s += 4 / (dx * dx) * std::pow(std::sin(k[d] * M_PI * dx / (2 * length[d])), 2);
    }
    return -s;
  }
  /// amp * mode * exp(rate t) sampled at the cell centres, row-major.
  std::vector<double> sample(double amp, double rate, double t) const {
    const int n1 = rank > 1 ? n[1] : 1, n2 = rank > 2 ? n[2] : 1;
    std::vector<double> out;
    out.reserve(std::size_t(n[0]) * n1 * n2);
    auto s = [&](int d, int i) { return std::sin(k[d] * M_PI * (i + 0.5) / n[d]); };  // (x - o)/L = (i+.5)/n
    for (int i = 0; i < n[0]; ++i)
      for (int j = 0; j < n1; ++j)
        for (int l = 0; l < n2; ++l)
          out.push_back(amp * std::exp(rate * t) * s(0, i) * (rank > 1 ? s(1, j) : 1) * (rank > 2 ? s(2, l) : 1));
    return out;
  }
};

constexpr const char* kDirichlet0 = "default = \"dirichlet\"\ndefault_value = 0.0";

/// Space error of an RK2 run (dt = 0.25 x stable dt, so time error is O(dx^4)) of a decaying
/// sine mode at time t_end: returns {RMS error vs the exact solution, RMS error vs the
/// semi-discrete solution (time error only)}.
inline std::pair<double, double> sine_space_error(const Context& ctx, const Mode& m, double alpha, double t_end) {
  const double amp = 1.5;
  Sim s = make(ctx, m.grid_toml(),
               "alpha = " + std::to_string(alpha) + "\nscheme = \"rk2\"\ninit = \"sine\"\namplitude = 1.5\n" +
                   m.modes_toml(),
               kDirichlet0);
  const int steps = int(std::ceil(t_end / (0.25 * s->stable_dt())));
  advance(*s.model, t_end / steps, steps);
  const std::vector<double> u = field(*s.model);
  return {rms_diff(u, m.sample(amp, alpha * m.lambda(), t_end)), rms_diff(u, m.sample(amp, alpha * m.lambda_h(), t_end))};
}

/// Orders log(e_i / e_{i+1}) / log(n_{i+1} / n_i) between successive resolutions.
inline std::vector<double> orders(const std::vector<double>& err, const std::vector<double>& n) {
  std::vector<double> p;
  for (std::size_t i = 0; i + 1 < err.size(); ++i) p.push_back(std::log(err[i] / err[i + 1]) / std::log(n[i + 1] / n[i]));
  return p;
}

/// Space-convergence check of mode m0 scaled to each resolution in ns; prints and asserts.
inline void check_space_order(const Context& ctx, const char* label, Mode m0, const std::vector<int>& ns, double alpha,
                              double t_end) {
  std::vector<double> err, nn;
  for (int n : ns) {
    Mode m = m0;
    for (int d = 0; d < m.rank; ++d) m.n[d] = n * m0.n[d];
    const auto [e, e_time] = sine_space_error(ctx, m, alpha, t_end);
    std::printf("  [%s] n = %3d: error %.4e (time part %.2e)\n", label, n, e, e_time);
    EXPECT_LT(e_time, 0.01 * e) << "time error not negligible at n = " << n;
    err.push_back(e), nn.push_back(n);
  }
  for (double p : orders(err, nn)) {
    std::printf("  [%s] space order %.4f\n", label, p);
    EXPECT_GT(p, 1.9);
    EXPECT_LT(p, 2.1);
  }
}

/// Relative RMS time error of `scheme` on a 1D 64-cell sine mode vs the semi-discrete solution.
inline double sine_time_error(const Context& ctx, const std::string& scheme, int steps, double t_end) {
  const Mode m{1, {64, 1, 1}, {2, 1, 1}, {1, 1, 1}, {0, 0, 0}};
  Sim s = make(ctx, m.grid_toml(), "scheme = \"" + scheme + "\"\ninit = \"sine\"\ncg_tol = 1e-13\n" + m.modes_toml(),
               kDirichlet0);
  advance(*s.model, t_end / steps, steps);
  const std::vector<double> exact = m.sample(1.0, m.lambda_h(), t_end);
  return rms_diff(field(*s.model), exact) / (max_abs(exact) / std::sqrt(2.0));
}

/// Relative change of total_heat over `steps` explicit steps at half the stable dt.
inline double heat_drift(const Context& ctx, const std::string& scheme, const std::string& init,
                         const std::string& boundary, const std::string& precision, int steps) {
  Sim s = make(ctx, "cells = [64, 48]\nlength = [1.0, 0.75]",
               "scheme = \"" + scheme + "\"\ninit = \"" + init + "\"\ninit_value = 0.25\nwidth = 0.15\ncenter = [0.3, 0.4]",
               boundary, precision);
  const double h0 = diagnostic(*s.model, "total_heat");
  advance(*s.model, 0.5 * s->stable_dt(), steps);
  return std::fabs(diagnostic(*s.model, "total_heat") - h0) / std::fabs(h0);
}

}  // namespace heat_test

using namespace heat_test;

template <class B>
class HeatModelTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(HeatModelTest);

TYPED_TEST(HeatModelTest, SpaceOrderIsTwo1D) {
  check_space_order(this->ctx, "1D", Mode{1, {1, 1, 1}, {3, 1, 1}, {2.0, 1, 1}, {-0.5, 0, 0}}, {32, 64, 128, 256}, 0.5,
                    0.05);
}

TYPED_TEST(HeatModelTest, SpaceOrderIsTwo2D) {
  check_space_order(this->ctx, "2D", Mode{2, {1, 1, 1}, {1, 2, 1}, {1.0, 2.0, 1}, {0.25, -1.0, 0}}, {16, 32, 64}, 1.0,
                    0.02);
}

TYPED_TEST(HeatModelTest, SpaceOrderIsTwo3D) {
  check_space_order(this->ctx, "3D", Mode{3, {1, 1, 1}, {1, 1, 2}, {1.0, 1.0, 1.5}, {0, 0.5, 0}}, {8, 12, 16, 24}, 1.0,
                    0.02);
}

TYPED_TEST(HeatModelTest, TimeOrderOfEachScheme) {
  struct Case {
    const char* scheme;
    int steps0;  // coarsest number of steps to t_end (explicit: dt below the limit 1.22e-4)
    double lo, hi;
  };
  const double t_end = 0.05;
  for (const Case& c : {Case{"euler", 500, 0.9, 1.1}, Case{"rk2", 500, 1.9, 2.1}, Case{"crank_nicolson", 40, 1.9, 2.1},
                        Case{"backward_euler", 40, 0.9, 1.1}}) {
    std::vector<double> err, steps;
    for (int r = 0; r < 4; ++r) {
      steps.push_back(c.steps0 << r);
      err.push_back(sine_time_error(this->ctx, c.scheme, c.steps0 << r, t_end));
    }
    for (double p : orders(err, steps)) {
      std::printf("  [%s] time order %.4f (errors %.3e .. %.3e)\n", c.scheme, p, err.front(), err.back());
      EXPECT_GT(p, c.lo) << c.scheme;
      EXPECT_LT(p, c.hi) << c.scheme;
    }
  }
}

TYPED_TEST(HeatModelTest, TotalHeatConservedWithNeumannAndPeriodic) {
  struct Case {
    const char *label, *boundary, *init;
  };
  for (const char* scheme : {"euler", "rk2"})
    for (const Case& c : {Case{"neumann", "default = \"neumann\"\ndefault_value = 0.0", "gaussian"},
                          Case{"periodic", "default = \"periodic\"", "hot_box"}}) {
      const std::string bc = c.boundary, init = c.init;
      const double d64 = heat_drift(this->ctx, scheme, init, bc, "float64", 200);
      const double d32 = heat_drift(this->ctx, scheme, init, bc, "float32", 200);
      std::printf("  [%s, %s] relative total_heat change: float64 %.2e, float32 %.2e\n", scheme, c.label, d64, d32);
      EXPECT_LT(d64, 1e-12) << scheme << " " << c.label;
      EXPECT_LT(d32, 1e-5) << scheme << " " << c.label;
    }
}

TYPED_TEST(HeatModelTest, ConstantSourceAddsSourceTimesVolumeTimesTime) {
  for (const char* scheme : {"euler", "rk2"}) {
    Sim s = make(this->ctx, "cells = [40, 30]\nlength = [2.0, 1.5]",
                 std::string("scheme = \"") + scheme + "\"\ninit = \"gaussian\"\nsource = \"constant\"\nsource_value = 2.5",
                 "default = \"neumann\"\ndefault_value = 0.0");
    const double h0 = diagnostic(*s.model, "total_heat"), dt = 0.5 * s->stable_dt();
    const int steps = 150;
    advance(*s.model, dt, steps);
    const double expect = h0 + 2.5 * (2.0 * 1.5) * (steps * dt), got = diagnostic(*s.model, "total_heat");
    std::printf("  [%s] total heat %.15g, expected %.15g, relative error %.2e\n", scheme, got, expect,
                std::fabs(got - expect) / expect);
    EXPECT_NEAR(got, expect, 1e-12 * expect) << scheme;
  }
}

TYPED_TEST(HeatModelTest, ExplicitLimitIsEnforcedImplicitSchemesAreNot) {
  const std::string grid = "cells = [32, 32]", bc = kDirichlet0;
  for (const char* scheme : {"euler", "rk2"}) {
    Sim s = make(this->ctx, grid, std::string("scheme = \"") + scheme + "\"", bc);
    const double limit = s->stable_dt();
    EXPECT_DOUBLE_EQ(limit, 1.0 / (2.0 * (2 * 32.0 * 32.0)));
    EXPECT_NO_THROW(s->check_dt(0.99 * limit));
    try {
      s->check_dt(1.01 * limit);
      ADD_FAILURE() << scheme << ": check_dt accepted 1.01 x the stable dt";
    } catch (const sim::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("largest stable dt"), std::string::npos) << what;
      EXPECT_NE(what.find("crank_nicolson"), std::string::npos) << what;
    }
  }
  // 100 x the explicit limit. Backward Euler obeys the discrete max principle at any dt: max|u|
  // never grows. Crank-Nicolson does not (it needs dt <= 2 x the explicit limit, and
  // overshoots after the first step here), but it is unconditionally stable in L2: the RMS
  // never grows, and max|u| stays below its initial value.
  const double explicit_limit = 1.0 / (2.0 * (2 * 32.0 * 32.0));
  for (const char* scheme : {"crank_nicolson", "backward_euler"}) {
    const bool be = std::string(scheme) == "backward_euler";
    Sim s = make(this->ctx, grid,
                 std::string("scheme = \"") + scheme + "\"\ninit = \"gaussian\"\nwidth = 0.08\ncg_tol = 1e-12", bc);
    EXPECT_NO_THROW(s->check_dt(100 * explicit_limit));
    const std::vector<double> zero(field(*s.model).size(), 0.0);
    const double max0 = max_abs(field(*s.model));
    double max_prev = max0, rms_prev = rms_diff(field(*s.model), zero);
    for (int n = 0; n < 20; ++n) {
      s->step(100 * explicit_limit);
      const std::vector<double> u = field(*s.model);
      const double max_now = max_abs(u), rms_now = rms_diff(u, zero);
      if (be) {
        EXPECT_LE(max_now, max_prev * (1 + 1e-9)) << scheme << " step " << n;
      }
      EXPECT_LE(max_now, max0) << scheme << " step " << n;
      EXPECT_LE(rms_now, rms_prev * (1 + 1e-9)) << scheme << " step " << n;
      max_prev = max_now, rms_prev = rms_now;
    }
    std::printf("  [%s] dt = 100 x explicit limit: max|u| %.4f -> %.4e, RMS -> %.4e after 20 steps\n", scheme, max0,
                max_prev, rms_prev);
    EXPECT_LT(max_prev, 0.01 * max0);
  }
}

TYPED_TEST(HeatModelTest, InhomogeneousDirichletReachesLinearSteadyState) {
  const int n = 64;
  Sim s = make(this->ctx, "cells = [64]\nlength = [2.0]",
               "scheme = \"backward_euler\"\ninit = \"constant\"\ninit_value = 0.0\ncg_tol = 1e-13",
               "default = \"dirichlet\"\ndefault_value = 0.0\nx_lo_value = 1.0");
  advance(*s.model, 2.0, 25);  // slowest mode decays by 1 / (1 + 2 (pi/2)^2) per step
  const std::vector<double> u = field(*s.model);
  double err = 0;
  for (int i = 0; i < n; ++i) err = std::max(err, std::fabs(u[i] - (1 - (i + 0.5) / n)));
  std::printf("  steady state max error vs 1 - x/L: %.2e\n", err);
  EXPECT_LT(err, 1e-6);
}

TEST(HeatModelGpu, MatchesCpuToRounding) {
  SIM_REQUIRE_GPU();
  const std::string grid = "cells = [64, 48]\nlength = [1.0, 0.75]",
                    model = "scheme = \"euler\"\ninit = \"gaussian\"\nsource = \"gaussian\"\nsource_value = 3.0",
                    bc = "default = \"dirichlet\"\ndefault_value = 0.5\nx_hi = \"neumann\"\nx_hi_value = -1.0";
  Sim gpu = make(Context::create(BackendRequest::cuda, ContextOptions{0, 1234}), grid, model, bc);
  Sim cpu = make(Context::create(BackendRequest::cpu, ContextOptions{0, 1234}), grid, model, bc);
  const double dt = 0.9 * cpu->stable_dt();
  advance(*gpu.model, dt, 50);
  advance(*cpu.model, dt, 50);
  const std::vector<double> a = field(*gpu.model), b = field(*cpu.model);
  double diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::fabs(a[i] - b[i]));
  const double rel = diff / max_abs(b);
  std::printf("  GPU vs CPU max relative difference after 50 euler steps: %.2e\n", rel);
  EXPECT_LT(rel, 1e-12);
}

TYPED_TEST(HeatModelTest, RestartIsBitIdentical) {
  const std::string grid = "cells = [24, 20]\nlength = [1.2, 1.0]",
                    bc = "default = \"dirichlet\"\ndefault_value = 0.0\ny_lo = \"neumann\"\ny_lo_value = 0.5";
  for (const char* scheme : {"euler", "crank_nicolson"}) {
    const std::string model = std::string("scheme = \"") + scheme + "\"\ninit = \"hot_box\"\nsource = \"gaussian\"";
    const int n = 30;
    Sim straight = make(this->ctx, grid, model, bc);
    const double dt = 0.8 * make(this->ctx, grid, "scheme = \"euler\"", bc)->stable_dt();
    advance(*straight.model, dt, 2 * n);

    Sim first = make(this->ctx, grid, model, bc);
    advance(*first.model, dt, n);
    const auto saved = raw_fields(*first.model);
    std::map<std::string, std::uint64_t> counters;
    std::map<std::string, double> reals;
    first->save_state(counters, reals);
    first.model.reset();

    Sim resumed = make(this->ctx, grid, model, bc);
    std::vector<FieldRef> refs = resumed->fields();
    ASSERT_EQ(refs.size(), saved.size());
    for (std::size_t i = 0; i < refs.size(); ++i) refs[i].from_host(saved[i].data());
    resumed->load_state(counters, reals);
    advance(*resumed.model, dt, n);

    const auto a = raw_fields(*straight.model), b = raw_fields(*resumed.model);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].size(), b[i].size());
      EXPECT_EQ(std::memcmp(a[i].data(), b[i].data(), a[i].size()), 0) << scheme << ": field " << refs[i].name;
    }
    // The check must be able to fail: one more step on one side changes the bytes.
    resumed->step(dt);
    EXPECT_NE(std::memcmp(a[0].data(), raw_fields(*resumed.model)[0].data(), a[0].size()), 0) << scheme;
  }
}
