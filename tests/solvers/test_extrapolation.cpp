// solvers/extrapolation.hpp: the Lagrange weights extrapolate polynomials of degree
// points - 1 exactly, on even and uneven spacings, and give the textbook even-step weights.
#include <gtest/gtest.h>

#include <cmath>

#include "solvers/extrapolation.hpp"

using namespace sim::solvers;

TEST(Extrapolation, EvenStepsGiveTheBackwardDifferenceWeights) {
  const std::array<double, 3> even{1, 1, 1};
  const std::array<double, 4> w1 = extrapolation_weights(1, even, 1), w2 = extrapolation_weights(2, even, 1),
                              w3 = extrapolation_weights(3, even, 1), w4 = extrapolation_weights(4, even, 1);
  const double expect[4][4] = {{1, 0, 0, 0}, {2, -1, 0, 0}, {3, -3, 1, 0}, {4, -6, 4, -1}};
  const std::array<double, 4>* got[4] = {&w1, &w2, &w3, &w4};
  for (int p = 0; p < 4; ++p)
    for (int k = 0; k < 4; ++k) EXPECT_NEAR((*got[p])[k], expect[p][k], 1e-14) << "points " << p + 1 << ", weight " << k;
}

TEST(Extrapolation, UnevenStepsAreExactForPolynomialsOfTheirDegree) {
  const std::array<double, 3> spacing{0.013, 0.011, 0.0125};
  const double t0 = 2.5, ahead = 0.0137;
  for (int points = 1; points <= 4; ++points) {
    const std::array<double, 4> w = extrapolation_weights(points, spacing, ahead);
    for (int degree = 0; degree < 4; ++degree) {
      auto f = [degree](double t) { return std::pow(t, degree) + 0.5; };
      double t = t0, guess = 0;
      for (int k = 0; k < 4; ++k) {
        guess += w[k] * f(t);
        if (k < 3) t -= spacing[k];
      }
      const double err = std::abs(guess - f(t0 + ahead));
      if (degree < points) EXPECT_LT(err, 1e-9) << points << " points, degree " << degree;
      else EXPECT_GT(err, 1e-9) << points << " points cannot be exact for degree " << degree;
    }
  }
}
