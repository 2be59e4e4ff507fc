#pragma once
// Polynomial extrapolation in time from unevenly spaced past values: the weights that carry
// f(t_n), f(t_n - s_1), f(t_n - s_1 - s_2), ... to f(t_n + ahead). A solver's initial guess
// from its last solutions (the fluid's pressure) is the use.
#include <array>

namespace sim::solvers {

/// Lagrange weights w[k] with f(t_n + ahead) ~ sum_k w[k] f(node k), node 0 = t_n and node k
/// spacing[k - 1] before node k - 1 (spacing > 0), from the first `points` nodes (1-4; the
/// rest get 0). Exact for polynomials of degree points - 1.
inline std::array<double, 4> extrapolation_weights(int points, const std::array<double, 3>& spacing, double ahead) {
  std::array<double, 4> node{0, 0, 0, 0}, w{0, 0, 0, 0};
  for (int k = 1; k < 4; ++k) node[k] = node[k - 1] - spacing[k - 1];
  for (int k = 0; k < points; ++k) {
    w[k] = 1;
    for (int j = 0; j < points; ++j)
      if (j != k) w[k] *= (ahead - node[j]) / (node[k] - node[j]);
  }
  return w;
}

}  // namespace sim::solvers
