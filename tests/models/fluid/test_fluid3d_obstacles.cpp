// The 3D fluid's open sides and obstacles through the Model interface: what flows in through
// the inflow flows out (every cross-section carries the inflow's flux, every cell is
// divergence-free); a channel develops the plane Poiseuille profile; faces touching an obstacle
// carry no flow; a box that spans a periodic z gives the 2D model's flow; the force on the
// obstacle is the shear of a Couette flow on a slab, and in a periodic box the momentum the
// fluid loses; the dye matches the 2D model's and is conserved; restarts with an obstacle are
// bit for bit; a bad mask file is refused at its key.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "io/hdf5_file.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"
#include "tests/support/backends.hpp"
#include "tests/support/fluid3d_runs.hpp"
#include "tests/support/model_values.hpp"

using namespace sim;

namespace fluid3d_obstacles_test {

using Sim = sim_test::Fluid3dRun;
using sim_test::make_fluid3d;
using sim_test::restore_checkpoint;
using sim_test::set_field;

using sim_test::diagnostic;
using sim_test::field_values;

/// Advances by `steps` steps of the adaptive dt at CFL 0.5; returns the time advanced.
inline double advance(Model& m, int steps) {
  double t = 0;
  for (int s = 0; s < steps; ++s) {
    const double dt = m.next_dt(0.5);
    m.step(dt);
    t += dt;
  }
  return t;
}

using sim_test::kFaceFields;

/// A channel along x: the inflow on x_lo (mean 1 m/s), the outflow on x_hi, walls on y, periodic z.
const char* const kChannel =
    "x_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ny_lo = \"wall\"\ny_hi = \"wall\"\nz_lo = \"periodic\"\nz_hi = \"periodic\"";

/// Whether cell (i, j, k) of an n-cell grid of spacing h has its centre in the box of centre c and size s.
inline bool in_box(const int (&ijk)[3], const double (&h)[3], const double (&c)[3], const double (&s)[3]) {
  for (int d = 0; d < 3; ++d)
    if (std::abs((ijk[d] + 0.5) * h[d] - c[d]) > 0.5 * s[d]) return false;
  return true;
}

}  // namespace fluid3d_obstacles_test

using namespace fluid3d_obstacles_test;

template <class B>
class Fluid3dObstacles : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(Fluid3dObstacles);

// Uniform and parabolic inflows into a channel at rest: after some steps every x cross-section
// carries the inflow's flux (U Ly Lz, to the midpoint rule's error for the parabola), and every cell (the last one, whose outflow face the
// continuity rule sets, included) is divergence-free.
TYPED_TEST(Fluid3dObstacles, WhatFlowsInFlowsOut) {
  for (const std::string profile : {"uniform", "parabolic"}) {
    Sim s = make_fluid3d(this->ctx, "[16, 8, 4]", "[2.0, 1.0, 0.5]", "viscosity = 0.05\ninflow_profile = \"" + profile + "\"", kChannel);
    advance(*s.model, 20);
    const std::vector<double> u = field_values(*s.model, "u_face");
    const double area = (1.0 / 8) * (0.5 / 4);
    double expected = 0;  // the profile at the rows' centres: its mean is U = 1 to the midpoint rule's error (parabolic)
    for (int j = 0; j < 8; ++j) {
      const double y = (j + 0.5) / 8;
      expected += (profile == "uniform" ? 1.0 : 6 * y * (1 - y)) * 4 * area;
    }
    double worst = 0;
    for (int i = 0; i < 16; ++i) {
      double flux = 0;
      for (int q = 0; q < 8 * 4; ++q) flux += u[std::size_t(i * 32 + q)] * area;
      worst = std::max(worst, std::abs(flux - expected));
    }
    EXPECT_LT(worst, 1e-12) << profile;
    EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-10) << profile;
    EXPECT_LT(diagnostic(*s.model, "pressure_residual"), 1e-10) << profile;
  }
}

