// The explicit integrators on scalar ODEs: each converges with its order, and on the imaginary
// axis (central advection's eigenvalues) SSP-RK3 keeps a mode's amplitude up to |dt lambda| =
// sqrt(3) where Heun lets it grow; ShuOsherWeights names the weights the integrators use.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "solvers/time_integrators.hpp"

namespace {

using C = std::complex<double>;

/// steps of size dt of du/dt = lambda u from u = 1 with the scheme of stages (1 euler, 2 Heun, 3 SSP-RK3).
C integrate(int stages, C lambda, double dt, int steps) {
  auto update = [lambda](C& v, C& out, double h, double w, C& u0) { out = w * u0 + (1 - w) * (v + h * lambda * v); };
  C u = 1, s1 = 0, s2 = 0;
  for (int k = 0; k < steps; ++k) {
    if (stages == 1) sim::solvers::euler_step(update, u, s1, dt), u = s1;
    else if (stages == 2) sim::solvers::rk2_step(update, u, s1, s2, dt), u = s2;
    else sim::solvers::rk3_step(update, u, s1, s2, s1, dt), u = s1;
  }
  return u;
}

}  // namespace

TEST(TimeIntegrators, EachSchemeConvergesWithItsOrder) {
  const C lambda(-1.0, 2.0);  // decay and rotation
  for (int stages : {1, 2, 3}) {
    double error[2];
    for (int r = 0; r < 2; ++r) {
      const int steps = 40 << r;
      error[r] = std::abs(integrate(stages, lambda, 1.0 / steps, steps) - std::exp(lambda));
    }
    const double order = std::log2(error[0] / error[1]);
    EXPECT_NEAR(order, stages, 0.1) << stages << " stages: errors " << error[0] << ", " << error[1];
  }
}

TEST(TimeIntegrators, Rk3IsStableOnTheImaginaryAxisWhereHeunIsNot) {
  for (double z : {0.5, 1.0, 1.5, 1.7}) {
    EXPECT_LE(std::abs(integrate(3, C(0, z), 1.0, 1)), 1.0) << z;  // |1 + z + z^2/2 + z^3/6| <= 1 for z = iy, y <= sqrt(3)
    EXPECT_GT(std::abs(integrate(2, C(0, z), 1.0, 1)), 1.0) << z;  // |1 + z + z^2/2|^2 = 1 + y^4/4
  }
  EXPECT_GT(std::abs(integrate(3, C(0, 1.8), 1.0, 1)), 1.0);
}

TEST(TimeIntegrators, ShuOsherWeightsAreTheIntegratorsStages) {
  const sim::solvers::ShuOsherWeights rk2{2}, rk3{3};
  EXPECT_EQ(rk2.base(1), 0.5);
  EXPECT_EQ(rk3.base(1), 0.75);
  EXPECT_EQ(rk3.base(2), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(rk3.flux(1) + rk3.flux(2), 0.25 + 2.0 / 3.0);
  for (const auto& s : {sim::solvers::ShuOsherWeights{1}, rk2, rk3})
    for (int k = 0; k < s.stages; ++k) EXPECT_EQ(s.stage_of(s.base(k)), k) << s.stages << " stages, stage " << k;
}