// A uniform inflow at Re = U H / nu = 10 develops into the plane Poiseuille profile
// u = 6 U y (H - y) / H^2 downstream (steady after a few diffusion times H^2 / nu).
TYPED_TEST(Fluid3dObstacles, ChannelReachesThePlanePoiseuilleProfile) {
  Sim s = make_fluid3d(this->ctx, "[32, 8, 2]", "[4.0, 1.0, 0.25]", "viscosity = 0.1", kChannel);
  double t = 0;
  while (t < 8.0) t += advance(*s.model, 50);
  const std::vector<double> u = field_values(*s.model, "u_face"), v = field_values(*s.model, "v_face");
  double error = 0, vmax = 0;
  for (int j = 0; j < 8; ++j) {
    const double y = (j + 0.5) / 8, exact = 6 * y * (1 - y);
    for (int k = 0; k < 2; ++k) error = std::max(error, std::abs(u[std::size_t((28 * 8 + j) * 2 + k)] - exact));
  }
  for (int j = 1; j < 8; ++j) vmax = std::max(vmax, std::abs(v[std::size_t((28 * 8 + j) * 2)]));
  std::printf("[ Poiseuille: largest |u - exact| at x = 3.5: %.3e of the peak 1.5 ]\n", error);
  EXPECT_LT(error, 0.02 * 1.5);
  EXPECT_LT(vmax, 1e-3);
}

// A box in the channel: the faces touching its cells carry no flow, the flow stays
// divergence-free around it, it feels a drag, and --dry-run's note says which solver and why.
TYPED_TEST(Fluid3dObstacles, FacesTouchingTheObstacleCarryNoFlow) {
  Sim s = make_fluid3d(this->ctx, "[16, 8, 8]", "[2.0, 1.0, 1.0]",
                       "viscosity = 0.05\nobstacle = \"box\"\nobstacle_center = [0.8, 0.5, 0.5]\nobstacle_size = [0.3, 0.4, 0.4]\n"
                       "pressure_tol = 1e-10",
                       kChannel);
  advance(*s.model, 10);
  const double h[3] = {0.125, 0.125, 0.125}, c[3] = {0.8, 0.5, 0.5}, size[3] = {0.3, 0.4, 0.4};
  int closed = 0;
  double largest = 0, open = 0;
  for (int comp = 0; comp < 3; ++comp) {
    const std::vector<double> f = field_values(*s.model, kFaceFields[comp]);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 8; ++j)
        for (int k = 0; k < 8; ++k) {
          const int here[3] = {i, j, k};
          int below[3] = {i, j, k};
          --below[comp];
          const double value = std::abs(f[std::size_t((i * 8 + j) * 8 + k)]);
          if (in_box(here, h, c, size) || (below[comp] >= 0 && in_box(below, h, c, size))) {
            largest = std::max(largest, value), ++closed;
          } else {
            open = std::max(open, value);
          }
        }
  }
  EXPECT_EQ(closed, 4 * 4 * 4 + 2 * (3 * 5 * 4));  // a 3 x 4 x 4-cell box: its cells' faces and the high faces beyond
  EXPECT_EQ(largest, 0.0);
  EXPECT_GT(open, 0.5);
  EXPECT_LT(diagnostic(*s.model, "max_divergence"), 1e-7);
  EXPECT_GT(diagnostic(*s.model, "force_x"), 0.0);
  const std::vector<std::string> notes = s.model->plan_notes();
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes[0].find("capacitance correction"), std::string::npos) << notes[0];
}

// Past a sphere in a channel, the exact solve (the box's transform solve with a capacitance
// correction, auto's choice) and CG to a tight tolerance give the same flow, force and dye.
TYPED_TEST(Fluid3dObstacles, TransformAndCgSolvesGiveTheSameFlowPastASphere) {
  const std::string sphere = "viscosity = 0.02\nobstacle = \"sphere\"\nobstacle_center = [0.7, 0.5, 0.5]\n"
                             "obstacle_radius = 0.2\ndye = \"stripes\"\npressure_tol = 1e-12\npressure_solver = ";
  Sim exact = make_fluid3d(this->ctx, "[24, 12, 12]", "[2.0, 1.0, 1.0]", sphere + "\"transform\"", kChannel);
  Sim cg = make_fluid3d(this->ctx, "[24, 12, 12]", "[2.0, 1.0, 1.0]", sphere + "\"cg\"", kChannel);
  EXPECT_NE(exact.model->plan_notes()[0].find("transform: exact"), std::string::npos) << exact.model->plan_notes()[0];
  EXPECT_NE(cg.model->plan_notes()[0].find("cg: cg"), std::string::npos) << cg.model->plan_notes()[0];
  for (int s = 0; s < 20; ++s) {  // the same dt sequence: the exact run's
    const double dt = exact.model->next_dt(0.5);
    exact.model->step(dt), cg.model->step(dt);
  }
  EXPECT_EQ(diagnostic(*exact.model, "pressure_iterations"), 0.0);
  EXPECT_GT(diagnostic(*cg.model, "pressure_iterations"), 0.0);
  EXPECT_LT(diagnostic(*exact.model, "pressure_residual"), 1e-11);
  for (const char* name : {"u_face", "v_face", "w_face", "dye"}) {
    const std::vector<double> a = field_values(*exact.model, name), b = field_values(*cg.model, name);
    ASSERT_EQ(a.size(), b.size());
    double worst = 0;
    for (std::size_t q = 0; q < a.size(); ++q) worst = std::max(worst, std::abs(a[q] - b[q]));
    EXPECT_LT(worst, 1e-8) << name;
  }
  const double fx = diagnostic(*exact.model, "force_x");
  EXPECT_GT(fx, 0.0);
  EXPECT_NEAR(fx, diagnostic(*cg.model, "force_x"), 1e-7 * std::abs(fx));
}

// A box spanning the periodic z in a channel, with dye streaming in as stripes: the flow does
// not vary along z, so the 3D model gives the 2D model's velocities and dye (both solve the
// pressure by CG, to 1e-13) and w = 0.
TYPED_TEST(Fluid3dObstacles, BoxAcrossAPeriodicZMatchesThe2dModel) {
  const std::string common =
      "viscosity = 0.02\npressure_tol = 1e-13\nobstacle = \"box\"\ndye = \"stripes\"\ndye_diffusivity = 0.005\n";
  Sim s3 = make_fluid3d(this->ctx, "[24, 12, 3]", "[2.0, 1.0, 0.25]",
                        common + "obstacle_center = [0.6, 0.55, 0.125]\nobstacle_size = [0.25, 0.3, 1.0]", kChannel);
  Sim s2 = make_fluid3d(this->ctx, "[24, 12]", "[2.0, 1.0]",
                        common + "pressure_solver = \"cg\"\nobstacle_center = [0.6, 0.55]\nobstacle_size = [0.25, 0.3]",
                        "x_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\"\ny_lo = \"wall\"\ny_hi = \"wall\"");
  for (int s = 0; s < 15; ++s) {
    const double dt = s3.model->next_dt(0.5);
    s3.model->step(dt), s2.model->step(dt);
  }
  const std::vector<double> u3 = field_values(*s3.model, "u_face"), v3 = field_values(*s3.model, "v_face"),
                            w3 = field_values(*s3.model, "w_face");
  const std::vector<double> u2 = field_values(*s2.model, "u_face"), v2 = field_values(*s2.model, "v_face");
  const std::vector<double> d3 = field_values(*s3.model, "dye"), d2 = field_values(*s2.model, "dye");
  double du = 0, dv = 0, wmax = 0, dd = 0, dmax = 0;
  for (int i = 0; i < 24; ++i)
    for (int j = 0; j < 12; ++j)
      for (int k = 0; k < 3; ++k) {
        const std::size_t q3 = std::size_t((i * 12 + j) * 3 + k), q2 = std::size_t(i * 12 + j);
        du = std::max(du, std::abs(u3[q3] - u2[q2])), dv = std::max(dv, std::abs(v3[q3] - v2[q2]));
        wmax = std::max(wmax, std::abs(w3[q3]));
        dd = std::max(dd, std::abs(d3[q3] - d2[q2])), dmax = std::max(dmax, d3[q3]);
      }
  std::printf("[ z-invariant box: |u3 - u2| %.2e, |v3 - v2| %.2e, |w| %.2e, |dye3 - dye2| %.2e ]\n", du, dv, wmax, dd);
  EXPECT_GT(dmax, 0.5);
  EXPECT_LT(dd, 1e-9);
  EXPECT_LT(du, 1e-9);
  EXPECT_LT(dv, 1e-9);
  EXPECT_LT(wmax, 1e-9);
}

// Couette flow over a slab: x and z periodic, a box filling the two lowest cell rows, the y_hi
// wall moving at U. The steady flow is linear from 0 at the no-slip plane of the closed faces
// (the centres of the top solid row, y_s) to U at the lid, and the force on the slab is the
// shear nu U / (L - y_s) times its area Lx Lz, along +x.
TYPED_TEST(Fluid3dObstacles, ForceOnASlabUnderCouetteFlowIsTheWallShear) {
  const double nu = 0.1, ys = 0.15, height = 1.0 - ys, exact = nu * 1.0 * 1.0 * 0.5 / height;
  Sim s = make_fluid3d(this->ctx, "[8, 10, 4]", "[1.0, 1.0, 0.5]",
                       "viscosity = 0.1\ntime_scheme = \"euler\"\nobstacle = \"box\"\nobstacle_center = [0.5, 0.1, 0.25]\n"
                       "obstacle_size = [2.0, 0.2, 1.0]",
                       "default = \"periodic\"\ny_lo = \"wall\"\ny_hi = \"wall\"\ny_hi_value = 1.0");
  std::vector<double> u(8 * 10 * 4, 0.0);
  for (int i = 0; i < 8; ++i)
    for (int j = 2; j < 10; ++j)
      for (int k = 0; k < 4; ++k) u[std::size_t((i * 10 + j) * 4 + k)] = ((j + 0.5) * 0.1 - ys) / height;
  set_field(*s.model, "u_face", u);
  for (int n = 0; n < 5; ++n) s.model->step(0.01);
  const std::vector<double> after = field_values(*s.model, "u_face");
  double change = 0;
  for (std::size_t q = 0; q < u.size(); ++q) change = std::max(change, std::abs(after[q] - u[q]));
  EXPECT_LT(change, 1e-13);  // steady
  EXPECT_NEAR(diagnostic(*s.model, "force_x"), exact, 1e-12 * exact);
  EXPECT_LT(std::abs(diagnostic(*s.model, "force_y")), 1e-12);
  EXPECT_LT(std::abs(diagnostic(*s.model, "force_z")), 1e-12);
}

// A sphere in a box periodic all round, the fluid started moving along x: nothing enters or
// leaves, so the x-momentum the fluid loses in a step is the drag on the sphere times dt
// (pressure, viscous and advective parts together; the force is evaluated at the two ends of
// the step, the balance holds in between: agreement to the step's change).
TYPED_TEST(Fluid3dObstacles, ForceInAPeriodicBoxIsTheMomentumTheFluidLoses) {
  Sim s = make_fluid3d(this->ctx, "[12, 12, 12]", "[1.0, 1.0, 1.0]",
                       "viscosity = 0.02\ntime_scheme = \"euler\"\ninit = \"uniform\"\ninit_velocity = 1.0\nobstacle = \"sphere\"\n"
                       "obstacle_center = [0.5, 0.5, 0.5]\nobstacle_radius = 0.2\npressure_tol = 1e-12",
                       "default = \"periodic\"");
  const double dt = 0.002, cell = 1.0 / (12 * 12 * 12);
  for (int n = 0; n < 50; ++n) s.model->step(dt);
  auto momentum = [&] {
    double m = 0;
    for (double x : field_values(*s.model, "u_face")) m += x * cell;
    return m;
  };
  double m0 = momentum(), f0 = diagnostic(*s.model, "force_x");
  for (int n = 0; n < 2; ++n) {
    s.model->step(dt);
    const double m1 = momentum(), f1 = diagnostic(*s.model, "force_x"), lost = (m0 - m1) / dt;
    std::printf("[ periodic box: momentum lost / dt %.6f, force %.6f .. %.6f ]\n", lost, f0, f1);
    EXPECT_GT(f1, 0.0);
    EXPECT_NEAR(0.5 * (f0 + f1), lost, 0.01 * lost);
    EXPECT_LT(std::abs(diagnostic(*s.model, "force_y")), 1e-6 * f1);  // symmetric about y and z
    EXPECT_LT(std::abs(diagnostic(*s.model, "force_z")), 1e-6 * f1);
    m0 = m1, f0 = f1;
  }
}

// The dye in a box periodic all round, carried by the Taylor-Green vortex past a sphere: its
// total stays what it was to rounding (donor-cell fluxes, no flux through the closed faces,
// no diffusion), it stays within [0, 1], and it moves.
TYPED_TEST(Fluid3dObstacles, DyeIsConservedAndBounded) {
  const std::string len = std::to_string(2 * M_PI);
  Sim s = make_fluid3d(this->ctx, "[16, 16, 16]", "[" + len + ", " + len + ", " + len + "]",
                       "viscosity = 0.01\ninit = \"taylor_green\"\ndye = \"half\"\nobstacle = \"sphere\"\n"
                       "obstacle_center = [1.0, 1.0, 1.0]\nobstacle_radius = 0.6\npressure_tol = 1e-10",
                       "default = \"periodic\"");
  const std::vector<double> d0 = field_values(*s.model, "dye");
  advance(*s.model, 1);  // (the first stage clears the solid cells)
  const std::vector<double> d1 = field_values(*s.model, "dye");
  advance(*s.model, 30);
  const std::vector<double> d2 = field_values(*s.model, "dye");
  double total1 = 0, total2 = 0, lo = 1, hi = 0, moved = 0;
  for (std::size_t q = 0; q < d1.size(); ++q) {
    total1 += d1[q], total2 += d2[q], lo = std::min(lo, d2[q]), hi = std::max(hi, d2[q]);
    moved = std::max(moved, std::abs(d2[q] - d0[q]));
  }
  EXPECT_NEAR(total2, total1, 1e-10 * total1);
  EXPECT_GE(lo, -1e-12);
  EXPECT_LE(hi, 1 + 1e-12);
  EXPECT_GT(moved, 0.1);
}

// A checkpoint's fields (the face velocities and p) and state restore a run past a sphere bit for bit.
TYPED_TEST(Fluid3dObstacles, RestartWithAnObstacleIsBitForBit) {
  auto build = [&] {
    return make_fluid3d(this->ctx, "[16, 8, 8]", "[2.0, 1.0, 1.0]",
                        "viscosity = 0.02\ninit = \"uniform\"\nobstacle = \"sphere\"\nobstacle_center = [0.6, 0.5, 0.5]\n"
                        "obstacle_radius = 0.2\npressure_tol = 1e-9\ndye = \"stripes\"",
                        kChannel);
  };
  Sim whole = build(), first = build();
  advance(*whole.model, 7);
  advance(*first.model, 3);
  Sim second = build();
  restore_checkpoint(*first.model, *second.model);
  advance(*second.model, 4);
  for (const char* name : {"u_face", "v_face", "w_face", "p", "dye"}) {
    const std::vector<double> a = field_values(*whole.model, name), b = field_values(*second.model, name);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << name;
  }
  EXPECT_NE(diagnostic(*second.model, "force_x"), 0.0);
}

/// Writes a snapshot at path holding field `name` of the given shape and values.
inline void write_mask(const std::string& path, const std::string& name, const std::vector<std::int64_t>& shape,
                       const std::vector<double>& values) {
  io::GridInfo grid;
  grid.rank = int(shape.size()), grid.cells = shape;
  grid.origin.assign(shape.size(), 0.0), grid.spacing.assign(shape.size(), 1.0 / double(shape[0]));
  io::RunInfo info;
  info.model = "fluid";
  io::FieldView f;
  f.name = name, f.unit = "1", f.shape = shape, f.data = values.data();
  io::write_snapshot(path, info, grid, {f}, 0);
}

/// The ConfigError message of building the fluid with these [model] lines on cells, or "" if it builds.
inline std::string config_error(const Context& ctx, const std::string& cells, const std::string& length,
                                const std::string& model, const std::string& boundary) {
  try {
    make_fluid3d(ctx, cells, length, model, boundary);
  } catch (const io::ConfigError& e) {
    return e.what();
  }
  return "";
}

// obstacle = "mask": a good file builds (3D and 2D) and closes the masked cells' faces; a
// missing file, a missing dataset, a dataset of another shape and values other than 0 and 1
// are refused at model.obstacle_file, naming the file and what was expected.
TYPED_TEST(Fluid3dObstacles, MaskFileIsCheckedAtItsKey) {
  const std::string dir = ::testing::TempDir(), good = dir + "mask_good.h5", small = dir + "mask_small.h5",
                    half = dir + "mask_half.h5", flat = dir + "mask_2d.h5";
  std::vector<double> mask(8 * 8 * 8, 1.0);
  for (int q : {(3 * 8 + 4) * 8 + 4, (4 * 8 + 4) * 8 + 4}) mask[std::size_t(q)] = 0.0;
  write_mask(good, "mask", {8, 8, 8}, mask);
  write_mask(small, "mask", {4, 4, 4}, std::vector<double>(64, 1.0));
  std::vector<double> halves = mask;
  halves[10] = 0.5;
  write_mask(half, "mask", {8, 8, 8}, halves);
  std::vector<double> flat_mask(16 * 8, 1.0);
  flat_mask[5 * 8 + 4] = 0.0;
  write_mask(flat, "solid", {16, 8}, flat_mask);

  const std::string box = "[8, 8, 8]", len = "[1.0, 1.0, 1.0]";
  const std::string ok = "obstacle = \"mask\"\nobstacle_file = \"" + good + "\"";
  EXPECT_EQ(config_error(this->ctx, box, len, ok, kChannel), "");
  Sim s = make_fluid3d(this->ctx, box, len, ok + "\ninit = \"uniform\"", kChannel);
  advance(*s.model, 2);
  const std::vector<double> u = field_values(*s.model, "u_face");
  EXPECT_EQ(u[std::size_t((3 * 8 + 4) * 8 + 4)], 0.0);  // faces of the solid cells
  EXPECT_EQ(u[std::size_t((5 * 8 + 4) * 8 + 4)], 0.0);
  EXPECT_NE(u[std::size_t((6 * 8 + 4) * 8 + 4)], 0.0);
  EXPECT_EQ(config_error(this->ctx, "[16, 8]", "[2.0, 1.0]", "obstacle = \"mask\"\nobstacle_file = \"" + flat +
                                                                  "\"\nobstacle_dataset = \"solid\"",
                         "x_lo = \"inflow\"\nx_lo_value = 1.0\nx_hi = \"outflow\""),
            "");

  const struct {
    std::string model, expect;
  } bad[] = {{"obstacle = \"mask\"", "needs obstacle_file"},
             {"obstacle = \"mask\"\nobstacle_file = \"" + dir + "no_such_mask.h5\"", dir + "no_such_mask.h5"},
             {"obstacle = \"mask\"\nobstacle_file = \"" + good + "\"\nobstacle_dataset = \"solid\"", "'solid'"},
             {"obstacle = \"mask\"\nobstacle_file = \"" + small + "\"", "has shape (4, 4, 4) but the grid has (8, 8, 8)"},
             {"obstacle = \"mask\"\nobstacle_file = \"" + half + "\"", "expected 0 (solid) or 1 (fluid)"}};
  for (const auto& b : bad) {
    const std::string msg = config_error(this->ctx, box, len, b.model, kChannel);
    EXPECT_NE(msg.find("obstacle_file"), std::string::npos) << msg;
    EXPECT_NE(msg.find(b.expect), std::string::npos) << msg;
    EXPECT_NE(msg.find("fluid3d_test.toml:"), std::string::npos) << msg;
  }
  for (const std::string& f : {good, small, half, flat}) std::remove(f.c_str());
}

// What the obstacles and open sides of the 3D model refuse, at the key to change.
TYPED_TEST(Fluid3dObstacles, BadObstacleAndOpenSideSettingsAreRefusedAtTheirKeys) {
  const struct {
    std::string model, boundary, key, expect;
  } cases[] = {
      {"obstacle = \"sphere\"", kChannel, "obstacle_center", "expected 3 coordinates"},
      {"obstacle = \"box\"\nobstacle_center = [0.5, 0.5, 0.5]", kChannel, "obstacle_size", "expected 3 lengths"},
      {"obstacle = \"sphere\"\nobstacle_center = [0.5, 0.5, 0.5]\nobstacle_radius = 0.01", kChannel, "obstacle", "covers no cell"},
      {"obstacle = \"box\"\nobstacle_center = [0.5, 0.5, 0.5]\nobstacle_size = [0.25, 2.0, 2.0]\npressure_solver = \"transform\"",
       kChannel, "pressure_solver", "cannot take this obstacle"},
      {"pressure_solver = \"cg\"", kChannel, "pressure_solver", "without one the transform solve"},
      {"obstacle = \"box\"\nobstacle_center = [0.0, 0.5, 0.5]\nobstacle_size = [0.5, 0.5, 0.5]", kChannel, "obstacle",
       "reaches the inflow face"},
      {"", "x_lo = \"outflow\"\nx_hi = \"inflow\"\nx_hi_value = 1.0", "x_lo", "outflow is supported on x_hi only"},
      {"", "x_lo = \"inflow\"\nx_hi = \"outflow\"", "x_lo", "an inflow needs its mean velocity"},
  };
  for (const auto& c : cases) {
    const std::string msg = config_error(this->ctx, "[8, 8, 8]", "[1.0, 1.0, 1.0]", c.model, c.boundary);
    EXPECT_NE(msg.find(c.key), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
  const std::string sphere2d = config_error(this->ctx, "[8, 8]", "[1.0, 1.0]", "obstacle = \"sphere\"", "");
  EXPECT_NE(sphere2d.find("a sphere needs a 3D grid"), std::string::npos) << sphere2d;
}

// The GPU's steps past a sphere give the CPU's flow and force (to the CG's tolerance: the two
// add in other orders). Skips without a GPU.
TEST(Fluid3dObstaclesBackends, GpuMatchesCpu) {
  SIM_REQUIRE_GPU();
  const Context cpu = Context::create(BackendRequest::cpu, ContextOptions{0, 1});
  const Context gpu = Context::create(BackendRequest::cuda, ContextOptions{0, 1});
  const std::string model = "viscosity = 0.02\ninit = \"uniform\"\nobstacle = \"sphere\"\nobstacle_center = [0.6, 0.5, 0.5]\n"
                            "obstacle_radius = 0.2\npressure_tol = 1e-12\ndye = \"stripes\"";
  Sim a = make_fluid3d(cpu, "[24, 12, 12]", "[2.0, 1.0, 1.0]", model, kChannel);
  Sim b = make_fluid3d(gpu, "[24, 12, 12]", "[2.0, 1.0, 1.0]", model, kChannel);
  for (int s = 0; s < 10; ++s) {
    const double dt = a.model->next_dt(0.5);
    a.model->step(dt), b.model->step(dt);
  }
  for (const char* name : {"u_face", "v_face", "w_face", "dye"}) {
    const std::vector<double> x = field_values(*a.model, name), y = field_values(*b.model, name);
    double d = 0;
    for (std::size_t q = 0; q < x.size(); ++q) d = std::max(d, std::abs(x[q] - y[q]));
    EXPECT_LT(d, 1e-9) << name;
  }
  const double fa = diagnostic(*a.model, "force_x"), fb = diagnostic(*b.model, "force_x");
  EXPECT_NEAR(fa, fb, 1e-8 * std::abs(fa));
}
